"""Fuzzing ``Session.receive_data``: only the remote-error family may ever escape.

At several stages of a game a session is rebuilt from its transcript and fed
random bytes, random frames and mutations of the envelope the peer really sent
next (bit flips, truncations, splices, and mutated payloads signed again with
the peer's key so that they pass the signature and reach the deeper checks),
whole and one byte at a time (after h11's ``fuzz/afl-server.py``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import pytest
from helpers.protocol import (
    P0,
    P1,
    PLAYER,
    REDEALER,
    N,
    Pair,
    body_fields,
    is_type,
    pack_body,
    sign_body,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from truc_p2p.crypto import SigningKey
from truc_p2p.deck import card_encodings
from truc_p2p.protocol import (
    CATALOGUE,
    CLOSED,
    NEED_DATA,
    AuditRefusedError,
    RemoteProtocolError,
    Session,
    SessionOptions,
    Stage,
    YourTurn,
    decode_envelope,
    frame,
)
from truc_p2p.rules import Player, Ruleset

FUZZ = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

#: stage name -> the envelope the victim is waiting for, and the deck version
STAGES = {
    "start-responder": ("hello", P0, "v1"),
    "start-initiator": ("hello", P1, "v1"),
    "coin": ("coin", P0, "v1"),
    "mid-deal": ("deck3", None, "v1"),
    "deck4": ("deck4", None, "v1"),
    "mid-play": ("action", None, "v1"),
    "reveal": ("reveal", None, "v1"),
    "result": ("result", None, "v1"),
    "v2-start-responder": ("hello", P0, "v2"),
    "v2-coin": ("coin", P0, "v2"),
    "v2-d1": ("v2deck1", None, "v2"),
    "v2-d2": ("v2deck2", None, "v2"),
    "v2-d3": ("v2deck3", None, "v2"),
    "v2-play": ("v2action", None, "v2"),
    "v2-result": ("result", None, "v2"),
    # pipelined deal ("v2p"): the next hand's pre-deal messages, during the current hand
    "v2p-d1": ("v2deck1", None, "v2p"),
    "v2p-predeal1": ("v2deck1/1", None, "v2p"),
    "v2p-predeal2": ("v2deck2/1", None, "v2p"),
    "v2p-play": ("v2action", None, "v2p"),
    # early redeal cards ("v2r": every hand redealt): the dealer waits for the v2redeal
    "v2r-redeal": ("v2redeal", None, "v2r"),
}
RULESET = Ruleset(target=1)


@dataclass(frozen=True)
class Point:
    """A victim's state at one stage, and what its peer sent next."""

    records: tuple[bytes, ...]
    victim: Player
    identity: SigningKey
    secret: bytes
    name: str
    peer_key: SigningKey
    next: bytes
    peer_envelopes: tuple[bytes, ...]
    deck: str
    #: what the victim's session was made with (its hello may not be recorded yet)
    options: SessionOptions

    def session(self) -> Session:
        return Session.restore(
            self.records,
            identity=self.identity,
            role=self.victim,
            secret=self.secret,
            options=self.options,
        )


@functools.cache
def point(stage: str) -> Point:
    mtype, sender, deck = STAGES[stage]
    pair = Pair(
        ruleset=RULESET,
        tag="fuzz",
        first_dealer=P0,
        bots={P0: REDEALER, P1: REDEALER} if deck == "v2r" else {P0: PLAYER, P1: PLAYER},
        deck=deck[:2],
        pipeline=deck == "v2p",
    )
    if "/" in mtype:  # a deal message of a later hand: a pre-deal

        def stop(who: Player, raw: bytes) -> bool:
            env = decode_envelope(raw)
            return f"{env.type}/{env.payload.get('hand')}" == mtype

        peer, raw = pair.run(until=stop)
    else:
        peer, raw = pair.run(until=is_type(mtype, sender))
    victim = peer.other
    assert pair.secrets is not None
    return Point(
        records=tuple(pair.records[victim]),
        victim=victim,
        identity=pair.keys[victim],
        secret=pair.secrets[victim],
        name=pair.names[victim],
        options=pair.sessions[victim].options,
        peer_key=pair.keys[peer],
        next=raw,
        peer_envelopes=tuple(r for r in pair.records[victim] if decode_envelope(r).sender == peer),
        deck=deck,
    )


def feed(session: Session, data: bytes, *, bytewise: bool) -> type[RemoteProtocolError] | None:
    """Feed ``data`` and pull events until more data is needed; return the remote error
    class raised, if any.  Anything else escaping fails the test."""
    chunks = [data[i : i + 1] for i in range(len(data))] if bytewise else [data]
    try:
        for chunk in chunks:
            session.receive_data(chunk)
            while session.next_event() not in (NEED_DATA, CLOSED):
                pass
    except RemoteProtocolError as exc:
        assert session.stage is Stage.ERROR and session.error is exc
        assert all(isinstance(e, bytes) for e in exc.evidence)
        # Dead for good: more bytes change nothing, the same error comes back.
        session.receive_data(b"\x00\x00\x00\x45" + bytes(69))
        with pytest.raises(RemoteProtocolError) as again:
            session.next_event()
        assert again.value is exc
        return type(exc)
    assert session.stage is not Stage.ERROR
    return None


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

SPECIAL_BYTES = [
    bytes(32),
    b"\xff" * 32,
    N.to_bytes(32, "big"),
    (N - 1).to_bytes(32, "big"),
    card_encodings()[0],
    card_encodings()[31],
]
NAMES = sorted(
    {"play", "raise", "rest", "accept", "refuse", "fold", "redeal", "accept-redeal"}
    | {"decline-redeal", "quit", "timeout", "cheat", "target", "rest", "fold", "literal"}
)
MSGPACK = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.floats(allow_nan=False)
    | st.text(max_size=20)
    | st.binary(max_size=40),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


def same_shape(value: Any) -> st.SearchStrategy[Any]:
    """A value shaped like ``value`` (so it often passes the catalogue), or anything."""
    if isinstance(value, bool):
        shaped: st.SearchStrategy[Any] = st.booleans()
    elif isinstance(value, int):
        shaped = st.integers(-2, 40) | st.just(value + 1)
    elif isinstance(value, bytes):
        shaped = st.binary(min_size=len(value), max_size=len(value))
        if len(value) == 32:
            shaped = shaped | st.sampled_from(SPECIAL_BYTES)
    elif isinstance(value, str):
        shaped = st.sampled_from([*NAMES, value])
    elif isinstance(value, list) and value:
        shaped = st.integers(0, len(value) - 1).flatmap(
            lambda i: same_shape(value[i]).map(lambda v: [*value[:i], v, *value[i + 1 :]])
        )
        shaped = shaped | st.sampled_from([value[:-1], [*value, value[0]], value[::-1]])
    elif isinstance(value, dict) and value:
        shaped = st.sampled_from(sorted(value)).flatmap(
            lambda k: same_shape(value[k]).map(lambda v: {**value, k: v})
        ) | st.sampled_from(sorted(value)).map(
            lambda k: {key: v for key, v in value.items() if key != k}
        )
    else:
        return MSGPACK
    return shaped | MSGPACK if isinstance(value, dict | list) else shaped


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


@pytest.mark.parametrize("stage", list(STAGES))
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
