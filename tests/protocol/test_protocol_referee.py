"""One referee: every judgement of a message has one home, which the live session and
the offline verifier both run (``protocol/_referee_rules.py``).

The one-judge hypothesis test (``test_protocol_one_judge.py``) feeds both the same
hostile bytes; this file checks the rules that decide *who* is blamed, which that
test cannot see, and that no message type is judged on one side only.
"""

from __future__ import annotations

import pytest
from helpers.protocol import P0, P1, PLAYER, Pair, drain

from truc_p2p.protocol import (
    AuditRefusedError,
    PeerAborted,
    Session,
    Stage,
    decode_envelope,
    verify_transcript,
)
from truc_p2p.rules import Player, Ruleset

ONE_HAND = Ruleset(target=1)


def _pair_at_a_due_reveal(monkeypatch: pytest.MonkeyPatch) -> tuple[Pair, Player, Player]:
    """A deck v1 game over, where the first reveal is due and not sent yet: (the pair,
    the player whose reveal is due, the other).  A session reveals as soon as its
    reveal is due, so the reveal is held back here to judge what comes meanwhile."""
    monkeypatch.setattr(Session, "_maybe_reveal", lambda self: None)
    pair = Pair(ruleset=ONE_HAND, tag="referee", bots={P0: PLAYER, P1: PLAYER})
    pair.run(
        when=lambda: all(s.stage is Stage.REVEAL_FIRST for s in pair.sessions.values())
        and not any(pair.inflight.values())
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
