"""The native backend: libsecp256k1 through ``coincurve``, Ed25519 through ``cryptography``.

The only modules of the package (with deck v1, the network layer and the
command line) that import either library.  Points are ``coincurve.PublicKey``.
"""

from __future__ import annotations

from coincurve import PublicKey
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from truc_p2p.crypto._errors import BadSignatureError

__all__ = [
    "add",
    "decode",
    "ed_generate",
    "ed_public",
    "ed_public_key",
    "ed_secret",
    "ed_seed",
    "ed_sign",
    "ed_verify",
    "encode",
    "gmul",
    "mul",
    "neg",
]

_SIZE = 33


# ------------------------------------------------------------------ secp256k1


def decode(raw: object) -> PublicKey:
    if not isinstance(raw, bytes) or len(raw) != _SIZE or raw[0] not in (2, 3):
        raise ValueError("not a 33-byte compressed point")
    point = PublicKey(raw)
    if point.format() != raw:
        raise ValueError("non-canonical point encoding")
    return point


encode = PublicKey.format  # the compressed form by default; no frame of our own


def mul(point: PublicKey, k: int) -> PublicKey:
    return point.multiply(k.to_bytes(32, "big"))


def gmul(k: int) -> PublicKey:
    return PublicKey.from_secret(k.to_bytes(32, "big"))


def add(points: list[PublicKey]) -> PublicKey | None:
    try:
        return PublicKey.combine_keys(points)
    except ValueError:  # the sum is the point at infinity
        return None


def neg(point: PublicKey) -> PublicKey:
    raw = point.format()
    return PublicKey(bytes([raw[0] ^ 1]) + raw[1:])


# ------------------------------------------------------------------ Ed25519


def ed_generate() -> Ed25519PrivateKey:
    return Ed25519PrivateKey.generate()


def ed_secret(seed: bytes) -> Ed25519PrivateKey:
    return Ed25519PrivateKey.from_private_bytes(seed)


def ed_seed(key: Ed25519PrivateKey) -> bytes:
    return key.private_bytes_raw()


def ed_sign(key: Ed25519PrivateKey, data: bytes) -> bytes:
    return key.sign(data)


def ed_public(key: Ed25519PrivateKey) -> tuple[bytes, Ed25519PublicKey]:
    public = key.public_key()
    return public.public_bytes(Encoding.Raw, PublicFormat.Raw), public


def ed_public_key(raw: bytes) -> Ed25519PublicKey:
    return Ed25519PublicKey.from_public_bytes(raw)


def ed_verify(key: Ed25519PublicKey, signature: bytes, data: bytes) -> None:
    try:
        key.verify(signature, data)
    except InvalidSignature:
        raise BadSignatureError("bad signature") from None
