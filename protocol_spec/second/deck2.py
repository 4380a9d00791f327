"""Deck v2 (deck_v2.md): derivations, the three flights, the proofs, shares and opening."""

from __future__ import annotations

import hashlib
from functools import cache
from typing import Any

from ec import D, Hn, N, Point, add, be32, dec, enc, gmul, hp, mul, neg, perm, scalar, side_key

DEALER, NONDEALER = 0, 1  # role bytes (deck_v2.md §3)
STEP_D1, STEP_D2, STEP_D3, STEP_SHOW, STEP_REDEAL = 1, 2, 3, 4, 5
G = gmul(1)


@cache
def cards() -> tuple[tuple[Point, int], ...]:
    return tuple(hp(b"truc-p2p/v2/card", c) for c in range(32))


@cache
def generators() -> tuple[tuple[Point, ...], Point]:
    points = [hp(b"truc-p2p/v2/gen", i)[0] for i in range(33)]
    return tuple(points[:32]), points[32]


def hand_digest(game_id: bytes, hand: int, context: bytes) -> bytes:
    return hashlib.sha256(b"truc-p2p/v2/deck/hand" + game_id + be32(hand) + context).digest()


def positions(role: int, redeal: bool) -> list[int]:
    first = (1 if role == DEALER else 0) + (6 if redeal else 0)
    return [first, first + 2, first + 4]


def key_proof(key: bytes, binding: bytes, x: int) -> bytes:
    st = binding + enc(gmul(x))
    k = scalar(key, b"nonce/pok", st, 0)
    e = Hn(b"pok", st, enc(gmul(k)))
    return e.to_bytes(32, "big") + ((k + e * x) % N).to_bytes(32, "big")


def share(key: bytes, binding: bytes, x: int, layer: Point) -> bytes:
    """deck_v2.md §6.2: S || e || s, S = x·A."""
    s_point = mul(layer, x)
    st = binding + enc(gmul(x)) + enc(layer) + enc(s_point)
    k = scalar(key, b"nonce/dleq", st, 0)
    e = Hn(b"dleq", st, enc(gmul(k)), enc(mul(layer, k)))
    return enc(s_point) + e.to_bytes(32, "big") + ((k + e * x) % N).to_bytes(32, "big")


def shuffle_proof(
    key: bytes,
    binding: bytes,
    inputs: list[list[Point]],
    outputs: list[list[Point]],
    vectors: list[list[Point]],
    pi: list[int],
    rho: list[list[int]],
) -> bytes:
    """deck_v2.md §6.3, the prover: X'_i = X_{pi(i)} + sum_k rho[i][k]·K_k."""
    hs, h = generators()
    width = len(inputs[0])

    def tup(t: list[Point]) -> bytes:
        return b"".join(enc(p) for p in t)

    st = D(
        b"shuffle/statement",
        binding,
        *(tup(v) for v in vectors),
        *(tup(x) for x in inputs),
        *(tup(x) for x in outputs),
    )

    def nonce(label: bytes, i: int) -> int:
        return scalar(key, b"nonce/shuffle/" + label, st, i)

    inverse = [0] * 32
    for i, j in enumerate(pi):
        inverse[j] = i
    r = [nonce(b"r", j) for j in range(32)]
    c = [add(gmul(r[j]), hs[inverse[j]]) for j in range(32)]
    big_u = D(b"shuffle/u", st, *(enc(p) for p in c))
    u = [Hn(b"shuffle/u-j", big_u, be32(j)) for j in range(32)]
    u_p = [u[pi[i]] for i in range(32)]
    r_hat = [nonce(b"rhat", i) for i in range(32)]
    c_hat: list[Point] = []
    previous = h
    for i in range(32):
        previous = add(gmul(r_hat[i]), mul(previous, u_p[i]))
        c_hat.append(previous)
    r_bar = sum(r) % N
    r_tilde = sum(a * b for a, b in zip(r, u, strict=True)) % N
    r_chain = 0
    for i in range(32):
        tail = 1
        for later in u_p[i + 1 :]:
            tail = tail * later % N
        r_chain = (r_chain + r_hat[i] * tail) % N
    big_r = [sum(rho[i][k] * u_p[i] for i in range(32)) % N for k in range(len(vectors))]
    w1, w2, w3 = nonce(b"w1", 0), nonce(b"w2", 0), nonce(b"w3", 0)
    w4 = [nonce(b"w4", k) for k in range(len(vectors))]
    w_hat = [nonce(b"what", i) for i in range(32)]
    w_p = [nonce(b"wprime", i) for i in range(32)]
    t1, t2 = gmul(w1), gmul(w2)
    t3 = add(gmul(w3), *(mul(hs[i], w_p[i]) for i in range(32)))
    t4 = [
        add(
            *(mul(outputs[i][col], w_p[i]) for i in range(32)),
            *(mul(vectors[k][col], N - w4[k]) for k in range(len(vectors))),
        )
        for col in range(width)
    ]
    chain = [h, *c_hat[:-1]]
    t_hat = [add(gmul(w_hat[i]), mul(chain[i], w_p[i])) for i in range(32)]
    e = Hn(
        b"shuffle/e",
        st,
        *(enc(p) for p in c),
        *(enc(p) for p in c_hat),
        enc(t1),
        enc(t2),
        enc(t3),
        *(enc(p) for p in t4),
        *(enc(p) for p in t_hat),
    )

    def sc(v: int) -> bytes:
        return (v % N).to_bytes(32, "big")

    return b"".join(
        [
            *(enc(p) for p in c),
            *(enc(p) for p in c_hat),
            sc(e),
            sc(w1 + e * r_bar),
            sc(w2 + e * r_chain),
            sc(w3 + e * r_tilde),
            *(sc(w4[k] + e * big_r[k]) for k in range(len(vectors))),
            *(sc(w_hat[i] + e * r_hat[i]) for i in range(32)),
            *(sc(w_p[i] + e * u_p[i]) for i in range(32)),
        ]
    )


class Side:
    """One player's side of a hand: its secrets derived from its seed (§3)."""

    def __init__(self, role: int, seed: bytes, game_id: bytes, hand: int, context: bytes):
        self.role = role
        self.t0 = hand_digest(game_id, hand, context)
        self.key = side_key(seed, self.t0, role)
        self.x = scalar(self.key, b"key", b"", 0)
        self.y = gmul(self.x)
        self.t1 = b""
        self.t2 = b""
        self.deck: list[tuple[Point, Point, Point]] = []  # (A_B, A_A, C) of D2

    def scalar(self, label: bytes, data: bytes, i: int) -> int:
        return scalar(self.key, label, data, i)

    def layer(self, pos: int) -> Point:
        return self.deck[pos][0 if self.role == NONDEALER else 1]

    def share(self, step: int, pos: int) -> bytes:
        binding = self.t2 + bytes([step, self.role, pos])
        return share(self.key, binding, self.x, self.layer(pos))

    def d1(self) -> dict[str, Any]:
        pi = perm(self.key, self.t0)
        sigma = [self.scalar(b"mask", self.t0, i) for i in range(32)]
        points = [m for m, _ in cards()]
        entries = [[gmul(sigma[i]), add(points[pi[i]], mul(self.y, sigma[i]))] for i in range(32)]
        binding = self.t0 + bytes([STEP_D1, self.role])
        proof = shuffle_proof(
            self.key,
            binding,
            [[None, m] for m in points],
            entries,
            [[G, self.y]],
            pi,
            [[s] for s in sigma],
        )
        return {
            "key": enc(self.y),
            "pok": key_proof(self.key, binding, self.x),
            "deck": [enc(a) + enc(c) for a, c in entries],
            "proof": proof,
        }

    def d2(self, d1: dict[str, Any]) -> dict[str, Any]:
        self.t1 = D(b"T1", self.t0, d1["key"], d1["pok"], *d1["deck"], d1["proof"])
        y_b = dec(d1["key"])
        pi = perm(self.key, self.t1)
        masks = [
            (self.scalar(b"mask", self.t1, 2 * i), self.scalar(b"mask", self.t1, 2 * i + 1))
            for i in range(32)
        ]
        old = [(dec(e[:33]), dec(e[33:])) for e in d1["deck"]]
        for i in range(32):
            a_b, c = old[pi[i]]
            s, r = masks[i]
            self.deck.append((add(a_b, gmul(s)), gmul(r), add(c, mul(y_b, s), mul(self.y, r))))
        binding = self.t1 + bytes([STEP_D2, self.role])
        proof = shuffle_proof(
            self.key,
            binding,
            [[a, None, c] for a, c in old],
            [list(e) for e in self.deck],
            [[G, None, y_b], [None, G, self.y]],
            pi,
            [list(m) for m in masks],
        )
        key, pok = enc(self.y), key_proof(self.key, binding, self.x)
        deck = [b"".join(enc(p) for p in e) for e in self.deck]
        message: dict[str, Any] = {"key": key, "pok": pok, "deck": deck, "proof": proof}
        self.t2 = D(b"T2", self.t1, key, pok, *deck, proof)
        message["shares"] = [self.share(STEP_D2, p) for p in positions(NONDEALER, False)]
        return message

    def receive_d2(self, d1: dict[str, Any], d2: dict[str, Any]) -> None:
        """The non-dealer learns the final deck and T1, T2."""
        self.t1 = D(b"T1", self.t0, d1["key"], d1["pok"], *d1["deck"], d1["proof"])
        self.t2 = D(b"T2", self.t1, d2["key"], d2["pok"], *d2["deck"], d2["proof"])
        self.deck = [(dec(e[:33]), dec(e[33:66]), dec(e[66:])) for e in d2["deck"]]


def open_card(deck: list[tuple[Point, Point, Point]], pos: int, s_a: bytes, s_b: bytes) -> int:
    """deck_v2.md §4: M = C − S_A − S_B, the c with M_c = M."""
    m = add(deck[pos][2], neg(dec(s_a[:33])), neg(dec(s_b[:33])))
    for c, (point, _) in enumerate(cards()):
        if enc(point) == enc(m):
            return c
    raise ValueError(f"position {pos} opens to no card")
