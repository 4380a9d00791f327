"""Deck v2's shuffle proofs made once per test process for each statement, and deck
v1's multiplications once per scalar and point.

A v2 deal costs two shuffle proofs and their checks (about 100 point multiplications
each), most of the suite's CPU: the tests replay the same seeded games again and again
(the player checks a proof, the verifier checks it again, a restore replays it), and
many modules deal the same hands from the same seeds. ``shuffle_prove`` and
``shuffle_verify`` are pure functions of their arguments (their nonces are derived
from the key and the statement), so the test run keeps each answer, keyed by a hash
of every argument, and gives it again for the same arguments: a proof or a check on
any other input (a cheat, a flipped byte) is computed for real. The deck's own tests
of the proofs (tests/deck) call ``truc_p2p.deck.v2._proofs`` directly, which is
never memoised; ``tests/conftest.py`` installs the memo where the deal calls them.
Deck v1 looks ``decode`` and ``derive_key`` up on its ``_group`` module at call time
(so that a test can count them): the memo stands there, and a test that counts wraps
it and counts the same calls.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from truc_p2p.deck.v2 import _ec
from truc_p2p.deck.v2._ec import Point
from truc_p2p.deck.v2._proofs import ShuffleProof, shuffle_prove, shuffle_verify

__all__ = ["memo_prove", "memo_verify"]


def _points(rows: Iterable[Sequence[Point]]) -> bytes:
    return b"".join(b"".join(_ec.encode(p) for p in row) + b";" for row in rows)


def memo_verify(real: Callable[..., bool]) -> Callable[..., bool]:
    """``real`` (``shuffle_verify``) answered once per distinct set of arguments."""
    seen: dict[bytes, bool] = {}

    def shuffle_verify(
        inputs: Sequence[Sequence[Point]],
        outputs: Sequence[Sequence[Point]],
        vectors: Sequence[Sequence[Point]],
        proof: ShuffleProof,
        *,
        binding: bytes,
    ) -> bool:
        key = hashlib.blake2b(
            b"|".join(
                (_points(inputs), _points(outputs), _points(vectors), proof.to_bytes(), binding)
            )
        ).digest()
        if key not in seen:
            seen[key] = real(inputs, outputs, vectors, proof, binding=binding)
        return seen[key]

    return shuffle_verify


def memo_prove(real: Callable[..., ShuffleProof]) -> Callable[..., ShuffleProof]:
    """``real`` (``shuffle_prove``) answered once per distinct set of arguments (the
    proof is a frozen value)."""
    seen: dict[bytes, ShuffleProof] = {}

    def shuffle_prove(
        inputs: Sequence[Sequence[Point]],
        outputs: Sequence[Sequence[Point]],
        vectors: Sequence[Sequence[Point]],
        perm: Sequence[int],
        rho: Sequence[Sequence[int]],
        *,
        binding: bytes,
        key: bytes,
    ) -> ShuffleProof:
        digest = hashlib.blake2b(
            b"|".join(
                (
                    _points(inputs),
                    _points(outputs),
                    _points(vectors),
                    repr([list(perm), [list(row) for row in rho]]).encode(),
                    binding,
                    key,
                )
            )
        ).digest()
        if digest not in seen:
            seen[digest] = real(inputs, outputs, vectors, perm, rho, binding=binding, key=key)
        return seen[digest]

    return shuffle_prove


def install(patch: Callable[[Any, str, Any], None]) -> None:
    """Put the memos where the deal calls the prover and the checker
    (``patch(module, name, value)``, e.g. ``pytest.MonkeyPatch.setattr``)."""
    from truc_p2p.deck.v2 import _hand, _side

    patch(_hand, "_shuffle_verify", memo_verify(shuffle_verify))
    patch(_side, "shuffle_prove", memo_prove(shuffle_prove))
    from truc_p2p.deck.legacy_v1 import _group

    v1 = _V1Memo(_group.decode, _group.derive_key)
    patch(_group, "decode", v1.decode)
    patch(_group, "derive_key", v1.derive_key)


# -- deck v1: the commutative cipher's multiplications ---------------------------------

#: Above this many products, a worker's memo of deck v1 starts afresh (memory bound).
V1_LIMIT = 200_000


class _V1Memo:
    """Deck v1's ``decode`` and ``derive_key(k).exchange(ECDH, point)`` answered once
    per point and per (scalar, point) in a test process: ``x(k * P)`` is a pure
    function of ``k`` and ``P``. A scalar outside ``[1, n)`` goes to the real
    ``derive_key`` at once, which raises where it raised."""

    def __init__(self, decode: Callable[[bytes], Any], derive: Callable[[int], Any]) -> None:
        self.real_decode, self.real_derive = decode, derive
        self.points: dict[bytes, Any] = {}
        #: id of a point this memo holds (so the id is never reused) -> its x
        self.xs: dict[int, bytes] = {}
        self.products: dict[tuple[int, bytes], bytes] = {}

    def decode(self, x: bytes) -> Any:
        point = self.points.get(x)
        if point is None:
            point = self.real_decode(x)  # raises ValueError off the curve, as before
            self.points[x] = point
            self.xs[id(point)] = x
        return point

    def x_of(self, point: Any) -> bytes:
        x = self.xs.get(id(point))
        if x is not None:
            return x
        from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

        raw: bytes = point.public_bytes(Encoding.X962, PublicFormat.CompressedPoint)
        return raw

    def derive_key(self, k: int) -> Any:
        from truc_p2p.deck.legacy_v1._group import ORDER

        if isinstance(k, int) and 1 <= k < ORDER:
            return _V1Key(self, k)
        return self.real_derive(k)


class _V1Key:
    """A deck v1 key whose real OpenSSL key is only made on the first new product."""

    __slots__ = ("_key", "_memo", "k")

    def __init__(self, memo: _V1Memo, k: int) -> None:
        self._memo, self.k = memo, k
        self._key: Any = None

    def exchange(self, algorithm: Any, peer: Any) -> bytes:
        memo = self._memo
        entry = (self.k, memo.x_of(peer))
        product = memo.products.get(entry)
        if product is None:
            if self._key is None:
                self._key = memo.real_derive(self.k)
            product = self._key.exchange(algorithm, peer)
            if len(memo.products) >= V1_LIMIT:
                memo.products.clear()
            memo.products[entry] = product
        return product
