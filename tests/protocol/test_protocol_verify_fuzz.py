"""The offline verifier never raises on a crafted transcript.

A transcript file is untrusted input.  A forger holding a player's key can
sign anything and keep the chain intact, so these cases mutate one payload
value, then re-sign and re-chain every envelope from there on with the real
keys: the mutation passes the signature and chain checks and reaches the
replay, the audit and the result checks.  ``verify_transcript`` must return a
report, never raise, and must not accept a changed game.
"""

from __future__ import annotations

import functools
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from truc_p2p.bots import make_bot
from truc_p2p.crypto import SigningKey
from truc_p2p.memory_pair import make_pair, run_pair
from truc_p2p.protocol import SessionOptions, decode_envelope, verify_transcript
from truc_p2p.protocol._session import game_id_of
from truc_p2p.protocol._wire import GENESIS, envelope_hash, sign_envelope
from truc_p2p.rules import Player, Ruleset

KEYS = (
    SigningKey.from_bytes(bytes(range(32))),
    SigningKey.from_bytes(bytes(range(1, 33))),
)


@functools.cache
def _game(deck: str = "v1") -> tuple[bytes, ...]:
    record: list[bytes] = []
    sessions = make_pair(
        SessionOptions(ruleset=Ruleset(target=3), deck=deck),
        identities=KEYS,
        secrets=(bytes([7]) * 32, bytes([9]) * 32),
        records=(record.append, None),
    )
    run_pair(sessions, {p: make_bot("heuristic", int(p)) for p in Player})
    return tuple(record)


def _rechain(envelopes: list[bytes], start: int, payload: dict[str, Any]) -> list[bytes]:
    """Replace message ``start``'s payload, then re-sign and re-chain from there on."""
    out = list(envelopes[:start])
    prev = envelope_hash(out[-1]) if out else GENESIS
    game_id = b""
    for i, raw in enumerate(envelopes[start:], start):
        env = decode_envelope(raw)
        if i >= 2 and not game_id:
            game_id = game_id_of(out[0], out[1])
        signed = sign_envelope(
            KEYS[env.sender],
            game_id=game_id if i >= 2 else b"",
            seq=i,
            prev=prev,
            sender=env.sender,
            type=env.type,
            payload=payload if i == start else env.payload,
        )
        out.append(signed)
        prev = envelope_hash(signed)
    return out


VALUES = st.one_of(
    st.integers(min_value=-(2**63), max_value=2**64 - 1),
    st.binary(max_size=40),
    st.text(max_size=12),
    st.booleans(),
    st.none(),
    st.lists(st.binary(min_size=32, max_size=32), max_size=33),
    st.lists(st.integers(min_value=0, max_value=40), max_size=3),
    st.sampled_from(["play", "raise", "rest", "accept", "fold", "redeal", "target"]),
)


@pytest.mark.slow  # seconds of CPU: CI only (docs/developing.md)
@settings(
    max_examples=120,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(data=st.data())
def test_resigned_mutations_never_crash_the_verifier(data: st.DataObject) -> None:
    envelopes = list(_game(data.draw(st.sampled_from(["v1", "v2"]))))
    index = data.draw(st.integers(min_value=0, max_value=len(envelopes) - 1))
    payload = dict(decode_envelope(envelopes[index]).payload)
    key = data.draw(st.sampled_from(sorted(payload)))
    original = payload[key]
    if isinstance(original, bytes) and original and data.draw(st.booleans()):
        # One flipped bit keeps the exact size: it reaches the deck proofs.
        at = data.draw(st.integers(0, len(original) * 8 - 1))
        flipped = bytearray(original)
        flipped[at // 8] ^= 1 << (at % 8)
        payload[key] = bytes(flipped)
    elif (
        isinstance(original, list)
        and original
        and isinstance(original[0], bytes)
        and data.draw(st.booleans())
    ):
        changed = list(original)
        i = data.draw(st.integers(0, len(changed) - 1))
        at = data.draw(st.integers(0, len(changed[i]) * 8 - 1))
        item = bytearray(changed[i])
        item[at // 8] ^= 1 << (at % 8)
        changed[i] = bytes(item)
        payload[key] = changed
    elif isinstance(original, dict) and original:
        inner = dict(original)
        inner[data.draw(st.sampled_from(sorted(inner)))] = data.draw(VALUES)
        payload[key] = inner
    elif isinstance(original, list) and original and data.draw(st.booleans()):
        changed = list(original)
        changed[data.draw(st.integers(0, len(changed) - 1))] = data.draw(VALUES)
        payload[key] = changed
    else:
        payload[key] = data.draw(VALUES)
    forged = _rechain(envelopes, index, payload)
    report = verify_transcript(forged)  # must not raise
    assert isinstance(report.to_json(), dict)
    if payload != decode_envelope(envelopes[index]).payload:
        assert not report.valid, (index, key, report.summary())


@pytest.mark.parametrize("deck", ["v1", "v2"])
def test_the_untouched_game_verifies_after_rechaining(deck: str) -> None:
    envelopes = list(_game(deck))
    same = _rechain(envelopes, 0, dict(decode_envelope(envelopes[0]).payload))
    assert same == envelopes
    assert verify_transcript(same).valid
