"""Early cards in the game loop (wire.md section 6a): while the non-dealer thinks over
its first move, its shares-only ``v2deck3`` is already out, so the dealer's hand shows
before that move -- in every hand, classic and pipelined deal."""

from __future__ import annotations

import hashlib
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing
from helpers.net import bot, dial_target, hosting, play_pair

from truc_p2p.crypto import SigningKey
from truc_p2p.net import (
    BotStrategy,
    End,
    GameSettings,
    Invite,
    Reporting,
    Storage,
    _local_game,
    join_game,
)
from truc_p2p.protocol import (
    CardsDealt,
    MalformedMessageError,
    RulesetMismatchError,
    Session,
    SessionOptions,
    decode_envelope,
    verify_transcript,
)
from truc_p2p.protocol._wire import Envelope
from truc_p2p.rules import Action, Game, Player, Ruleset
from truc_p2p.transcript import read_transcript

P0, P1 = Player.P0, Player.P1
THINK_S = 3.0


class SlowThinker:
    """A bot that thinks :data:`THINK_S` seconds over every move; it notes when it
    made the first move of each round as the non-dealer."""

    def __init__(self, me: Player, seed: int) -> None:
        self.me = me
        self.bot: BotStrategy = bot(seed)
        self.first_moves: dict[int, float] = {}

    async def choose(self, game: Game, legal: tuple[Action, ...]) -> Action:
        await trio.sleep(THINK_S)
        if game.dealer != self.me:
            self.first_moves.setdefault(game.round_no, trio.current_time())
        return await self.bot.choose(game, legal)


def _session(me: Player, record: list[bytes], *, pipeline: bool, early: bool) -> Session:
    def derive(label: str) -> bytes:
        return hashlib.sha256(f"net-early/{int(me)}/{label}".encode()).digest()

    return Session(
        identity=SigningKey.from_bytes(derive("key")),
        role=me,
        secret=derive("secret"),
        record=record.append,
        # the games (hence the hellos) this test was written for
        options=SessionOptions(
            ruleset=Ruleset(target=3),
            name=("joiner", "host")[me],
            pipeline=pipeline,
            early=early,
            early_redeal=False,
        ),
    )


async def _play(
    *, pipeline: bool, early: bool
) -> tuple[dict[Player, SlowThinker], dict[Player, list[tuple[float, CardsDealt]]], list[bytes]]:
    records: dict[Player, list[bytes]] = {P0: [], P1: []}
    sessions = {p: _session(p, records[p], pipeline=pipeline, early=early) for p in Player}
    thinkers = {p: SlowThinker(p, int(p) + 5) for p in Player}
    dealt: dict[Player, list[tuple[float, CardsDealt]]] = {P0: [], P1: []}

    def on_event(me: Player, event: object) -> None:
        if isinstance(event, CardsDealt) and not event.redeal:
            dealt[me].append((trio.current_time(), event))

    ends = await play_pair(sessions, thinkers, on_event)
    assert ends == {P0: End.FINISHED, P1: End.FINISHED}
    for p in Player:
        assert verify_transcript(records[p]).valid
    return thinkers, dealt, records[P0]


@pytest.mark.parametrize("pipeline", [False, True], ids=["classic", "pipelined"])
async def test_the_dealers_hand_shows_before_the_nondealers_first_move(
    autojump_clock: trio.abc.Clock, pipeline: bool
) -> None:
    thinkers, dealt, record = await _play(pipeline=pipeline, early=True)
    hands = 0
    for p in Player:
        for when, event in dealt[p]:
            if event.dealer != p:
                continue
            hands += 1
            # The non-dealer moved THINK_S after it was handed its turn; the dealer
            # held its cards from the start of that thought.
            moved = thinkers[p.other].first_moves[event.round_no]
            assert when <= moved - THINK_S + 0.001, (event.round_no, when, moved)
    assert hands >= 2
    assert any(
        decode_envelope(r).type == "v2deck3" and "action" not in decode_envelope(r).payload
        for r in record
    )


async def test_without_early_cards_the_dealer_waits_for_the_first_move(
    autojump_clock: trio.abc.Clock,
) -> None:
    """The same game with the option off: the measurement above can fail."""
    thinkers, dealt, _ = await _play(pipeline=False, early=False)
    for p in Player:
        for when, event in dealt[p]:
            if event.dealer == p:
                assert when >= thinkers[p.other].first_moves[event.round_no]


class _OldHostSession(Session):
    """A responder as implemented before early cards: it compares the hellos' whole
    options maps, so it answers a hello proposing early cards with its own hello and
    then reports the mismatch (wire.md 4, 11)."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(**{**kw, "options": replace(kw["options"], early=False)})
        on_hello = self._play.on_hello  # the table's handler of a hello

        def checked(env: Envelope, mine: bool) -> None:
            on_hello(env, mine)
            if not mine and "early" in env.payload["options"]:
                ours = self._hello.options()
                raise RulesetMismatchError(
                    f"peer proposes options {env.payload['options']}, we use {ours}",
                    message_no=env.seq,
                )

        self._play.on_hello = checked  # type: ignore[method-assign]


async def test_a_joiner_plays_with_a_host_that_predates_early_cards(
    autojump_clock: trio.abc.Clock, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The host turns the early-cards proposal down as incompatible (nothing is played,
    the host goes on listening); the joiner joins again without proposing them and the
    game is played in today's protocol."""

    def make_session(**kw: Any) -> Session:
        return _OldHostSession(**kw) if kw["role"] is P1 else Session(**kw)

    monkeypatch.setattr(_local_game, "Session", make_session)
    ruleset = Ruleset(target=2)
    notices: list[str] = []
    with trio.fail_after(600):  # without the second try the host would wait forever
        async with hosting(
            strategy=bot(1),
            identity=SigningKey.generate(),
            settings=GameSettings(session=SessionOptions(ruleset=ruleset)),
            storage=Storage(out_dir=tmp_path / "host"),
            report=Reporting(on_notice=notices.append),
        ) as (invite, results):
            joined = await join_game(
                invite,
                bot(2),
                identity=SigningKey.generate(),
                settings=GameSettings(session=SessionOptions(ruleset=ruleset)),
                storage=Storage(out_dir=tmp_path / "join", fsync=False),
            )
    assert joined.end is End.FINISHED, joined.message
    assert results["host"].end is End.FINISHED
    assert any("incompatible" in n or "options" in n for n in notices), notices
    assert joined.transcript is not None
    envelopes = read_transcript(joined.transcript)
    hellos = [decode_envelope(envelopes[i]).payload["options"] for i in (0, 1)]
    assert "early" not in hellos[0] and "early" not in hellos[1]
    assert verify_transcript(envelopes).valid
    assert len(list((tmp_path / "join").glob("*.truc"))) == 1  # the refused try is gone


class _SpecHostSession(Session):
    """A responder written from the spec of 2026-12-01, before early cards: an
    options map with a key it does not know is malformed (it aborts, no hello)."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(**{**kw, "options": replace(kw["options"], early=False)})
        on_hello = self._play.on_hello  # the table's handler of a hello

        def checked(env: Envelope, mine: bool) -> None:
            if not mine and "early" in env.payload["options"]:
                raise MalformedMessageError("unknown option 'early'", message_no=env.seq)
            on_hello(env, mine)

        self._play.on_hello = checked  # type: ignore[method-assign]


async def _one_connection(target: int, task_status: trio.TaskStatus[int]) -> None:
    """Accept one connection, pass it to ``target``, and listen no more (a host that
    serves one connection and stops, whatever happened on it)."""
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    task_status.started(listeners[0].socket.getsockname()[1])
    client = await listeners[0].accept()
    await listeners[0].aclose()
    server = await dial_target(client, target)
    if server is None:
        return

    async def pump(src: trio.abc.Stream, dst: trio.abc.Stream) -> None:
        try:
            while data := await src.receive_some(65536):
                await dst.send_all(data)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass
        with trio.CancelScope(shield=True):
            await trio.aclose_forcefully(dst)

    async with client, server, trio.open_nursery() as nursery:
        nursery.start_soon(pump, client, server)
        nursery.start_soon(pump, server, client)


async def test_an_invite_without_settings_gets_no_early_cards_proposed(
    autojump_clock: trio.abc.Clock, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An invite without settings keys is an older host's (connect.md 1.1); that host
    refuses an option it does not know as malformed and accepts one connection only,
    so a proposal of early cards, and its fallback's second dial, lose the game.  The
    joiner proposes none: the game is played on the one connection."""

    def make_session(**kw: Any) -> Session:
        return _SpecHostSession(**kw) if kw["role"] is P1 else Session(**kw)

    monkeypatch.setattr(_local_game, "Session", make_session)
    ruleset = Ruleset(target=2)
    with trio.fail_after(600):
        async with (
            hosting(
                strategy=bot(1),
                identity=SigningKey.generate(),
                settings=GameSettings(session=SessionOptions(ruleset=ruleset)),
                storage=Storage(out_dir=tmp_path / "host"),
            ) as (invite, results),
            trio.open_nursery() as nursery,
        ):
            port = await nursery.start(_one_connection, invite.port)
            old_invite = Invite(invite.host, port, invite.fingerprint)  # no settings keys
            joined = await join_game(
                old_invite,
                bot(2),
                identity=SigningKey.generate(),
                settings=GameSettings(session=SessionOptions(ruleset=ruleset)),
                storage=Storage(out_dir=tmp_path / "join", fsync=False),
            )
            assert joined.end is End.FINISHED, joined.message
    assert results["host"].end is End.FINISHED
    assert joined.transcript is not None
    envelopes = read_transcript(joined.transcript)
    assert "early" not in decode_envelope(envelopes[0]).payload["options"]
    assert verify_transcript(envelopes).valid
