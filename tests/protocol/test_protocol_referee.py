"""One referee: every judgement of a message has one home, which the live session and
the offline verifier both run (``protocol/_rulebook.py``).

The one-judge hypothesis test (``test_protocol_one_judge.py``) feeds both the same
hostile bytes; this file checks the rules that decide *who* is blamed, which that
test cannot see, and that no message type is judged on one side only.
"""

from __future__ import annotations

from typing import Any

import pytest
from helpers.protocol import P0, P1, PLAYER, Pair, drain

from truc_p2p.protocol import (
    AuditRefusedError,
    MessageType,
    PeerAborted,
    Stage,
    _rulebook,
    decode_envelope,
    verify_transcript,
)
from truc_p2p.protocol._control import ControlPlane
from truc_p2p.protocol._play import HandPlay
from truc_p2p.protocol._referee import Referee
from truc_p2p.protocol._rulebook import RULEBOOK, Judgement
from truc_p2p.rules import Player, Ruleset

#: The modules that hold the judgements, each written once.
JUDGEMENT_HOMES = {
    "truc_p2p.protocol._chain",
    "truc_p2p.protocol._judge",
    "truc_p2p.protocol.v2._judge",
}

ONE_HAND = Ruleset(target=1)


def _pair_at_a_due_reveal(monkeypatch: pytest.MonkeyPatch) -> tuple[Pair, Player, Player]:
    """A deck v1 game over, where the first reveal is due and not sent yet: (the pair,
    the player whose reveal is due, the other).  A session reveals as soon as its
    reveal is due, so the reveal is held back here to judge what comes meanwhile."""
    monkeypatch.setattr(HandPlay, "_maybe_reveal", lambda self: None)
    pair = Pair(ruleset=ONE_HAND, tag="referee", bots={P0: PLAYER, P1: PLAYER})
    pair.run(
        when=lambda: (
            all(s.stage is Stage.REVEAL_FIRST for s in pair.sessions.values())
            and not any(pair.inflight.values())
        )
    )
    ender = Player(decode_envelope(pair.records[P0][-1]).sender)
    return pair, ender.other, ender


@pytest.mark.parametrize("reason", ["quit", "timeout", "cheat"])
def test_an_abort_while_a_reveal_is_due_blames_one_player_for_both(
    monkeypatch: pytest.MonkeyPatch, reason: str
) -> None:
    """wire.md section 10: the player whose reveal was due refused the audit, unless
    the other aborted for another reason than ``timeout`` while waiting for that
    reveal: then the aborter broke the audit off itself.  The session whose reveal
    is due names the aborter exactly when the verifier does."""
    pair, due, waiter = _pair_at_a_due_reveal(monkeypatch)
    pair.sessions[due].receive_data(pair.sessions[waiter].abort(reason, "waited"))
    try:
        verdict: object = [type(e) for e in drain(pair.sessions[due])]
    except AuditRefusedError as exc:
        assert exc.message_no == len(pair.records[due]) - 1
        verdict = AuditRefusedError
    report = verify_transcript(pair.records[due], local_secret=pair.secrets[due])
    assert report.error_code == "audit-refused", report.summary()
    if reason == "timeout":  # the waiter says the due player was silent
        assert f"player {int(due)} did not reveal" in (report.error or "")
        assert verdict == [PeerAborted]
    else:
        assert f"player {int(waiter)} aborted while waiting" in (report.error or "")
        assert verdict is AuditRefusedError


def _handlers(cls: type) -> set[str]:
    return {name.removeprefix("on_") for name in dir(cls) if name.startswith("on_")}


def test_every_message_type_has_exactly_one_judgement() -> None:
    """The rulebook names every message type of the wire, and each judge has a handler
    for exactly the types it judges: the session and the referee for the chained
    ones, the session's control plane for the others.  A new message kind handled on
    one side only fails here."""
    wire = {v for k, v in vars(MessageType).items() if not k.startswith("_")}
    assert set(RULEBOOK) == wire
    chained = {RULEBOOK[m].handler for m in wire if RULEBOOK[m].chained}
    control = {RULEBOOK[m].handler for m in wire if not RULEBOOK[m].chained}
    assert _handlers(Referee) == chained
    assert _handlers(HandPlay) == chained
    assert _handlers(ControlPlane) == control
    for mtype, rule in RULEBOOK.items():
        for home in rule.homes:  # each check is written once, in a judgement module
            assert home.__module__ in JUDGEMENT_HOMES, (mtype, home)


@pytest.mark.parametrize("deck", ["v1", "v2"])
def test_the_session_and_the_verifier_dispatch_through_the_rulebook(
    monkeypatch: pytest.MonkeyPatch, deck: str
) -> None:
    """Both judges find a message's handler in the rulebook: pointing a type at another
    handler reroutes the live session (both its own messages and the peer's) and the
    verifier alike."""
    seen: list[tuple[str, str]] = []

    def spy(self: Any, env: Any, *args: Any) -> None:
        seen.append((type(self).__name__, env.type))
        self.on_coin(env, *args)

    monkeypatch.setitem(_rulebook._TABLE, MessageType.COIN, Judgement("spy", ()))
    monkeypatch.setattr(Referee, "on_spy", spy, raising=False)
    monkeypatch.setattr(HandPlay, "on_spy", spy, raising=False)
    pair = Pair(ruleset=ONE_HAND, tag="referee", deck=deck, bots={P0: PLAYER, P1: PLAYER})
    pair.finish()
    assert seen == [("HandPlay", "coin"), ("HandPlay", "coin")]  # the sender's and the receiver's
    assert verify_transcript(pair.records[P0]).valid
    assert seen[2:] == [("Referee", "coin")]
    assert RULEBOOK[MessageType.COIN].handler == "spy"
