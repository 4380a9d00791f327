"""The one event fold (``TableModel.feed``, ``truc_p2p/ui/_fold.py``): every event type has
its handler, and the terminal and the web table tell an event in the same words."""

from __future__ import annotations

import dataclasses
import io
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers.history import P0, P1, key, story_game

import truc_p2p.net._net_events as net_events
import truc_p2p.protocol._events as protocol_events
import truc_p2p.rules._events as rules_events
from truc_p2p.history._record import read_game
from truc_p2p.history._replay_steps import build_replay
from truc_p2p.i18n import use_language
from truc_p2p.net import NetEvent, PeerDisconnected, PeerReconnected
from truc_p2p.protocol import (
    AuditPassed,
    CardsDealt,
    GameStarted,
    PeerAborted,
    Session,
    SessionEvent,
)
from truc_p2p.rules import (
    Acted,
    Action,
    Card,
    Event,
    Player,
    RoundEnded,
    RoundEndReason,
    Ruleset,
    TrickEnded,
)
from truc_p2p.transcript import scan_transcript_file
from truc_p2p.ui._fold import handlers
from truc_p2p.ui._outcome_text import render_outcome
from truc_p2p.ui._table import TableModel
from truc_p2p.ui._tui import ScriptedLines, TerminalPlayer
from truc_p2p.ui._web._feed import TableFeed

ME, OPP = Player.P1, Player.P0

#: Where each family of events is declared: the session's, the rules engine's (the
#: session passes them on) and the transport's.
FAMILIES: tuple[tuple[type, Any | None], ...] = (
    (SessionEvent, protocol_events),
    (Event, rules_events),
    (NetEvent, net_events),
)


def _kinds(base: type) -> set[type]:
    """Every subclass of ``base``, however deep (``PeerResigned`` is a ``PeerAborted``),
    as its module names it (``dataclass(slots=True)`` leaves the class it replaced)."""
    found: set[type] = set()
    todo = [base]
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub not in found:
                found.add(sub)
                todo.append(sub)
    return {getattr(sys.modules.get(k.__module__), k.__qualname__, k) for k in found}


def missing(handlers: dict[type, Any], families: tuple[tuple[type, Any | None], ...]) -> set[type]:
    """The event types of ``families`` (declared in their module, or anywhere as a
    subclass) that have no handler of their own in ``handlers``."""
    kinds: set[type] = set()
    for base, module in families:
        declared = {
            value
            for value in (vars(module).values() if module is not None else ())
            if isinstance(value, type) and issubclass(value, base) and value is not base
        }
        kinds |= declared | _kinds(base)
    return {kind for kind in kinds if kind not in handlers}


def test_every_event_type_the_session_can_emit_has_a_handler() -> None:
    table = handlers()
    assert not missing(table, FAMILIES), "events without a handler in ui/_fold.HANDLERS"
    # the families are really walked: the session's deal, the rules' acts, the link's return
    assert {CardsDealt, Acted, PeerReconnected} <= set(table)


def test_a_new_event_kind_without_a_handler_fails_the_check() -> None:
    class Base:
        pass

    class Old(Base):
        pass

    class New(Old):  # a subclass counts on its own: its own handler or none
        pass

    assert missing({Old: None}, ((Base, None),)) == {New}
    assert missing({Old: None, New: None}, ((Base, None),)) == set()


def test_an_unknown_event_changes_nothing() -> None:
    model = TableModel("alice")
    assert model.feed(object()) == () and model.log == []


def _cards(*texts: str) -> tuple[Card, ...]:
    return tuple(Card.from_str(t) for t in texts)


def _sample() -> list[object]:
    """A hand with a raise, a trick, an audit, a lost and restored link and an abort."""
    return [
        GameStarted(
            game_id=bytes(32),
            me=ME,
            peer_name="bob",
            peer_fingerprint="ab" * 32,
            ruleset=Ruleset(),
            audit="game",
            first_dealer=ME,
            deck="v1",
        ),
        CardsDealt(round_no=0, dealer=ME, cards=_cards("7S", "9H", "AD"), redeal=False),
        Acted(player=OPP, action=Action.RAISE),
        Acted(player=ME, action=Action.ACCEPT),
        Acted(player=OPP, action=Action.play(Card.from_str("KC"))),
        Acted(player=ME, action=Action.play(Card.from_str("7S"))),
        TrickEnded(trick_no=0, leader=OPP, cards=_cards("KC", "7S"), winner=ME),
        Acted(player=ME, action=Action.play(Card.from_str("9H"))),
        Acted(player=OPP, action=Action.FOLD),
        RoundEnded(round_no=0, winner=ME, points=2, reason=RoundEndReason.FOLDED, scores=(0, 2)),
        AuditPassed(hands=(0,)),
        CardsDealt(round_no=1, dealer=OPP, cards=_cards("QS", "8H", "JD"), redeal=False),
        PeerDisconnected(reason="the peer closed the connection", seconds_left=60.0, grace=60.0),
        PeerDisconnected(reason="the peer closed the connection", seconds_left=30.0, grace=60.0),
        PeerReconnected(after=31.5, resent=2, received_again=0),
        PeerAborted(reason="timeout", detail="no move", envelope=b""),
    ]


class _Page:
    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []

    def publish(self, message: dict[str, Any]) -> None:
        json.dumps(message)
        self.messages.append(message)


#: The terminal's margins before a line (a move of the opponent's, a deal, trouble...).
MARGIN = re.compile(r"^(   |>> |-- |!! |== |\.\. )")


def test_the_terminal_and_the_web_tell_each_event_in_the_same_words(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("COLUMNS", "400")  # no line wrapped
    out = io.StringIO()
    terminal = TerminalPlayer(ScriptedLines([]), "alice", out=out)
    web, page = TableFeed("alice"), _Page()
    web.publisher = page
    for event in _sample():
        terminal(event)  # type: ignore[arg-type]
        web(event)
    told = [MARGIN.sub("", line) for line in out.getvalue().splitlines() if line.strip()]
    logged = [m["text"] for m in page.messages if m["type"] == "log"]
    assert len(logged) == len(_sample())  # one line each
    # the web's lines are the terminal's, in the same order (the terminal adds its
    # key hint and "… waiting for bob" between them)
    lines = iter(told)
    assert all(any(text == line for line in lines) for text in logged), (logged, told)
    for expected in (
        "playing against bob, first to 12 points; you deal first",
        "hand 1, you deal: you get 7♠  9♥  A♦",
        "bob asks “2 more?” (to 2)",
        "you win hand 1: +2 points (bob folded) → you 2 – bob 0",
        "audit passed: the seeds of hand 1 recompute its deck",
        "bob ended the game: you took too long to play: no move",
    ):
        assert expected in logged and expected in told


@pytest.mark.parametrize(
    ("lang", "line"),
    [
        ("en", "bot ended the game: you took too long to play: no message for 300 s"),
        ("ca", "bot ha acabat la partida: has trigat massa a jugar: cap missatge en 300 s"),
    ],
)
def test_the_opponent_s_abort_is_said_in_the_player_s_words(lang: str, line: str) -> None:
    """A Catalan player read "bot ha acabat la partida: timeout no message for 300 s":
    the spec's reason in words, the reference implementation's detail too; another
    implementation's own detail is quoted as it wrote it."""
    use_language(lang)
    try:
        lines = []
        for reason, detail in (("timeout", "no message for 300 s"), ("cheat", "bad-proof")):
            model = TableModel("alice")
            model.feed(dataclasses.replace(_sample()[0], peer_name="bot"))
            lines += model.feed(PeerAborted(reason=reason, detail=detail, envelope=b""))
        said, other = lines
        ended = render_outcome(
            "peer-timeout", {"where": "hand", "hand": 6, "detail": "no message for 300 s"}
        )
    finally:
        use_language("en")
    assert said.text == line
    assert other.text.endswith(": bad-proof")
    assert ended.endswith(line.rsplit(": ", 1)[1]), ended  # the game's last line too


def test_the_replay_of_the_events_rebuilds_the_same_model() -> None:
    """The model is a fold: the same events into a fresh model give the same table and
    the same lines (the web's language switch and the replay rely on it)."""
    live, again = TableModel("alice"), TableModel("alice")
    for event in _sample()[:10]:
        live.feed(event)
    for event in _sample()[:10]:
        again.feed(event)
    assert again.log == live.log and again.view() == live.view()
    assert live.hand_result is not None and live.hand_result.winner == "me"


def test_the_replay_tells_a_game_in_the_live_terminal_s_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The replay of one's own transcript feeds the same fold: each of its deal and move
    lines is a line the terminal said when the game was played."""
    monkeypatch.setenv("COLUMNS", "400")
    story = story_game({P0: tmp_path / "alice", P1: tmp_path / "bob"})
    path = story.paths[P0]
    record = read_game(path)
    secret = path.with_name(path.name + ".secret").read_bytes()
    ruleset = record.ruleset()
    assert ruleset is not None
    # the game as alice's own session told it, event by event, to her terminal
    session = Session.restore(
        scan_transcript_file(path).envelopes,
        identity=key("alice"),
        role=P0,
        secret=secret,
    )
    out = io.StringIO()
    terminal = TerminalPlayer(ScriptedLines([]), "alice", out=out)
    events = session.take_history()
    for event in events:
        terminal(event)  # type: ignore[arg-type]
    told = [MARGIN.sub("", line) for line in out.getvalue().splitlines() if line.strip()]
    own = tuple(e for e in events if isinstance(e, CardsDealt))
    replay = build_replay(record, own=own)
    said = [line for step in replay.steps if step.kind != "end" for line in step.lines]
    assert any(line.startswith("hand 1, ") for line in said)  # a deal, its cards told
    # the very lines of the live table, in order (the start is the replay's header's)...
    assert said == [line.text for line in terminal.model.log if line.kind != "start"]
    # ...which the terminal printed, but for the game's end (the command tells it)
    lines = iter(told)
    shown = [line.text for line in terminal.model.log if not line.ending]
    assert all(any(text == line for line in lines) for text in shown), (shown, told)
