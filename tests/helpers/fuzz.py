"""The fuzzer's victims: a session stopped at each stage of a game, waiting for one
envelope, and hypothesis strategies for msgpack values and payloads shaped like real
ones (test_protocol_fuzz and test_protocol_one_judge)."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from helpers.examples import examples
from helpers.protocol import (
    P0,
    P1,
    PLAYER,
    REDEALER,
    N,
    Pair,
    is_type,
)
from truc_p2p.crypto import SigningKey
from truc_p2p.deck import card_encodings
from truc_p2p.protocol import (
    CLOSED,
    NEED_DATA,
    RemoteProtocolError,
    Session,
    SessionOptions,
    Stage,
    decode_envelope,
)
from truc_p2p.rules import Player, Ruleset

FUZZ = settings(
    max_examples=examples(60),
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
