"""Every secp256k1 and Ed25519 operation of the package, behind one interface.

Two backends give byte-identical results:

* ``native``: libsecp256k1 through ``coincurve`` and OpenSSL through
  ``cryptography`` (the desktop program);
* ``js``: in Pyodide (``sys.platform == "emscripten"``), the page's global
  ``trucCrypto`` object (``truc_p2p/site/static/crypto.js``: libsecp256k1 compiled
  to WASM by tiny-secp256k1, and @noble/ed25519), called synchronously.

The backend is chosen once, at import: ``$TRUC_P2P_CRYPTO`` (``native`` or
``js``) when set, else ``js`` under Emscripten and ``native`` elsewhere.
:func:`backend` names the one in use.

Ed25519: :class:`SigningKey` (a 32-byte seed) and :class:`VerifyKey` (32
public bytes).  secp256k1: opaque :data:`Point` values (never the point at
infinity) with :func:`decode`, :func:`encode`, :func:`add`, :func:`mul`,
:func:`gmul` and :func:`neg`; scalars are Python ints in ``[1, n-1]``.  The
deck's own conventions (infinity as ``None``, hashing to the curve) live in
``truc_p2p.deck.v2._ec`` on top of these.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NewType, cast

from truc_p2p.crypto._backend import NAME as _NAME
from truc_p2p.crypto._backend import impl as _impl
from truc_p2p.crypto._errors import (
    BACKEND_ENV,
    BadKeyError,
    BadSignatureError,
    KeyTypeError,
)
from truc_p2p.crypto._keys import SigningKey, VerifyKey

__all__ = [
    "BACKEND_ENV",
    "BadKeyError",
    "BadSignatureError",
    "KeyTypeError",
    "Point",
    "SigningKey",
    "VerifyKey",
    "add",
    "backend",
    "decode",
    "encode",
    "gmul",
    "mul",
    "neg",
]

Point = NewType("Point", object)
"""A secp256k1 point other than infinity, opaque (a backend's own object)."""


def backend() -> str:
    """The backend in use: ``"native"`` or ``"js"``."""
    return _NAME


decode = cast(Callable[[object], Point], _impl.decode)
"""The point of a canonical 33-byte SEC1 compressed encoding (prefix 02/03, ``x < p``, on
the curve); ``ValueError`` for anything else (other bytes, or not bytes at all)."""
encode = cast(Callable[[Point], bytes], _impl.encode)
"""The 33-byte compressed encoding of a point."""
mul = cast(Callable[[Point, int], Point], _impl.mul)
"""``k * point`` for ``k`` in ``[1, n-1]`` (a variable-base multiplication)."""
gmul = cast(Callable[[int], Point], _impl.gmul)
"""``k * G`` for ``k`` in ``[1, n-1]`` (a fixed-base multiplication)."""
add = cast(Callable[[list[Point]], Point | None], _impl.add)
"""The sum of a list of two or more points; ``None`` when it is the point at infinity."""
neg = cast(Callable[[Point], Point], _impl.neg)
"""``-point``."""
