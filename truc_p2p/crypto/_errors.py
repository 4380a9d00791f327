"""The seam's errors (no backend needed to import them)."""

from __future__ import annotations

__all__ = ["BACKEND_ENV", "BadKeyError", "BadSignatureError", "KeyTypeError"]

BACKEND_ENV = "TRUC_P2P_CRYPTO"
"""The environment variable that forces a backend (``native`` or ``js``), read at import."""


class BadKeyError(ValueError):
    """Bytes that are not a key of the expected kind (wrong length, malformed PEM)."""


class KeyTypeError(BadKeyError):
    """A well-formed PEM private key of another algorithm; ``key_type`` names it."""

    def __init__(self, key_type: str) -> None:
        super().__init__(f"a {key_type}, not an Ed25519 key")
        self.key_type = key_type


class BadSignatureError(Exception):
    """An Ed25519 signature that does not verify."""
