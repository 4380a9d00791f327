"""The ``js`` backend: the page's global ``trucCrypto`` (``truc_p2p/site/static/crypto.js``).

Runs in Pyodide and calls JavaScript synchronously: bytes go over as
``Uint8Array`` (``pyodide.ffi.to_js``), bytes come back with ``to_bytes()``;
scalars go over as their 32 big-endian bytes (turning a large Python int into a
``BigInt`` costs more than the multiplication), a sum's terms as one buffer.  A
point is its 33-byte compressed encoding on both sides (what libsecp256k1 in WASM
takes and gives), held here as Python bytes: encoding and negating it need no call
into JavaScript.
Ed25519 keys are their 32 bytes (seed or public key); ``crypto.js`` keeps
nothing.
"""

from __future__ import annotations

import os
from typing import Any

try:
    import js  # type: ignore[import-not-found]  # Pyodide's bridge to the JS global scope
    from pyodide.ffi import to_js  # type: ignore[import-not-found]
except ImportError:
    raise ImportError(
        "the js crypto backend runs only in Pyodide (unset TRUC_P2P_CRYPTO to use native)"
    ) from None

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
_api: Any = getattr(js, "trucCrypto", None)
if _api is None:  # pragma: no cover - only in a page without crypto.js
    raise ImportError("the js crypto backend needs globalThis.trucCrypto (crypto.js)")


# ------------------------------------------------------------------ secp256k1


def decode(raw: object) -> bytes:
    if not isinstance(raw, bytes) or len(raw) != _SIZE or raw[0] not in (2, 3):
        raise ValueError("not a 33-byte compressed point")
    if _api.pointDecode(to_js(raw)) is None:
        raise ValueError("not a point on secp256k1")
    return raw


def encode(point: bytes) -> bytes:
    return point


def mul(point: bytes, k: int) -> bytes:
    return bytes(_api.pointMul(to_js(point), to_js(k.to_bytes(32, "big"))).to_bytes())


def gmul(k: int) -> bytes:
    return bytes(_api.pointGmul(to_js(k.to_bytes(32, "big"))).to_bytes())


def add(points: list[bytes]) -> bytes | None:
    total = _api.pointAdd(to_js(b"".join(points)))  # one conversion for all the terms
    return None if total is None else bytes(total.to_bytes())


def neg(point: bytes) -> bytes:
    return bytes([point[0] ^ 1]) + point[1:]


# ------------------------------------------------------------------ Ed25519


def ed_generate() -> bytes:
    return os.urandom(32)


def ed_secret(seed: bytes) -> bytes:
    return bytes(seed)


def ed_seed(key: bytes) -> bytes:
    return key


def ed_sign(key: bytes, data: bytes) -> bytes:
    return bytes(_api.edSign(to_js(key), to_js(data)).to_bytes())


def ed_public(key: bytes) -> tuple[bytes, bytes]:
    raw = bytes(_api.edPublic(to_js(key)).to_bytes())
    return raw, raw


def ed_public_key(raw: bytes) -> bytes:
    if len(raw) != 32:
        raise ValueError("An Ed25519 public key is 32 bytes long")
    return bytes(raw)


def ed_verify(key: bytes, signature: bytes, data: bytes) -> None:
    if not _api.edVerify(to_js(key), to_js(signature), to_js(data)):
        raise BadSignatureError("bad signature")
