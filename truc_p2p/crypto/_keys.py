"""Ed25519 keys of our own: :class:`SigningKey` and :class:`VerifyKey`, on the chosen backend.

PEM (PKCS#8, unencrypted) is read and written here in plain Python, so a key
file means the same thing to every backend.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from truc_p2p.crypto._backend import impl
from truc_p2p.crypto._errors import BadKeyError, KeyTypeError

__all__ = ["SigningKey", "VerifyKey"]

KEY_SIZE = 32
SIGNATURE_SIZE = 64

#: PKCS#8 ``PrivateKeyInfo`` of an Ed25519 key up to its 32 seed bytes (RFC 8410).
_PKCS8_PREFIX = bytes.fromhex("302e020100300506032b657004220420")
#: What another algorithm's key is called (as ``cryptography`` names its classes).
_ALGORITHMS = {
    "1.2.840.113549.1.1.1": "RSAPrivateKey",
    "1.2.840.10045.2.1": "EllipticCurvePrivateKey",
    "1.2.840.10040.4.1": "DSAPrivateKey",
    "1.3.101.110": "X25519PrivateKey",
    "1.3.101.111": "X448PrivateKey",
    "1.3.101.113": "Ed448PrivateKey",
}
_TRADITIONAL = {
    "RSA PRIVATE KEY": "RSAPrivateKey",
    "EC PRIVATE KEY": "EllipticCurvePrivateKey",
    "DSA PRIVATE KEY": "DSAPrivateKey",
}


class VerifyKey:
    """An Ed25519 public key: 32 bytes (any 32 bytes; a bad point fails every verify)."""

    __slots__ = ("_handle", "_raw")

    def __init__(self, raw: bytes, handle: Any) -> None:
        self._raw = raw
        self._handle = handle

    @classmethod
    def from_bytes(cls, raw: object) -> VerifyKey:
        """The key of 32 raw bytes; :class:`BadKeyError` for anything else."""
        if not isinstance(raw, bytes) or len(raw) != KEY_SIZE:
            raise BadKeyError("an Ed25519 public key is 32 bytes")
        return cls(raw, impl.ed_public_key(raw))

    def verify(self, signature: bytes, data: bytes) -> None:
        """Return if ``signature`` signs ``data``, else raise :class:`BadSignatureError`."""
        impl.ed_verify(self._handle, signature, data)

    def to_bytes(self) -> bytes:
        """The 32 raw bytes."""
        return self._raw

    def __eq__(self, other: object) -> bool:
        return isinstance(other, VerifyKey) and other._raw == self._raw

    def __hash__(self) -> int:
        return hash(self._raw)

    def __repr__(self) -> str:
        return f"VerifyKey({self._raw.hex()})"


class SigningKey:
    """An Ed25519 private key: its 32-byte seed (RFC 8032)."""

    __slots__ = ("_handle", "_public")

    def __init__(self, handle: Any) -> None:
        self._handle = handle
        self._public: VerifyKey | None = None

    @classmethod
    def generate(cls) -> SigningKey:
        """A fresh key from the operating system's randomness."""
        return cls(impl.ed_generate())

    @classmethod
    def from_bytes(cls, seed: object) -> SigningKey:
        """The key of a 32-byte seed; :class:`BadKeyError` for anything else."""
        if not isinstance(seed, bytes) or len(seed) != KEY_SIZE:
            raise BadKeyError("an Ed25519 private key is 32 bytes")
        return cls(impl.ed_secret(seed))

    @classmethod
    def from_pem(cls, data: bytes) -> SigningKey:
        """The key of an unencrypted PKCS#8 PEM file; :class:`KeyTypeError` for another
        algorithm's key, :class:`BadKeyError` for anything else."""
        return cls.from_bytes(_pem_seed(data))

    def sign(self, data: bytes) -> bytes:
        """The 64-byte signature of ``data`` (deterministic)."""
        return bytes(impl.ed_sign(self._handle, data))

    def public_key(self) -> VerifyKey:
        """The matching public key."""
        if self._public is None:
            raw, handle = impl.ed_public(self._handle)
            self._public = VerifyKey(raw, handle)
        return self._public

    def to_bytes(self) -> bytes:
        """The 32-byte seed (a secret)."""
        return bytes(impl.ed_seed(self._handle))

    def to_pem(self) -> bytes:
        """The key as unencrypted PKCS#8 PEM, as ``openssl genpkey`` writes it."""
        body = base64.b64encode(_PKCS8_PREFIX + self.to_bytes())
        return b"-----BEGIN PRIVATE KEY-----\n" + body + b"\n-----END PRIVATE KEY-----\n"

    def __repr__(self) -> str:  # never the secret
        return f"SigningKey(public={self.public_key().to_bytes().hex()})"


def _pem_seed(data: bytes) -> bytes:
    """The seed of the first PEM block of ``data``, which must be an Ed25519 PKCS#8 key."""
    text = data.decode("ascii", "replace")
    begin = text.find("-----BEGIN ")
    head_end = text.find("-----", begin + 11)
    if begin < 0 or head_end < 0:
        raise BadKeyError("no PEM header")
    label = text[begin + 11 : head_end]
    end = text.find(f"-----END {label}-----", head_end)
    if end < 0:
        raise BadKeyError(f"no PEM footer for {label}")
    if label in _TRADITIONAL:
        raise KeyTypeError(_TRADITIONAL[label])
    if label == "ENCRYPTED PRIVATE KEY":
        raise BadKeyError("the key is encrypted (password protected)")
    if label != "PRIVATE KEY":
        raise BadKeyError(f"a PEM {label}, not a private key")
    try:
        der = base64.b64decode("".join(text[head_end + 5 : end].split()), validate=True)
    except (binascii.Error, ValueError):
        raise BadKeyError("the PEM body is not base64") from None
    if der.startswith(_PKCS8_PREFIX) and len(der) == len(_PKCS8_PREFIX) + KEY_SIZE:
        return der[len(_PKCS8_PREFIX) :]
    oid = _algorithm(der)
    if oid is None:
        raise BadKeyError("the PEM body is not a PKCS#8 private key")
    if oid == "1.3.101.112":
        seed = _ed25519_seed(der)
        if seed is None:
            raise BadKeyError("a malformed Ed25519 PKCS#8 key")
        return seed
    raise KeyTypeError(_ALGORITHMS.get(oid, f"key of algorithm {oid}"))


def _tlv(der: bytes, at: int) -> tuple[int, int, int]:
    """(tag, start of value, end of value) of the DER element at ``at``."""
    if at + 2 > len(der):
        raise ValueError("truncated")
    tag, size = der[at], der[at + 1]
    at += 2
    if size & 0x80:
        n = size & 0x7F
        if n == 0 or n > 4 or at + n > len(der):
            raise ValueError("bad length")
        size = int.from_bytes(der[at : at + n], "big")
        at += n
    if at + size > len(der):
        raise ValueError("truncated")
    return tag, at, at + size


def _ed25519_seed(der: bytes) -> bytes | None:
    """The seed of an Ed25519 ``OneAsymmetricKey`` in its longer forms (attributes or the
    public key after the private key, RFC 8410 section 10.3)."""
    try:
        _tag, start, _end = _tlv(der, 0)
        _tag, _s, at = _tlv(der, start)  # version
        _tag, _s, at = _tlv(der, at)  # algorithm
        tag, key_start, _e = _tlv(der, at)
        if tag != 0x04:
            return None
        tag, seed_start, seed_end = _tlv(der, key_start)
    except ValueError:
        return None
    if tag != 0x04 or seed_end - seed_start != KEY_SIZE:
        return None
    return der[seed_start:seed_end]


def _algorithm(der: bytes) -> str | None:
    """The algorithm OID of a PKCS#8 ``PrivateKeyInfo``, dotted, or ``None``."""
    try:
        tag, start, _end = _tlv(der, 0)
        if tag != 0x30:
            return None
        tag, _s, after_version = _tlv(der, start)
        if tag != 0x02:
            return None
        tag, alg_start, _e = _tlv(der, after_version)
        if tag != 0x30:
            return None
        tag, oid_start, oid_end = _tlv(der, alg_start)
    except ValueError:
        return None
    if tag != 0x06 or oid_end == oid_start:
        return None
    raw = der[oid_start:oid_end]
    arcs = [raw[0] // 40, raw[0] % 40] if raw[0] < 80 else [2, raw[0] - 80]
    value = 0
    for byte in raw[1:]:
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            arcs.append(value)
            value = 0
    return ".".join(map(str, arcs))
