"""The live session and the offline verifier judge the same bytes alike.

Both decide whether a message is acceptable with the judgements of
``protocol/_judge.py``; this checks that they cannot drift apart.  At the deck
v2 stages of ``test_protocol_fuzz`` (where both check every proof as the
message arrives) the envelope the peer really sent next is mutated and signed
again with the peer's key; the victim's session either takes it or raises a
remote error, and the verifier, given the victim's transcript with that
envelope appended, must reach the same verdict on it: no violation, or a
violation at that very message (after h11's fuzzing of ``Connection``).
"""

from __future__ import annotations

import pytest
from helpers.fuzz import FUZZ, MSGPACK, STAGES, feed, point, same_shape
from helpers.protocol import body_fields, pack_body, sign_body
from hypothesis import given
from hypothesis import strategies as st

from truc_p2p.protocol import CATALOGUE, frame, verify_transcript

#: deck v2 stages after both hellos: the verifier has the whole game's terms
JUDGED = [s for s, (mtype, _, deck) in STAGES.items() if deck != "v1" and mtype != "hello"]


def verdicts(stage: str, raw: bytes) -> tuple[str | None, str | None]:
    """(the session's error code, the verifier's) on ``raw`` as the next message."""
    p = point(stage)
    error = feed(p.session(), frame(raw), bytewise=False)
    report = verify_transcript([*p.records, raw])
    n = len(p.records)
    assert report.error_message_no is None or report.error_message_no >= n, report.headline()
    judged = report.error_code if report.error_message_no == n else None
    return (error.code if error is not None else None), judged


def same_verdict(stage: str, raw: bytes) -> None:
    session, verifier = verdicts(stage, raw)
    assert (session is None) == (verifier is None), (session, verifier)


@pytest.mark.parametrize("stage", JUDGED)
def test_both_take_the_genuine_message(stage: str) -> None:
    assert verdicts(stage, point(stage).next) == (None, None)


@pytest.mark.parametrize("stage", JUDGED)
def test_both_refuse_a_message_from_the_other_player(stage: str) -> None:
    p = point(stage)
    fields = body_fields(p.next)
    fields[4] = 1 - fields[4]  # the sender field: the victim's own seat
    session, verifier = verdicts(stage, sign_body(p.peer_key, pack_body(fields)))
    assert session is not None and verifier is not None


@pytest.mark.slow
@FUZZ
@given(stage=st.sampled_from(JUDGED), data=st.data())
def test_mutated_payloads_are_judged_alike(stage: str, data: st.DataObject) -> None:
    p = point(stage)
    fields = body_fields(p.next)
    for _ in range(data.draw(st.integers(1, 3))):
        fields[6] = data.draw(same_shape(fields[6]))
        if not isinstance(fields[6], dict):
            break
    same_verdict(stage, sign_body(p.peer_key, pack_body(fields)))


@pytest.mark.slow
@FUZZ
@given(stage=st.sampled_from(JUDGED), index=st.integers(5, 6), data=st.data())
def test_mutated_types_and_payloads_are_judged_alike(
    stage: str, index: int, data: st.DataObject
) -> None:
    p = point(stage)
    fields = body_fields(p.next)
    if index == 5:
        fields[5] = data.draw(st.sampled_from(sorted(CATALOGUE)) | st.text(max_size=10))
    else:
        fields[index] = data.draw(same_shape(fields[index]) | MSGPACK)
    same_verdict(stage, sign_body(p.peer_key, pack_body(fields)))


@FUZZ
@given(
    options=st.dictionaries(
        st.sampled_from(["audit", "deck", "pipeline", "early", "match", "prev", "dealer", "x"]),
        st.none() | st.booleans() | st.sampled_from(["game", "hand", "v1", "v2", ""]) | MSGPACK,
        max_size=5,
    )
    | MSGPACK
)
def test_hello_options_are_malformed_for_both_or_neither(options: object) -> None:
    """The initiator's hello, its options replaced: the responder's session and the
    verifier call it malformed alike (``"early": nil`` once split them)."""
    p = point("v2-start-responder")
    fields = body_fields(p.next)
    fields[6] = {**fields[6], "options": options}
    session, verifier = verdicts("v2-start-responder", sign_body(p.peer_key, pack_body(fields)))
    assert (session == "malformed") == (verifier == "malformed"), (session, verifier)


def test_an_early_nil_hello_is_malformed_for_both() -> None:
    p = point("v2-start-responder")
    fields = body_fields(p.next)
    fields[6] = {**fields[6], "options": {**fields[6]["options"], "early": None}}
    raw = sign_body(p.peer_key, pack_body(fields))
    assert verdicts("v2-start-responder", raw) == ("malformed", "malformed")
