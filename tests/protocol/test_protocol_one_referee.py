"""One referee for every message (issue 47): the live session runs one
:class:`~truc_p2p.protocol._referee_core.RefereeCore` on its own messages and on the
peer's, and the offline verifier runs one on both players' messages; nothing else
keeps or moves a stage.

The first tests read the protocol's source: a second stage machine (a module that
assigns a stage, the last hand's ender or the pre-deal count, or walks the stage
table itself) fails them, and so does a second copy of the resignation bookkeeping
(a module that keeps marks or counts the v1 deals, or computes a mark itself).  The
others play real games and check that both sessions and the verifier judge every
message of the transcript in the same stage, in order, and see the same marks.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest
from helpers.protocol import P0, P1, PLAYER, REDEALER, Pair, bot, is_action

from truc_p2p.protocol import Session, Stage, _referee_core, verify_transcript
from truc_p2p.protocol._judge import Mark
from truc_p2p.protocol._referee import Referee
from truc_p2p.protocol._referee_core import RefereeCore
from truc_p2p.protocol._verify_scan import add_local_seeds, first_pass
from truc_p2p.protocol._wire import decode_envelope
from truc_p2p.rules import Player, Ruleset

PROTOCOL = Path(__file__).resolve().parents[2] / "truc_p2p" / "protocol"
#: The one module that holds the game's position in the message table.
CORE = PROTOCOL / "_referee_core.py"
#: What only the referee may assign: the position in the message table.
POSITION = frozenset({"stage", "hand_ender", "predeal"})
#: The stage table's walkers: only the referee calls them (their homes, where they are
#: written, call each other).
WALKERS = frozenset({"next_stage", "due_stage", "check_turn", "check_not_ended", "audit_refusal"})
HOMES = {PROTOCOL / "_state.py", PROTOCOL / "_judge.py"}
#: The resignation bookkeeping only the referee keeps (wire.md section 8): the marks
#: before each chain position, the v1 deals counted for a resignation's hand, and
#: the functions that compute a mark and its hand.
BOOKS = frozenset({"marks", "_marks", "v1_deals", "_v1_deals"})
BOOKKEEPERS = frozenset({"mark_before", "resignation_hand"})


def _targets(node: ast.AST) -> list[ast.expr]:
    if isinstance(node, ast.Assign):
        targets = list(node.targets)
    elif isinstance(node, ast.AugAssign | ast.AnnAssign):
        targets = [node.target]
    else:
        return []
    flat: list[ast.expr] = []
    while targets:
        target = targets.pop()
        if isinstance(target, ast.Tuple | ast.List):
            targets.extend(target.elts)
        else:
            flat.append(target)
    return flat


def _name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return None


def _walker(call: ast.Call, modules: set[str], walkers: frozenset[str]) -> str | None:
    """The function of ``walkers`` ``call`` calls: by its name, or through a module the
    file imports (``_judge.check_turn(...)``); a method of that name on an object is not."""
    func = call.func
    if isinstance(func, ast.Name) and func.id in walkers:
        return func.id
    if (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and func.attr in walkers
        and func.value.id in modules
    ):
        return func.attr
    return None


def _stage_machines(
    path: Path, owned: frozenset[str] = POSITION, walkers: frozenset[str] = WALKERS
) -> list[str]:
    """Where ``path`` assigns what only the referee may (``owned``: the game's position)
    or calls what only the referee may (``walkers``: the stage table's walkers)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    modules = {
        (alias.asname or alias.name).split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    }
    found = []
    for node in ast.walk(tree):
        for target in _targets(node):
            if _name(target) in owned:
                found.append(f"{path.name}:{node.lineno} assigns {_name(target)}")
        if isinstance(node, ast.Call) and path not in HOMES:
            walker = _walker(node, modules, walkers)
            if walker is not None:
                found.append(f"{path.name}:{node.lineno} calls {walker}")
    return found


def test_only_the_referee_core_keeps_the_stage() -> None:
    """No module of the protocol but the referee core assigns a stage, the last hand's
    ender or the pre-deal count, or walks the stage table: a second stage machine
    (the session's or the verifier's own copy) fails here."""
    modules = sorted(PROTOCOL.rglob("*.py"))
    assert CORE in modules
    assert _stage_machines(CORE)  # the check sees the one that is there
    elsewhere = [hit for path in modules if path != CORE for hit in _stage_machines(path)]
    assert elsewhere == []


def test_only_the_referee_core_keeps_the_resignation_marks() -> None:
    """No module of the protocol but the referee core keeps the marks a resignation
    at each chain position would record, counts the v1 deals for its hand, or
    computes a mark: a second copy of that bookkeeping (the session's or the
    verifier's own) fails here."""
    modules = sorted(PROTOCOL.rglob("*.py"))
    assert _stage_machines(CORE, BOOKS, BOOKKEEPERS)  # the check sees the one that is there
    elsewhere = [
        hit for path in modules if path != CORE for hit in _stage_machines(path, BOOKS, BOOKKEEPERS)
    ]
    assert elsewhere == []


def _usable(marks: list[Mark]) -> list[Mark | None]:
    """The marks a resignation could be judged on (one not allowed records nothing)."""
    return [mark if mark.allowed else None for mark in marks]


def _where(marks: list[Mark]) -> list[int | None]:
    """Where a resignation may sit and the hand it would record (no score: a verifier
    without the seeds has none)."""
    return [mark.hands if mark.allowed else None for mark in marks]


def _trails(pair: Pair) -> dict[str, list[Stage]]:
    """The stage each judge judged every message of the game in: both sessions'
    referees and the verifier's, replaying each session's transcript (they are
    the same transcript unless a resignation crossed a message) with that player's
    secret, as ``verify`` does beside a player's own game file (a deck v1 game cut
    short revealed no seeds).  Each session's referee and the verifier's of its
    transcript note the same resignation marks before every position."""
    trails: dict[str, list[Stage]] = {}
    for p in Player:
        records = pair.records[p]
        scan = first_pass(records)
        assert add_local_seeds(scan, pair.secrets[p]) is p
        verifier = Referee(scan)
        assert verifier.run() is None
        referee = pair.sessions[p]._play.referee
        assert type(referee) is type(verifier.referee) is RefereeCore
        assert referee.stage is verifier.stage
        assert len(verifier.referee.trail) == len(records)
        assert len(referee.marks) == len(verifier.referee.marks) == len(records)
        assert _usable(referee.marks) == _usable(verifier.referee.marks)
        assert any(mark.allowed for mark in referee.marks)  # the game was under way
        trails[p.name] = referee.trail
        trails[f"verifier of {p.name}"] = verifier.referee.trail
    return trails


GAMES = {
    "v1": {"deck": "v1", "bots": {P0: PLAYER, P1: REDEALER}},
    "v1-audit-every-hand": {"deck": "v1", "audit": "hand"},
    "v2": {"deck": "v2", "bots": {P0: REDEALER, P1: bot("random", 3)}},
    "v2-pipelined": {"deck": "v2", "pipeline": True, "early": False},
    "v2-pipelined-early-thinking": {
        "deck": "v2",
        "pipeline": True,
        "early": True,
        "think": frozenset(Player),
    },
    "v2-early-redeal": {"deck": "v2", "bots": {P0: REDEALER, P1: REDEALER}},
    "v2-old-peer": {"deck": "v2", "pipeline": True, "resigns": (True, False)},
}


@pytest.mark.parametrize("name", list(GAMES))
def test_the_sessions_and_the_verifier_pass_through_the_same_stages(name: str) -> None:
    """Every message of a finished game, own or the peer's, is judged by each session's
    referee (and a restored session's) in the stage the verifier's referee judges it in."""
    pair = Pair(ruleset=Ruleset(target=3), tag=f"one-referee/{name}", **GAMES[name])
    pair.finish()
    assert pair.records[P0] == pair.records[P1]
    trails = _trails(pair)
    assert trails["P0"] == trails["P1"] == trails["verifier of P0"] == trails["verifier of P1"]
    assert trails["P0"][-1] is Stage.RESULT_SECOND
    assert pair.sessions[P0].stage is Stage.DONE
    # A session restored from its transcript replays it through the same referee.
    restored = Session.restore(
        pair.records[P1], identity=pair.keys[P1], role=P1, secret=pair.secrets[P1]
    )
    assert restored._play.referee.trail == trails["P1"]


@pytest.mark.parametrize("deck", ["v1", "v2"])
def test_a_resignation_ends_the_game_once_for_every_referee(deck: str) -> None:
    """A resignation is judged, and ends the game, by the same referee on the resigning
    side, the winning side and in the verifier."""
    pair = Pair(ruleset=Ruleset(target=3), tag=f"one-referee/resign/{deck}", deck=deck)
    pair.run(until=is_action(P1, nth=3))  # P1's third action is in flight
    pair.collect(P1, pair.sessions[P1].resign("enough"))
    pair.finish()
    trails = _trails(pair)
    assert trails["P0"] == trails["verifier of P0"] and trails["P1"] == trails["verifier of P1"]
    assert {trails["P0"][-1], trails["P1"][-1]}.isdisjoint({Stage.ABORTED, Stage.DONE})
    for p in Player:
        referee = pair.sessions[p]._play.referee
        assert referee.stage is Stage.ABORTED and referee.ending == "a resignation"
        assert verify_transcript(pair.records[p]).valid
        # Without the seeds the verifier cannot replay a deck v1 hand (it is blind from
        # hand 0): its referee still notes where a resignation may sit and its hand.
        blind = Referee(first_pass(pair.records[p]))
        assert blind.run() is None
        assert (blind.blind_hand == 0) is (deck == "v1")
        assert _where(blind.referee.marks) == _where(referee.marks)
        if deck == "v1":
            assert {mark.scores for mark in blind.referee.marks} == {None}


def test_each_session_judges_every_turn_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The turn of every message is checked once by each session, the sender's and the
    receiver's: the peer's message is judged by the referee's step only, not a second
    time before it joins the chain."""
    judged: list[bytes] = []
    check_turn = _referee_core.check_turn

    def counted(stage: Stage, env: Any, **kwargs: Any) -> Stage:
        judged.append(env.hash)
        return check_turn(stage, env, **kwargs)

    monkeypatch.setattr(_referee_core, "check_turn", counted)
    pair = Pair(ruleset=Ruleset(target=3), tag="one-referee/one-check", **GAMES["v2-pipelined"])
    pair.finish()
    chain = [decode_envelope(raw).hash for raw in pair.records[P0]]
    assert sorted(judged) == sorted(chain * len(Player))
