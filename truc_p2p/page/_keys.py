"""The page's identity key: the one place the page names the key type (the crypto
seam's signing key), and the key as a file in the desktop's own format (PKCS#8
PEM, as ``truc-p2p`` writes ``identity.pem``; 32 raw bytes are read too)."""

from __future__ import annotations

from truc_p2p.crypto import BadKeyError, KeyTypeError, SigningKey

__all__ = ["Key", "KeyFileError", "key_from_file", "key_from_raw", "key_to_file", "raw_key"]

#: An identity key.
Key = SigningKey


def key_from_raw(raw: bytes) -> Key:
    """The key of 32 private bytes (fresh random ones make a new key)."""
    return SigningKey.from_bytes(raw)


class KeyFileError(ValueError):
    """Not an identity key file (the message says why, in English)."""


def raw_key(key: SigningKey) -> bytes:
    """The key's 32 private bytes (what the page keeps in IndexedDB)."""
    return key.to_bytes()


def key_to_file(key: SigningKey) -> bytes:
    """The key as the desktop writes its identity file (PKCS#8 PEM)."""
    return key.to_pem()


def key_from_file(data: bytes) -> SigningKey:
    """The key of an identity file (PEM or 32 raw bytes); :class:`KeyFileError` else."""
    try:
        if len(data) == 32:
            return SigningKey.from_bytes(data)
        if data.lstrip().startswith(b"-----BEGIN"):
            return SigningKey.from_pem(data)
    except (BadKeyError, KeyTypeError, ValueError) as exc:
        raise KeyFileError(f"not an Ed25519 private key: {exc}") from None
    raise KeyFileError("not an identity key file (a PEM private key or 32 bytes)")
