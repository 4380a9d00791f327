"""Fuzzing ``Session.receive_data``: only the remote-error family may ever escape.

At several stages of a game a session is rebuilt from its transcript and fed
random bytes, random frames and mutations of the envelope the peer really sent
next (bit flips, truncations, splices, and mutated payloads signed again with
the peer's key so that they pass the signature and reach the deeper checks),
whole and one byte at a time (after h11's ``fuzz/afl-server.py``).
"""

from __future__ import annotations

from typing import Any

import pytest
from helpers.fuzz import (
    FUZZ,
    MSGPACK,
    STAGES,
    feed,
    point,
    same_shape,
)
from helpers.matrix import fast_first
from helpers.protocol import (
    body_fields,
    pack_body,
    sign_body,
)
from hypothesis import given
from hypothesis import strategies as st

from truc_p2p.protocol import (
    CATALOGUE,
    CLOSED,
    NEED_DATA,
    AuditRefusedError,
    Stage,
    YourTurn,
    decode_envelope,
    frame,
)


def check(stage: str, data: bytes) -> None:
    """Whole and byte by byte: only remote errors, and the same outcome both ways."""
    p = point(stage)
    whole = feed(p.session(), data, bytewise=False)
    bytewise = feed(p.session(), data, bytewise=True)
    assert whole == bytewise


@pytest.mark.parametrize("stage", list(STAGES))
def test_the_genuine_next_envelope_is_accepted(stage: str) -> None:
    """The baseline of the mutations below: unmodified, the next envelope is fine."""
    p = point(stage)
    for bytewise in (False, True):
        session = p.session()
        assert feed(session, frame(p.next), bytewise=bytewise) is None
        assert session.stage is not Stage.ERROR


STAGE = st.sampled_from(list(STAGES))


@pytest.mark.slow
@FUZZ
@given(stage=STAGE, data=st.binary(max_size=300))
def test_random_bytes(stage: str, data: bytes) -> None:
    check(stage, data)


@pytest.mark.slow
@FUZZ
@given(stage=STAGE, body=st.binary(min_size=65, max_size=400))
def test_random_frames(stage: str, body: bytes) -> None:
    """A well-formed length prefix around random content reaches the decoder."""
    check(stage, frame(body))


@pytest.mark.slow
@FUZZ
@given(stage=STAGE, flips=st.lists(st.integers(min_value=0), min_size=1, max_size=4))
def test_bit_flips(stage: str, flips: list[int]) -> None:
    data = bytearray(frame(point(stage).next))
    for bit in flips:
        bit %= len(data) * 8
        data[bit // 8] ^= 1 << (bit % 8)
    check(stage, bytes(data))


@pytest.mark.slow
@FUZZ
@given(stage=STAGE, cut=st.integers(min_value=0), reframe=st.booleans())
def test_truncations(stage: str, cut: int, reframe: bool) -> None:
    raw = point(stage).next
    short = raw[: cut % len(raw)]
    check(stage, frame(short) if reframe else frame(raw)[: cut % (len(raw) + 4)])


@pytest.mark.slow
@FUZZ
@given(stage=STAGE, data=st.data())
def test_splices(stage: str, data: st.DataObject) -> None:
    """The head of the genuine envelope glued to the tail of another one."""
    p = point(stage)
    others = [*p.peer_envelopes, *p.records] or [p.next]
    other = data.draw(st.sampled_from(others))
    i = data.draw(st.integers(0, len(p.next)))
    j = data.draw(st.integers(0, len(other)))
    spliced = p.next[:i] + other[j:]
    tail = data.draw(st.sampled_from([b"", frame(p.next), frame(other), b"\x00"]))
    check(stage, frame(spliced) + tail if len(spliced) > 0 else tail)


# -- re-signed mutations: well signed, so every deeper check is exercised -----------------------


@pytest.mark.slow
@FUZZ
@given(stage=STAGE, data=st.data())
def test_resigned_payload_mutations(stage: str, data: st.DataObject) -> None:
    p = point(stage)
    fields = body_fields(p.next)
    for _ in range(data.draw(st.integers(1, 3))):
        fields[6] = data.draw(same_shape(fields[6]))
        if not isinstance(fields[6], dict):
            break
    check(stage, frame(sign_body(p.peer_key, pack_body(fields))))


@pytest.mark.slow
@FUZZ
@given(stage=STAGE, index=st.integers(0, 6), data=st.data())
def test_resigned_field_mutations(stage: str, index: int, data: st.DataObject) -> None:
    """Any body field replaced by any value (the type among the catalogue's names too)."""
    p = point(stage)
    fields = body_fields(p.next)
    if index == 5:
        fields[5] = data.draw(st.sampled_from(sorted(CATALOGUE)) | st.text(max_size=10))
    else:
        fields[index] = data.draw(same_shape(fields[index]) | MSGPACK)
    check(stage, frame(sign_body(p.peer_key, pack_body(fields))))


#: a compressed secp256k1 point (the generator)
P33 = bytes.fromhex("0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798")


#: One stage of each phase first (the fast loop plays these), then the others (CI).
CATALOGUE_STAGES = fast_first(
    sorted(STAGES, key=lambda s: s not in ("start-responder", "mid-play", "v2-play", "v2-d3")),
    fast=4,
)


@pytest.mark.parametrize("stage", CATALOGUE_STAGES)
def test_every_catalogue_type_with_a_shaped_payload(stage: str) -> None:
    """Each message type, signed by the peer and well chained, at every stage."""
    p = point(stage)
    fields = body_fields(p.next)
    deck = [bytes([i]) * 32 for i in range(32)]
    keys = [bytes(32)] * 3
    samples: dict[str, dict[str, Any]] = {
        "hello": decode_envelope(point("start-responder").next).payload,
        "coin": {"coin": bytes(32)},
        "deck1": {"deck": deck, "commitment": bytes(32)},
        "deck2": {"deck": deck, "commitment": bytes(32)},
        "deck3": {"deck": deck, "keys": keys},
        "deck4": {"deck": deck, "keys": keys, "action": {"act": "fold"}},
        "action": {"act": "fold"},
        "v2deck1": {"key": P33, "pok": bytes(64), "deck": [P33 * 2] * 32, "proof": bytes(4320)},
        "v2deck2": {
            "key": P33,
            "pok": bytes(64),
            "deck": [P33 * 3] * 32,
            "proof": bytes(4352),
            "shares": [bytes(97)] * 3,
        },
        "v2deck3": {"shares": [bytes(97)] * 3, "action": {"act": "fold"}},
        "v2action": {"act": "fold"},
        "v2open": {"hand": 0, "shares": [bytes(97)] * 3},
        "v2redeal": {"shares": [bytes(97)] * 3},
        "reveal": {"first": 0, "seeds": [bytes(32)]},
        "result": {"winner": 0, "scores": [1, 0], "reason": "target", "hands": 1, "chain": keys[0]},
        "abort": {"reason": "quit", "detail": ""},
    }
    assert set(samples) == set(CATALOGUE)
    for mtype, payload in samples.items():
        fields[5], fields[6] = mtype, payload
        session = p.session()
        outcome = feed(session, frame(sign_body(p.peer_key, pack_body(fields))), bytewise=False)
        if mtype == "abort" and decode_envelope(p.next).type == "reveal":
            # Aborting instead of revealing the seeds refuses the audit: a cheat.
            assert outcome is AuditRefusedError and session.stage is Stage.ERROR
        elif mtype == "abort" and len(p.records) >= 2:  # an abort needs the peer's hello first
            assert outcome is None and session.stage is Stage.ABORTED
        elif mtype != decode_envelope(p.next).type:
            assert outcome is not None


def test_the_restored_victims_are_waiting() -> None:
    """The fuzzed sessions really are mid-game: not finished, waiting for the peer."""
    for stage in STAGES:
        session = point(stage).session()
        assert not session.finished
        events = []
        while (event := session.next_event()) not in (NEED_DATA, CLOSED):
            events.append(event)
        assert event is NEED_DATA
        assert not any(isinstance(e, YourTurn) for e in events)
