"""How a game ended, in the player's language: the net layer's outcomes carry a kind and
its facts (``message`` stays the English sentence of the library and ``--json``); the
command line renders them through the catalogs."""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest
import trio
from helpers.net import Silent, bot, hosting, new_session, run_game

from truc_p2p.crypto import SigningKey
from truc_p2p.i18n import speaking
from truc_p2p.net import End, GameOutcome, Invite, join_game
from truc_p2p.net import _outcome as net
from truc_p2p.net._strategy import Strategy
from truc_p2p.rules import Player
from truc_p2p.ui import _outcome_text as cli

P0, P1 = Player.P0, Player.P1


def _placeholders(template: str | tuple[str, str]) -> set[str]:
    texts = template if isinstance(template, tuple) else (template,)
    return {name for text in texts for _t, name, _f, _c in string.Formatter().parse(text) if name}


def _facts(kind: str, where: str = "hand") -> dict[str, object]:
    """Sample facts for every placeholder of ``kind``."""
    facts: dict[str, object] = {}
    for name in _placeholders(net.KINDS[kind]):
        facts[name] = {"n": 3, "limit": 30.0, "grace": 2.5, "reason": "target"}.get(name, name)
    if "where" in facts:
        facts["where"], facts["hand"] = where, 2
    if kind == "no-next-game":
        facts = {"kind": "cannot-connect", "facts": _facts("cannot-connect")}
    return facts


def test_every_kind_of_ending_is_in_the_catalogs_once() -> None:
    """The cli renders the net layer's own table (one copy of each text), and the
    extraction finds every template there: each is a msgid of the catalogs' template."""
    assert cli.KINDS is net.KINDS and cli.WHERE is net.WHERE
    pot = (Path(__file__).parents[2] / "truc_p2p/locale/truc_p2p.pot").read_text("utf-8")
    msgids = {polib_unquote(m) for m in re.findall(r'^msgid(?:_plural)? ((?:".*"\n?)+)', pot, re.M)}
    for template in [*net.KINDS.values(), *net.WHERE.values()]:
        for text in template if isinstance(template, tuple) else (template,):
            assert text in msgids, text


def polib_unquote(block: str) -> str:
    """A .pot string (one or more quoted lines) as the text it stands for."""
    return "".join(
        line[1:-1].replace('\\"', '"').replace("\\\\", "\\") for line in block.strip().splitlines()
    )


@pytest.mark.parametrize("kind", sorted(net.KINDS))
def test_each_kind_in_english_is_the_message(kind: str) -> None:
    for where in net.WHERE:
        facts = _facts(kind, where)
        assert cli.render_outcome(kind, facts) == net.english_text(kind, facts)
    facts = {**_facts(kind), "detail": "the peer's words", "peer": None}
    assert cli.render_outcome(kind, facts) == net.english_text(kind, facts)


@pytest.mark.parametrize("code", ["fr", "uk", "gd"])
@pytest.mark.parametrize("kind", sorted(net.KINDS))
def test_each_kind_is_translated(kind: str, code: str) -> None:
    facts = _facts(kind)
    english = cli.render_outcome(kind, facts)
    with speaking(code):
        text = cli.render_outcome(kind, facts)
    assert text != english
    for value in ("error", "address", "code", "30", "2.5"):
        if value in english:
            assert value in text  # the quoted facts are kept


def _french(outcome: GameOutcome) -> str:
    assert outcome.kind in net.KINDS
    assert cli.outcome_text(outcome) == outcome.message
    with speaking("fr"):
        text = cli.outcome_text(outcome)
    assert text != outcome.message
    with speaking("es"):
        assert cli.outcome_text(outcome) not in (text, outcome.message)
    return text


class _StopOnFirstTurn:
    def __init__(self, stop: trio.Event) -> None:
        self.stop = stop

    async def choose(self, game: object, legal: object) -> object:
        self.stop.set()
        await trio.sleep_forever()


async def test_a_resignation_from_either_side(autojump_clock: trio.abc.Clock) -> None:
    stop = trio.Event()
    strategies: dict[Player, Strategy] = {P0: bot(1), P1: _StopOnFirstTurn(stop)}  # type: ignore[dict-item]
    run = await run_game(strategies, stops={P0: stop})
    a, b = run.outcomes[P0], run.outcomes[P1]
    assert _french(a).startswith("vous avez abandonné à la main 1")
    assert _french(b).startswith("joiner a abandonné à la main 1")


async def test_the_peer_quits(autojump_clock: trio.abc.Clock) -> None:
    stop = trio.Event()
    sessions = {P0: new_session(P0), P1: new_session(P1, resign=False)}
    strategies: dict[Player, Strategy] = {P0: bot(1), P1: _StopOnFirstTurn(stop)}  # type: ignore[dict-item]
    run = await run_game(strategies, sessions=sessions, stops={P0: stop})
    assert run.outcomes[P0].end is End.QUIT and run.outcomes[P1].kind == "peer-quit"
    assert "l’adversaire" in _french(run.outcomes[P0])
    assert "pendant la main 1" in _french(run.outcomes[P1])


async def test_a_timeout(autojump_clock: trio.abc.Clock) -> None:
    run = await run_game({P0: bot(1), P1: Silent()}, turn_timeout=5.0)
    timed_out = [o for o in run.outcomes.values() if o.end is End.OPPONENT_TIMEOUT]
    assert timed_out and "5 s" in _french(timed_out[0])
    for outcome in run.outcomes.values():
        _french(outcome)


async def test_stopped_before_anyone_joined() -> None:
    stop = trio.Event()
    async with hosting(strategy=bot(1), identity=SigningKey.generate(), stop=stop) as (
        _invite,
        result,
    ):
        stop.set()
    assert result["host"].kind == "nobody-joined"
    assert _french(result["host"]) == "arrêté avant que quelqu’un ne rejoigne"


async def test_cannot_connect() -> None:
    listener = (await trio.open_tcp_listeners(0, host="127.0.0.1"))[0]
    port = listener.socket.getsockname()[1]
    await listener.aclose()
    invite = Invite.parse(f"truc://127.0.0.1:{port}/?fp={'0' * 64}")
    outcome = await join_game(invite, bot(1), identity=SigningKey.generate())
    assert outcome.kind == "cannot-connect"
    assert _french(outcome).startswith(f"impossible de se connecter à 127.0.0.1:{port}")


def test_nothing_to_resume() -> None:
    outcome = GameOutcome.told(End.LOCAL_ERROR, "nothing-to-resume-ended", {}, me=P0)
    assert _french(outcome) == "rien à reprendre\u00a0: la partie est déjà terminée"


#: Kinds whose ending has no more to say than "the game stopped before its end".
PLAIN_STOPS = {"no-result", "stopped-resuming"}
#: Kinds told with a result or a resignation (their headline comes from it, tested below
#: and in tests/ui/test_ui_web_cli.py).
RESULTS = {"won", "lost", "resigned", "opponent-resigned"}


@pytest.mark.parametrize("kind", sorted(set(net.KINDS) - RESULTS))
def test_each_kind_of_ending_has_its_own_headline(kind: str) -> None:
    """The end screen's and the terminal's headline names why the game ended; a new
    kind of ending without a headline falls to the plain one and fails here."""
    from truc_p2p.ui._outcome_text import HEADLINES, headline, headline_key

    outcome = GameOutcome.told(
        End.FINISHED, kind, _facts(kind), me=P0, names=("alice", "bob"), hands=4
    )
    key, hand = headline_key(outcome)
    assert key in HEADLINES and hand == 4
    assert (key == "unfinished") == (kind in PLAIN_STOPS), key
    text = headline(outcome)
    assert "{" not in text and ("bob" in text or "{name}" not in HEADLINES[key])
    with speaking("fr"):
        assert headline(outcome) != text


def test_a_finished_game_says_how_it_was_won_from_the_viewers_side() -> None:
    from truc_p2p.protocol import GameResult
    from truc_p2p.ui._outcome_text import headline, score_label

    for reason, mine, theirs in [
        ("target", "You won: you reached the target score first", "bob won: first to reach"),
        ("rest-won", "You won: the game was staked on hand 3", "bob won: the game was staked"),
        ("rest-refused", "You won: bob turned down your “my rest” in hand 3", "bob won: you"),
        # issue 43: not "you turned down the “my rest” of bob"
        ("rest-refused", "You won", "bob won: you turned down “my rest” in hand 3"),
    ]:
        for winner, expected in ((P0, mine), (P1, theirs)):
            result = GameResult(
                game_id=b"g" * 32,
                winner=winner,
                scores=(0, 0),
                reason=reason,
                hands=3,
                envelopes=(b"", b""),
            )
            outcome = GameOutcome(
                end=End.FINISHED, message="", me=P0, names=("alice", "bob"), result=result
            )
            assert headline(outcome).startswith(expected), headline(outcome)
            # a game staked on one hand may end 0-0: the points say they came before it;
            # a refused "my rest" staked nothing (issue 43): its points are the game's
            label = score_label(outcome, "you 0 – bob 0")
            staked = "points before the staked hand: you 0 – bob 0"
            assert label == ("points: you 0 – bob 0" if reason != "rest-won" else staked)
