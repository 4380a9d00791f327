"""The page's identity key: the one place the page names the key type (the crypto
seam's signing key once it is in), and the key as a file in the desktop's own format
(PKCS#8 PEM, as ``truc-p2p`` writes ``identity.pem``; 32 raw bytes are read too),
without a PEM library: an Ed25519 PKCS#8 key is one fixed 48-byte DER structure."""

from __future__ import annotations

import base64
import binascii

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

__all__ = ["Key", "KeyFileError", "key_from_file", "key_from_raw", "key_to_file", "raw_key"]

#: An identity key.
Key = Ed25519PrivateKey


def key_from_raw(raw: bytes) -> Key:
    """The key of 32 private bytes (fresh random ones make a new key)."""
    return Ed25519PrivateKey.from_private_bytes(raw)


#: The DER of an Ed25519 PKCS#8 private key up to its 32 key bytes (RFC 8410).
_PKCS8_PREFIX = bytes.fromhex("302e020100300506032b657004220420")
_BEGIN, _END = b"-----BEGIN PRIVATE KEY-----", b"-----END PRIVATE KEY-----"


class KeyFileError(ValueError):
    """Not an identity key file (the message says why, in English)."""


def raw_key(key: Ed25519PrivateKey) -> bytes:
    """The key's 32 private bytes (what the page keeps in IndexedDB)."""
    from cryptography.hazmat.primitives.serialization import (
        Encoding,
        NoEncryption,
        PrivateFormat,
    )

    return key.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())


def key_to_file(key: Ed25519PrivateKey) -> bytes:
    """The key as the desktop writes its identity file (PKCS#8 PEM)."""
    body = base64.b64encode(_PKCS8_PREFIX + raw_key(key))
    return _BEGIN + b"\n" + body + b"\n" + _END + b"\n"


def key_from_file(data: bytes) -> Ed25519PrivateKey:
    """The key of an identity file (PEM or 32 raw bytes); :class:`KeyFileError` else."""
    if len(data) == 32:
        return Ed25519PrivateKey.from_private_bytes(data)
    text = data.strip()
    if not (text.startswith(_BEGIN) and text.endswith(_END)):
        raise KeyFileError("not an identity key file (a PEM private key or 32 bytes)")
    try:
        der = base64.b64decode(b"".join(text[len(_BEGIN) : -len(_END)].split()), validate=True)
    except (binascii.Error, ValueError):
        raise KeyFileError("the key file's PEM is damaged") from None
    if len(der) != len(_PKCS8_PREFIX) + 32 or not der.startswith(_PKCS8_PREFIX):
        raise KeyFileError("not an Ed25519 private key")
    return Ed25519PrivateKey.from_private_bytes(der[len(_PKCS8_PREFIX) :])
