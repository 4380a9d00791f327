"""Deck v2 fixed points: the 32 card points and the 33 commitment generators.

Card ``c`` is ``hash_to_point(b"truc-p2p/v2/card", c)``; the shuffle proof's
Pedersen generators are ``h_i = hash_to_point(b"truc-p2p/v2/gen", i)`` for
``i = 0..31`` and ``h = hash_to_point(b"truc-p2p/v2/gen", 32)`` (the base of
the product chain).  Hashing to the curve means nobody knows a discrete-log
relation between any two of them or with G, which the shuffle argument's
binding and the cards' unlinkability need.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from types import MappingProxyType

from truc_p2p.deck._schedule import N_CARDS
from truc_p2p.deck.v2._ec import Pt, add, encode, hash_to_point, neg

__all__ = [
    "CARD_TAG",
    "GEN_TAG",
    "card_counters",
    "card_lookup",
    "card_points",
    "generators",
    "minus_generator_sum",
]

CARD_TAG = b"truc-p2p/v2/card"
GEN_TAG = b"truc-p2p/v2/gen"


@functools.cache
def _cards() -> tuple[tuple[Pt, ...], tuple[int, ...]]:
    pairs = [hash_to_point(CARD_TAG, c) for c in range(N_CARDS)]
    return tuple(p for p, _ in pairs), tuple(k for _, k in pairs)


def card_points() -> tuple[Pt, ...]:
    """The 32 card points M_0..M_31."""
    return _cards()[0]


def card_counters() -> tuple[int, ...]:
    """The try-and-increment counter of each card point (for the test vectors)."""
    return _cards()[1]


@functools.cache
def card_lookup() -> Mapping[bytes, int]:
    """Compressed encoding of a card point -> card index."""
    return MappingProxyType({encode(p): c for c, p in enumerate(card_points())})


@functools.cache
def generators() -> tuple[tuple[Pt, ...], Pt]:
    """``(h_0..h_31, h)``: the shuffle proof's commitment generators."""
    hs = tuple(hash_to_point(GEN_TAG, i)[0] for i in range(N_CARDS))
    return hs, hash_to_point(GEN_TAG, N_CARDS)[0]


@functools.cache
def minus_generator_sum() -> Pt:
    """``-(h_0 + ... + h_31)``: the shuffle verifier subtracts it from every proof's commitments."""
    total = add(generators()[0])
    assert total is not None
    result = neg(total)
    assert result is not None
    return result
