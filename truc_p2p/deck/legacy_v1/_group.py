"""P-256 on x-coordinates: the commutative cipher ``E_k(x) = x(k * lift(x))``.

``lift(x)`` is the point whose SEC1 compressed encoding is ``02 || x``.  Since
``x(k * P) == x(k * -P)``, the choice of ``y`` does not matter and
``E_k(E_j(x)) == E_{kj}(x)``: encryption commutes, and ``E_{k^-1 mod n}`` undoes
``E_k``.  Every operation goes through ``cryptography`` (OpenSSL): decoding a
point is ``from_encoded_point`` (which rejects x-coordinates that are not on the
curve), a multiplication is an ECDH ``exchange`` with a key derived from the
scalar.  The step code looks these helpers up on this module at call time so a
test can count them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric import ec

    CURVE: ec.EllipticCurve
    ECDH: ec.ECDH

__all__ = [
    "CURVE",
    "ECDH",
    "ORDER",
    "PRIME",
    "SCALAR_SIZE",
    "batch_inverse",
    "canonical_key",
    "decode",
    "derive_key",
    "mul",
    "parse_scalar",
    "scalar_bytes",
]

ORDER = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
"""n, the prime order of the P-256 group (cofactor 1)."""
PRIME = 0xFFFFFFFF00000001000000000000000000000000FFFFFFFFFFFFFFFFFFFFFFFF
"""p, the field prime."""
SCALAR_SIZE = 32
_PREFIX = b"\x02"


_LIB: list[Any] = []


def _lib() -> tuple[Any, ec.EllipticCurve, ec.ECDH]:
    """``cryptography``'s ``ec`` module, the curve and ECDH, imported on first use: deck v1
    runs natively only, and importing the session or the verifier must not need it."""
    if not _LIB:
        from cryptography.hazmat.primitives.asymmetric import ec

        _LIB.extend((ec, ec.SECP256R1(), ec.ECDH()))
    return _LIB[0], _LIB[1], _LIB[2]


def __getattr__(name: str) -> object:
    """``CURVE`` and ``ECDH``, loaded on first use."""
    if name == "CURVE":
        return _lib()[1]
    if name == "ECDH":
        return _lib()[2]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def decode(x: bytes) -> ec.EllipticCurvePublicKey:
    """The point ``02 || x``; raises ``ValueError`` if ``x`` is not on the curve."""
    lib, curve, _ecdh = _lib()
    point: ec.EllipticCurvePublicKey = lib.EllipticCurvePublicKey.from_encoded_point(
        curve, _PREFIX + x
    )
    return point


def derive_key(k: int) -> ec.EllipticCurvePrivateKey:
    """An OpenSSL key object for scalar ``k`` (1 <= k < n), reusable for many products."""
    lib, curve, _ecdh = _lib()
    key: ec.EllipticCurvePrivateKey = lib.derive_private_key(k, curve)
    return key


def mul(k: int, point: ec.EllipticCurvePublicKey) -> bytes:
    """``x(k * point)`` as 32 big-endian bytes: one scalar multiplication."""
    return derive_key(k).exchange(_lib()[2], point)


def scalar_bytes(k: int) -> bytes:
    """A scalar on the wire: 32 bytes, big-endian."""
    return k.to_bytes(SCALAR_SIZE, "big")


def parse_scalar(raw: object) -> int | None:
    """The scalar in ``raw`` if it is 32 bytes holding a value in [1, n-1], else ``None``."""
    if not isinstance(raw, bytes) or len(raw) != SCALAR_SIZE:
        return None
    k = int.from_bytes(raw, "big")
    if not 1 <= k < ORDER:
        return None
    return k


def canonical_key(raw: bytes) -> bytes:
    """One representative of ``k`` and ``n - k``, which are the same key on x-coordinates.

    A valid scalar maps to ``min(k, n - k)`` as 32 bytes; anything else is returned
    unchanged (it can never equal the representative of a valid key).
    """
    k = parse_scalar(raw)
    return raw if k is None else scalar_bytes(min(k, ORDER - k))


def batch_inverse(values: Sequence[int]) -> list[int]:
    """Inverses mod n of non-zero ``values`` with one modular inversion (Montgomery's trick)."""
    prefix = [1]
    for v in values:
        prefix.append(prefix[-1] * v % ORDER)
    inv = pow(prefix[-1], -1, ORDER)
    out = [0] * len(values)
    for i in range(len(values) - 1, -1, -1):
        out[i] = inv * prefix[i] % ORDER
        inv = inv * values[i] % ORDER
    return out
