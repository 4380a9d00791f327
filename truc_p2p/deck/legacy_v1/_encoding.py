"""Card encodings: 32 x-coordinates found by hashing, with no known discrete-log relations.

Card ``i`` is the first ``x = SHA-256(b"truc-p2p/v1/card" || bytes([i]) || c)``
(``c`` a 4-byte big-endian counter from 0) for which ``02 || x`` decodes as a
P-256 point.  Encodings such as ``i * G`` would let anyone read the permutation
off an encrypted deck, so they are never used.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric import ec

from truc_p2p.deck._schedule import N_CARDS
from truc_p2p.deck.legacy_v1 import _group

__all__ = ["card_encodings", "card_index", "card_points", "encoding_set"]

CARD_TAG = b"truc-p2p/v1/card"


def _encode(card: int) -> tuple[bytes, ec.EllipticCurvePublicKey]:
    counter = 0
    while True:
        x = hashlib.sha256(CARD_TAG + bytes([card]) + counter.to_bytes(4, "big")).digest()
        try:
            return x, _group.decode(x)
        except ValueError:
            counter += 1


@functools.cache
def _table() -> tuple[tuple[bytes, ...], tuple[ec.EllipticCurvePublicKey, ...]]:
    pairs = [_encode(i) for i in range(N_CARDS)]
    return tuple(x for x, _ in pairs), tuple(p for _, p in pairs)


def card_encodings() -> tuple[bytes, ...]:
    """The 32 card encodings (x-coordinates, 32 bytes each), indexed by card; cached."""
    return _table()[0]


def card_points() -> tuple[ec.EllipticCurvePublicKey, ...]:
    """The decoded points of :func:`card_encodings`, so D1 and the audit never re-decode."""
    return _table()[1]


@functools.cache
def card_index() -> Mapping[bytes, int]:
    """Encoding -> card index."""
    return MappingProxyType({x: i for i, x in enumerate(card_encodings())})


@functools.cache
def encoding_set() -> frozenset[bytes]:
    """The encodings as a set: D1 must not contain any of them."""
    return frozenset(card_encodings())
