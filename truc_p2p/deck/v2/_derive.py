"""Deck v2 hashing: hand transcript digests, Fiat-Shamir challenges, derived secrets.

Every value a side draws is a deterministic function of its 32-byte seed, the
hand (game id, hand number, caller context), its role and the *statement* the
value serves (RFC 6979 style), so a restarted side recomputes byte-identical
messages and a nonce is never reused for two different statements::

    T0      = SHA-256("truc-p2p/v2/deck/hand" || game_id || BE32(hand) || context)
    K       = HMAC-SHA256(seed, "truc-p2p/v2/deck/secret" || T0 || role)
    scalar(label, data, i) = int(HMAC-SHA512(K, label || 0x00 || data || BE32(i))) mod (n-1) + 1

Challenges are ``int(SHA-256("truc-p2p/v2/deck/" || label || 0x00 || parts)) mod n``;
all parts have fixed lengths, so plain concatenation is unambiguous.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from collections.abc import Iterator

from truc_p2p.deck.v2._ec import ORDER

__all__ = [
    "CONTEXT_SIZE",
    "GAME_ID_SIZE",
    "challenge",
    "derived_permutation",
    "derived_scalar",
    "digest",
    "hand_digest",
    "side_key",
]

GAME_ID_SIZE = 32
CONTEXT_SIZE = 32
_PREFIX = b"truc-p2p/v2/deck/"


def digest(label: bytes, *parts: bytes) -> bytes:
    """SHA-256("truc-p2p/v2/deck/" || label || 0x00 || parts...)."""
    h = hashlib.sha256(_PREFIX + label + b"\x00")
    for part in parts:
        h.update(part)
    return h.digest()


def challenge(label: bytes, *parts: bytes) -> int:
    """A Fiat-Shamir challenge: :func:`digest` read big-endian, reduced mod n."""
    return int.from_bytes(digest(label, *parts), "big") % ORDER


def hand_digest(game_id: bytes, hand: int, context: bytes) -> bytes:
    """T0, the hand's identity that every proof of the hand is bound to."""
    return hashlib.sha256(
        b"truc-p2p/v2/deck/hand" + game_id + hand.to_bytes(4, "big") + context
    ).digest()


def side_key(seed: bytes, t0: bytes, role_byte: bytes) -> bytes:
    """K, the side's derivation key for this hand."""
    return hmac.new(seed, b"truc-p2p/v2/deck/secret" + t0 + role_byte, hashlib.sha256).digest()


def derived_scalar(key: bytes, label: bytes, data: bytes, index: int) -> int:
    """A scalar in [1, n-1] (statistical distance from uniform below 2**-250)."""
    raw = hmac.new(key, label + b"\x00" + data + index.to_bytes(4, "big"), hashlib.sha512).digest()
    return int.from_bytes(raw, "big") % (ORDER - 1) + 1


def _words(key: bytes, data: bytes) -> Iterator[int]:
    block = 0
    while True:
        raw = hmac.new(key, b"perm\x00" + data + block.to_bytes(4, "big"), hashlib.sha256).digest()
        yield from struct.unpack(">8I", raw)
        block += 1


def derived_permutation(key: bytes, data: bytes, size: int) -> tuple[int, ...]:
    """Fisher-Yates over ``range(size)`` driven by 4-byte words of
    HMAC-SHA256(K, "perm" || 0x00 || data || BE32(block)), rejection-sampled: exactly uniform."""
    words = _words(key, data)
    perm = list(range(size))
    for i in range(size - 1, 0, -1):
        m = i + 1
        limit = 2**32 - 2**32 % m
        v = next(words)
        while v >= limit:
            v = next(words)
        j = v % m
        perm[i], perm[j] = perm[j], perm[i]
    return tuple(perm)
