"""Deck v2's shuffle proofs made once per test process for each statement.

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
