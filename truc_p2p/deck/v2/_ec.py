"""secp256k1, the group of deck v2, on the crypto seam (:mod:`truc_p2p.crypto`).

Points are the seam's opaque :data:`~truc_p2p.crypto.Point` values (libsecp256k1
natively, the same library compiled to WASM in the page); ``None`` stands for the point at
infinity, which neither backend hands out but which appears in sums (the
empty first layer of a fresh deck, a cheater's proof).  Every helper here
accepts ``None`` and never lets a library exception escape except
:func:`decode`, whose ``ValueError`` the caller turns into a typed error.
Scalars are Python ints reduced mod ``ORDER``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

from truc_p2p import crypto

__all__ = [
    "INFINITY_BYTES",
    "ORDER",
    "POINT_SIZE",
    "SCALAR_SIZE",
    "Point",
    "Pt",
    "add",
    "decode",
    "encode",
    "gmul",
    "hash_to_point",
    "msm",
    "mul",
    "neg",
    "parse_scalar",
    "scalar_bytes",
]

ORDER = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
"""n, the prime order of secp256k1 (cofactor 1)."""
POINT_SIZE = 33
SCALAR_SIZE = 32
INFINITY_BYTES = bytes(POINT_SIZE)
"""How the point at infinity is written inside hashes (never on the wire)."""

Pt = crypto.Point
"""A point other than infinity."""
Point = Pt | None
"""A point, ``None`` for infinity."""

# Bound once: the seam's functions, called without an attribute look-up per operation.
_encode, _mul, _gmul, _add, _neg = (
    crypto.encode,
    crypto.mul,
    crypto.gmul,
    crypto.add,
    crypto.neg,
)


decode = crypto.decode
"""The point of a 33-byte SEC1 compressed encoding; ``ValueError`` for anything else.

Only the canonical encoding is accepted (prefix 02/03, ``x < p``, on the curve), so
a point has exactly one wire form and hashes are unambiguous.  (The seam's own
function: every backend checks the bytes itself.)"""


def encode(point: Point) -> bytes:
    """33-byte compressed encoding (33 zero bytes for infinity, only inside hashes)."""
    return INFINITY_BYTES if point is None else _encode(point)


def scalar_bytes(k: int) -> bytes:
    """A scalar on the wire: 32 bytes big-endian, value in [0, n-1]."""
    return (k % ORDER).to_bytes(SCALAR_SIZE, "big")


def parse_scalar(raw: object) -> int | None:
    """The value of 32 big-endian bytes below n, else ``None``."""
    if not isinstance(raw, bytes) or len(raw) != SCALAR_SIZE:
        return None
    k = int.from_bytes(raw, "big")
    return k if k < ORDER else None


def mul(point: Point, k: int) -> Point:
    """``k * point`` (one variable-base multiplication)."""
    k %= ORDER
    if point is None or k == 0:
        return None
    return _mul(point, k)


def gmul(k: int) -> Point:
    """``k * G`` (one fixed-base multiplication)."""
    k %= ORDER
    if k == 0:
        return None
    return _gmul(k)


def add(points: Iterable[Point]) -> Point:
    """The sum of ``points`` (one library call for any number of terms)."""
    terms = [p for p in points if p is not None]
    if not terms:
        return None
    if len(terms) == 1:
        return terms[0]
    return _add(terms)  # None when the sum is the point at infinity


def neg(point: Point) -> Point:
    """``-point``: the same x with the other y (a re-parse, no multiplication)."""
    if point is None:
        return None
    return _neg(point)


def msm(pairs: Sequence[tuple[Point, int]]) -> Point:
    """``sum k_i * P_i``, one multiplication per non-trivial term."""
    return add(mul(p, k) for p, k in pairs)


def hash_to_point(tag: bytes, index: int) -> tuple[Pt, int]:
    """Try-and-increment: the first ``02 || SHA-256(tag || index || counter)`` on the curve.

    ``index`` is one byte, ``counter`` 4 bytes big-endian from 0.  Returns the
    point and the counter.  Nobody knows a discrete-log relation between such
    points (or with G).
    """
    counter = 0
    while True:
        x = hashlib.sha256(tag + bytes([index]) + counter.to_bytes(4, "big")).digest()
        try:
            return decode(b"\x02" + x), counter
        except ValueError:
            counter += 1
