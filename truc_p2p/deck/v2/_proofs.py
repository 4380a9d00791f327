"""Deck v2 zero-knowledge proofs, made non-interactive with Fiat-Shamir.

Theory of operation (additive notation, G the base point, n the order):

* **Key proof** (Schnorr): knowledge of ``x`` with ``Y = xG``.
* **Share proof** (Chaum-Pedersen DLEQ): ``S = xA`` for the ``x`` of ``Y = xG``.
* **Shuffle proof** (Terelius-Wikstrom, as in Verificatum): ciphertexts are
  tuples of ``L`` points; the prover knows a permutation ``pi`` and scalars
  ``rho[i][k]`` with ``out[i] = in[pi(i)] + sum_k rho[i][k] * K_k`` for public
  re-encryption vectors ``K_k``.  It commits to the permutation matrix column
  by column (``c_j = r_j G + h_{pi^-1(j)}``), derives challenges ``u_j``, and
  proves (1) the committed matrix has rows summing to one, (2) the product of
  the permuted challenges equals the product of the challenges (a chain of
  commitments), (3) it knows the opening ``u'`` of ``sum u_j c_j`` and (4) the
  same ``u'`` maps the outputs onto ``sum u_j in_j`` up to a re-encryption.
  (1) and (2) hold for random ``u`` only if the matrix is a permutation
  matrix (Terelius-Wikstrom 2010, Thm. 1).

Every proof is sent as (challenge, responses); the verifier recomputes the
commitments and the challenge.  A recomputed point at infinity is hashed as
33 zero bytes.  Verifiers return ``False``; parsers raise
:class:`ProofFormatError` (a malformed proof, not a false one).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from truc_p2p.deck.v2 import _ec
from truc_p2p.deck.v2._derive import challenge, derived_scalar, digest
from truc_p2p.deck.v2._ec import ORDER, POINT_SIZE, SCALAR_SIZE, Point, Pt
from truc_p2p.deck.v2._points import generators, minus_generator_sum

__all__ = [
    "DLEQ_SIZE",
    "POK_SIZE",
    "ProofFormatError",
    "ShuffleProof",
    "dleq_prove",
    "dleq_verify",
    "pok_prove",
    "pok_verify",
    "shuffle_proof_size",
    "shuffle_prove",
    "shuffle_verify",
]

POK_SIZE = 2 * SCALAR_SIZE
DLEQ_SIZE = 2 * SCALAR_SIZE


class ProofFormatError(ValueError):
    """A proof of the wrong length, with a bad point or a scalar >= n."""


def _enc(points: Sequence[Point]) -> bytes:
    return b"".join(_ec.encode(p) for p in points)


def _scalars(raw: bytes, count: int) -> list[int]:
    out = []
    for i in range(count):
        k = _ec.parse_scalar(raw[i * SCALAR_SIZE : (i + 1) * SCALAR_SIZE])
        if k is None:
            raise ProofFormatError("scalar is not below n")
        out.append(k)
    return out


# -- Schnorr proof of knowledge of a key -----------------------------------------------


def pok_prove(x: int, y: Pt, *, binding: bytes, key: bytes) -> bytes:
    """(e, s), 64 bytes: ``T = kG``, ``e = H("pok", binding, Y, T)``, ``s = k + e x``."""
    stmt = binding + _ec.encode(y)
    k = derived_scalar(key, b"nonce/pok", stmt, 0)
    e = challenge(b"pok", stmt, _ec.encode(_ec.gmul(k)))
    return _ec.scalar_bytes(e) + _ec.scalar_bytes(k + e * x)


def pok_verify(y: Pt, proof: object, *, binding: bytes) -> bool:
    """Recompute ``T = sG - eY`` and the challenge; raises ProofFormatError if malformed."""
    if not isinstance(proof, bytes) or len(proof) != POK_SIZE:
        raise ProofFormatError("key proof is not 64 bytes")
    e, s = _scalars(proof, 2)
    t = _ec.add([_ec.gmul(s), _ec.mul(y, ORDER - e)])
    return challenge(b"pok", binding + _ec.encode(y), _ec.encode(t)) == e


# -- Chaum-Pedersen proof that a share uses the key --------------------------------------


def dleq_prove(x: int, y: Pt, base: Pt, share: Pt, *, binding: bytes, key: bytes) -> bytes:
    """(e, s): ``T1 = kG``, ``T2 = kA``, ``e = H("dleq", binding, Y, A, S, T1, T2)``."""
    stmt = binding + _ec.encode(y) + _ec.encode(base) + _ec.encode(share)
    k = derived_scalar(key, b"nonce/dleq", stmt, 0)
    e = challenge(b"dleq", stmt, _ec.encode(_ec.gmul(k)), _ec.encode(_ec.mul(base, k)))
    return _ec.scalar_bytes(e) + _ec.scalar_bytes(k + e * x)


def dleq_verify(y: Pt, base: Pt, share: Pt, proof: object, *, binding: bytes) -> bool:
    """Recompute ``T1 = sG - eY``, ``T2 = sA - eS`` and the challenge."""
    if not isinstance(proof, bytes) or len(proof) != DLEQ_SIZE:
        raise ProofFormatError("share proof is not 64 bytes")
    e, s = _scalars(proof, 2)
    minus_e = ORDER - e
    t1 = _ec.add([_ec.gmul(s), _ec.mul(y, minus_e)])
    t2 = _ec.add([_ec.mul(base, s), _ec.mul(share, minus_e)])
    stmt = binding + _ec.encode(y) + _ec.encode(base) + _ec.encode(share)
    return challenge(b"dleq", stmt, _ec.encode(t1), _ec.encode(t2)) == e


# -- Terelius-Wikstrom shuffle proof -----------------------------------------------------


def shuffle_proof_size(n: int, vectors: int) -> int:
    """Bytes of a shuffle proof of ``n`` ciphertexts with ``vectors`` re-encryption vectors."""
    return 2 * n * POINT_SIZE + SCALAR_SIZE * (4 + vectors + 2 * n)


@dataclass(frozen=True, slots=True)
class ShuffleProof:
    """``c`` (permutation commitments), ``chain``, ``e``, ``s1..s3``, ``s4`` (one per
    re-encryption vector), ``shat`` and ``sprime`` (one per ciphertext)."""

    c: tuple[Pt, ...]
    chain: tuple[Pt, ...]
    e: int
    s1: int
    s2: int
    s3: int
    s4: tuple[int, ...]
    shat: tuple[int, ...]
    sprime: tuple[int, ...]

    def to_bytes(self) -> bytes:
        """``c_0..c_{n-1} || chain_0..chain_{n-1} || e || s1 || s2 || s3 || s4_* ||
        shat_* || sprime_*`` (points 33 bytes, scalars 32)."""
        scalars = [self.e, self.s1, self.s2, self.s3, *self.s4, *self.shat, *self.sprime]
        return _enc(self.c) + _enc(self.chain) + b"".join(_ec.scalar_bytes(k) for k in scalars)

    @classmethod
    def from_bytes(cls, raw: object, n: int, vectors: int) -> ShuffleProof:
        """Parse; raises :class:`ProofFormatError` on any deviation from the layout."""
        if not isinstance(raw, bytes) or len(raw) != shuffle_proof_size(n, vectors):
            raise ProofFormatError("shuffle proof has the wrong length")
        points = []
        for i in range(2 * n):
            try:
                points.append(_ec.decode(raw[i * POINT_SIZE : (i + 1) * POINT_SIZE]))
            except ValueError:
                raise ProofFormatError("shuffle proof holds an invalid point") from None
        ks = _scalars(raw[2 * n * POINT_SIZE :], 4 + vectors + 2 * n)
        e, s1, s2, s3 = ks[:4]
        s4 = tuple(ks[4 : 4 + vectors])
        rest = ks[4 + vectors :]
        return cls(
            c=tuple(points[:n]),
            chain=tuple(points[n:]),
            e=e,
            s1=s1,
            s2=s2,
            s3=s3,
            s4=s4,
            shat=tuple(rest[:n]),
            sprime=tuple(rest[n:]),
        )


Ciphertext = tuple[Point, ...]


def _statement(
    binding: bytes,
    vectors: Sequence[Ciphertext],
    inputs: Sequence[Ciphertext],
    outputs: Sequence[Ciphertext],
) -> bytes:
    return digest(
        b"shuffle/statement",
        binding,
        b"".join(_enc(k) for k in vectors),
        b"".join(_enc(c) for c in inputs),
        b"".join(_enc(c) for c in outputs),
    )


def _u(stmt: bytes, c: Sequence[Point]) -> list[int]:
    base = digest(b"shuffle/u", stmt, _enc(c))
    return [challenge(b"shuffle/u-j", base, j.to_bytes(4, "big")) for j in range(len(c))]


def _e(stmt: bytes, c: Sequence[Point], chain: Sequence[Point], t: Sequence[Point]) -> int:
    return challenge(b"shuffle/e", stmt, _enc(c), _enc(chain), _enc(t))


def shuffle_prove(
    inputs: Sequence[Ciphertext],
    outputs: Sequence[Ciphertext],
    vectors: Sequence[Ciphertext],
    perm: Sequence[int],
    rho: Sequence[Sequence[int]],
    *,
    binding: bytes,
    key: bytes,
) -> ShuffleProof:
    """Prove ``outputs[i] = inputs[perm[i]] + sum_k rho[i][k] * vectors[k]``."""
    n = len(inputs)
    width = len(vectors[0])
    hs, h = generators()
    stmt = _statement(binding, vectors, inputs, outputs)

    def nonce(label: bytes, i: int) -> int:
        return derived_scalar(key, b"nonce/shuffle/" + label, stmt, i)

    inv = [0] * n
    for i, j in enumerate(perm):
        inv[j] = i
    r = [nonce(b"r", j) for j in range(n)]
    c = [_ec.add([_ec.gmul(r[j]), hs[inv[j]]]) for j in range(n)]
    u = _u(stmt, c)
    up = [u[perm[i]] for i in range(n)]
    rhat = [nonce(b"rhat", i) for i in range(n)]
    chain: list[Point] = []
    prev: Point = h
    for i in range(n):
        prev = _ec.add([_ec.gmul(rhat[i]), _ec.mul(prev, up[i])])
        chain.append(prev)
    rbar = sum(r) % ORDER
    rtil = sum(rj * uj for rj, uj in zip(r, u, strict=True)) % ORDER
    v = 1
    big_rhat = 0
    for i in range(n - 1, -1, -1):
        big_rhat = (big_rhat + rhat[i] * v) % ORDER
        v = v * up[i] % ORDER
    nvec = len(vectors)
    big_r = [sum(rho[i][k] * up[i] for i in range(n)) % ORDER for k in range(nvec)]
    w1, w2, w3 = nonce(b"w1", 0), nonce(b"w2", 0), nonce(b"w3", 0)
    w4 = [nonce(b"w4", k) for k in range(nvec)]
    what = [nonce(b"what", i) for i in range(n)]
    wp = [nonce(b"wprime", i) for i in range(n)]
    t: list[Point] = [
        _ec.gmul(w1),
        _ec.gmul(w2),
        _ec.add([_ec.gmul(w3), *(_ec.mul(hs[i], wp[i]) for i in range(n))]),
    ]
    for col in range(width):
        t.append(
            _ec.add(
                [
                    *(_ec.mul(outputs[i][col], wp[i]) for i in range(n)),
                    *(_ec.mul(vectors[k][col], ORDER - w4[k]) for k in range(nvec)),
                ]
            )
        )
    prevs = [h, *chain[:-1]]
    for i in range(n):
        t.append(_ec.add([_ec.gmul(what[i]), _ec.mul(prevs[i], wp[i])]))
    e = _e(stmt, c, chain, t)
    if any(p is None for p in (*c, *chain)):  # pragma: no cover - probability ~2**-250
        raise ValueError("degenerate shuffle proof")
    return ShuffleProof(
        c=tuple(p for p in c if p is not None),
        chain=tuple(p for p in chain if p is not None),
        e=e,
        s1=(w1 + e * rbar) % ORDER,
        s2=(w2 + e * big_rhat) % ORDER,
        s3=(w3 + e * rtil) % ORDER,
        s4=tuple((w4[k] + e * big_r[k]) % ORDER for k in range(nvec)),
        shat=tuple((what[i] + e * rhat[i]) % ORDER for i in range(n)),
        sprime=tuple((wp[i] + e * up[i]) % ORDER for i in range(n)),
    )


def shuffle_verify(
    inputs: Sequence[Ciphertext],
    outputs: Sequence[Ciphertext],
    vectors: Sequence[Ciphertext],
    proof: ShuffleProof,
    *,
    binding: bytes,
) -> bool:
    """Recompute every commitment of the proof from its responses and check ``e``."""
    n = len(inputs)
    width = len(vectors[0])
    hs, h = generators()
    stmt = _statement(binding, vectors, inputs, outputs)
    c, chain, e = proof.c, proof.chain, proof.e
    me = ORDER - e
    u = _u(stmt, c)
    prod_u = 1
    for uj in u:
        prod_u = prod_u * uj % ORDER
    cbar = _ec.add([*c, minus_generator_sum()])
    chat_end = _ec.add([chain[-1], _ec.mul(h, ORDER - prod_u)])
    sp = proof.sprime
    t: list[Point] = [
        _ec.add([_ec.gmul(proof.s1), _ec.mul(cbar, me)]),
        _ec.add([_ec.gmul(proof.s2), _ec.mul(chat_end, me)]),
        _ec.add(
            [
                _ec.gmul(proof.s3),
                *(_ec.mul(hs[i], sp[i]) for i in range(n)),
                *(_ec.mul(c[j], me * u[j]) for j in range(n)),
            ]
        ),
    ]
    nvec = len(vectors)
    for col in range(width):
        t.append(
            _ec.add(
                [
                    *(_ec.mul(outputs[i][col], sp[i]) for i in range(n)),
                    *(_ec.mul(vectors[k][col], ORDER - proof.s4[k]) for k in range(nvec)),
                    *(_ec.mul(inputs[j][col], me * u[j]) for j in range(n)),
                ]
            )
        )
    prevs = [h, *chain[:-1]]
    for i in range(n):
        t.append(
            _ec.add([_ec.gmul(proof.shat[i]), _ec.mul(prevs[i], sp[i]), _ec.mul(chain[i], me)])
        )
    return _e(stmt, c, chain, t) == e
