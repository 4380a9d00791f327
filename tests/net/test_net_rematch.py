"""``host --forever`` takes a rematch (wire.md 4.1): a joiner that names a game it
finished with the host plays again, the other player dealing first; a joiner that
names a game it did not play, or the wrong dealer, is refused before any card."""

from __future__ import annotations

from pathlib import Path

import trio
from helpers.net import bot, hosting

from truc_p2p.crypto import SigningKey
from truc_p2p.net import (
    End,
    GameOutcome,
    GameSettings,
    Listen,
    Reporting,
    Storage,
    join_game,
)
from truc_p2p.protocol import Series, SessionOptions, verify_transcript
from truc_p2p.rules import Player, Ruleset
from truc_p2p.transcript import read_transcript

RULES = Ruleset(target=2)


async def test_a_forever_host_takes_a_rematch_of_its_own_games(tmp_path: Path) -> None:
    finished: list[GameOutcome] = []
    stop = trio.Event()
    me = SigningKey.generate()
    stranger = SigningKey.generate()

    async def join(n: int, series: Series | None, key: SigningKey = me) -> GameOutcome:
        return await join_game(
            invite,
            bot(10 + n),
            identity=key,
            settings=GameSettings(session=SessionOptions(ruleset=RULES, series=series or Series())),
            storage=Storage(out_dir=tmp_path / f"j{n}", fsync=False),
        )

    with trio.fail_after(120):
        async with hosting(
            strategy=bot(0),
            identity=SigningKey.generate(),
            settings=GameSettings(session=SessionOptions(ruleset=RULES)),
            listen=Listen(forever=True),
            storage=Storage(out_dir=tmp_path / "host"),
            report=Reporting(on_outcome=finished.append),
            players=lambda: (bot(len(finished) + 1), None),
            stop=stop,
        ) as (invite, _):
            first = await join(1, None)
            assert first.end is End.FINISHED and first.game_id is not None
            assert first.first_dealer is not None
            again = Series(prev=first.game_id, dealer=first.first_dealer.other)
            # refused hellos do not take the place of the game after the first
            wrong_dealer = await join(3, Series(prev=first.game_id, dealer=first.first_dealer))
            unknown = await join(4, Series(prev=b"\x01" * 32, dealer=first.first_dealer))
            not_yours = await join(5, again, stranger)
            second = await join(2, again)
            # the game after the first was played: naming it again is a replay
            replayed = await join(6, again)
            replayed_by_another = await join(7, again, stranger)
            stop.set()
    for outcome in (replayed, replayed_by_another):
        assert outcome.end is End.REFUSED and outcome.kind == "refused-played", outcome.message
        assert outcome.transcript is None
        assert "played once" in outcome.message
    assert not list((tmp_path / "j6").glob("*.truc"))
    assert second.end is End.FINISHED, second.message
    assert second.first_dealer is first.first_dealer.other
    assert second.game_id != first.game_id
    for refused in (wrong_dealer, unknown, not_yours):
        assert refused.end is End.INCOMPATIBLE, refused.message
        assert "prev" in refused.message
    assert len(finished) == 2
    for outcome in (first, second, *finished):
        assert outcome.transcript is not None
        assert verify_transcript(read_transcript(outcome.transcript)).valid


async def test_a_match_host_refuses_a_game_naming_an_earlier_game_of_its_match(
    tmp_path: Path,
) -> None:
    """The host of game 3 of a match (it follows game 2) knows game 1 was followed by
    game 2 (``GameSettings.played``): a hello naming game 1 again is refused ``played``
    before any game message, and the game 3 it waits for still comes."""
    me = SigningKey.generate()
    one, two = b"\x01" * 32, b"\x02" * 32
    expected = Series(match=3, prev=two, dealer=Player.P0)
    with trio.fail_after(60):
        async with hosting(
            strategy=bot(0),
            identity=SigningKey.generate(),
            settings=GameSettings(session=SessionOptions(ruleset=RULES, series=expected)),
            listen=Listen(played=frozenset({one})),
            storage=Storage(out_dir=tmp_path / "host"),
        ) as (invite, _):
            again = await join_game(
                invite,
                bot(1),
                identity=me,
                settings=GameSettings(
                    session=SessionOptions(
                        ruleset=RULES, series=Series(match=3, prev=one, dealer=Player.P1)
                    )
                ),
                storage=Storage(out_dir=tmp_path / "j1", fsync=False),
            )
            third = await join_game(
                invite,
                bot(2),
                identity=me,
                settings=GameSettings(session=SessionOptions(ruleset=RULES, series=expected)),
                storage=Storage(out_dir=tmp_path / "j2", fsync=False),
            )
    assert again.end is End.REFUSED and again.kind == "refused-played", again.message
    assert not list((tmp_path / "j1").glob("*"))
    assert third.end is End.FINISHED, third.message
    assert third.first_dealer is Player.P0
