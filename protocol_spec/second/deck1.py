"""Deck v1 (deck.md): P-256 x-coordinate cipher, seeds, HKDF streams, the four steps."""

from __future__ import annotations

import hashlib
import hmac
import struct
from functools import cache

from cryptography.hazmat.primitives.asymmetric.ec import (
    ECDH,
    SECP256R1,
    EllipticCurvePublicKey,
    derive_private_key,
)

N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
DEALER, NONDEALER = 0, 1


def be32(i: int) -> bytes:
    return struct.pack("!I", i)


def lift(x: bytes) -> EllipticCurvePublicKey:
    return EllipticCurvePublicKey.from_encoded_point(SECP256R1(), b"\x02" + x)


def E(k: int, x: bytes) -> bytes:
    """deck.md §1: E_k(x) = x(k · lift(x))."""
    return derive_private_key(k % N, SECP256R1()).exchange(ECDH(), lift(x))


@cache
def encodings() -> tuple[tuple[bytes, int], ...]:
    """deck.md §2: (enc(i), counter) by try-and-increment."""
    out = []
    for i in range(32):
        c = 0
        while True:
            x = hashlib.sha256(b"truc-p2p/v1/card" + bytes([i]) + be32(c)).digest()
            try:
                lift(x)
                break
            except ValueError:
                c += 1
        out.append((x, c))
    return tuple(out)


def card_of(x: bytes) -> int:
    return next(i for i, (e, _) in enumerate(encodings()) if e == x)


def positions(role: int, redeal: bool) -> list[int]:
    first = (1 if role == DEALER else 0) + (6 if redeal else 0)
    return [first, first + 2, first + 4]


def _hkdf_stream(seed: bytes, info: bytes) -> bytes:
    prk = hmac.new(b"truc-p2p/v1/deck/hkdf", seed, "sha256").digest()
    out, block = b"", b""
    for counter in range(1, 256):
        block = hmac.new(prk, block + info + bytes([counter]), "sha256").digest()
        out += block
    return out


class Side:
    """deck.md §3: one player's secrets for one hand."""

    def __init__(self, role: int, seed: bytes, game_id: bytes, hand: int) -> None:
        self.role = role
        self.seed = seed
        context = game_id + be32(hand) + bytes([role])
        self.commitment = hashlib.sha256(b"truc-p2p/v1/deck/commit" + context + seed).digest()
        keys = _hkdf_stream(seed, b"truc-p2p/v1/deck/keys" + context)
        kept = []
        for at in range(0, len(keys), 32):
            v = int.from_bytes(keys[at : at + 32], "big")
            if 1 <= v <= N - 1:
                kept.append(v)
            if len(kept) == 33:
                break
        self.key, self.card_keys = kept[0], kept[1:]
        stream = _hkdf_stream(seed, b"truc-p2p/v1/deck/perm" + context)
        words = iter(struct.unpack(f"!{len(stream) // 4}I", stream))
        perm = list(range(32))
        for i in range(31, 0, -1):
            m = i + 1
            while True:
                v = next(words)
                if v < 2**32 - 2**32 % m:
                    break
            j = v % m
            perm[i], perm[j] = perm[j], perm[i]
        self.perm = perm

    def key_bytes(self, pos: int) -> bytes:
        return self.card_keys[pos].to_bytes(32, "big")


class Hand:
    """The four decks of one hand (deck.md §5), both sides honest."""

    def __init__(self, a: Side, b: Side) -> None:
        self.a, self.b = a, b
        enc = [e for e, _ in encodings()]
        self.d1 = [E(a.key, enc[a.perm[i]]) for i in range(32)]
        self.d2 = [E(b.key, self.d1[b.perm[i]]) for i in range(32)]
        a_inv, b_inv = pow(a.key, -1, N), pow(b.key, -1, N)
        self.d3 = [E(a.card_keys[i] * a_inv, self.d2[i]) for i in range(32)]
        self.d4 = [E(b.card_keys[i] * b_inv, self.d3[i]) for i in range(32)]
        self.deal = [a.perm[b.perm[i]] for i in range(32)]

    def open_b(self, pos: int) -> int:
        """The non-dealer's opening from D3 with the dealer's key a_i."""
        k = self.a.card_keys[pos] * self.b.key % N
        return card_of(E(pow(k, -1, N), self.d3[pos]))

    def open_a(self, pos: int) -> int:
        """The dealer's opening from D4 with both per-card keys."""
        k = self.a.card_keys[pos] * self.b.card_keys[pos] % N
        return card_of(E(pow(k, -1, N), self.d4[pos]))

    def card(self, pos: int) -> int:
        return self.open_b(pos) if pos % 2 == 0 else self.open_a(pos)
