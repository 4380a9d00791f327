"""Shared helpers for the deck tests: fixed seeds, an honest hand, cheat tooling."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from truc_p2p.deck import DeckSide, Role, card_encodings, positions
from truc_p2p.deck.legacy_v1 import _group as group
from truc_p2p.deck.legacy_v1._secrets import Secrets, derive_secrets

GAME_ID = bytes(range(0x40, 0x60))
N = group.ORDER


def seed(tag: str) -> bytes:
    """A fixed 32-byte seed named by ``tag``."""
    return hashlib.sha256(b"truc-p2p tests " + tag.encode()).digest()


DEALER_SEED = seed("dealer")
NONDEALER_SEED = seed("nondealer")


def secrets_of(role: Role, hand: int = 0, s: bytes | None = None) -> Secrets:
    """The secrets a side with the default (or given) seed derives."""
    if s is None:
        s = DEALER_SEED if role is Role.DEALER else NONDEALER_SEED
    return derive_secrets(s, game_id=GAME_ID, hand=hand, role=role)


def sides(hand: int = 0) -> tuple[DeckSide, DeckSide]:
    """A fresh dealer and non-dealer with the fixed seeds."""
    a = DeckSide(Role.DEALER, DEALER_SEED, game_id=GAME_ID, hand=hand)
    b = DeckSide(Role.NONDEALER, NONDEALER_SEED, game_id=GAME_ID, hand=hand)
    return a, b


@dataclass
class Hand:
    """An honest hand played up to the end of the deal, with every message kept."""

    a: DeckSide
    b: DeckSide
    d1: tuple[bytes, ...]
    d2: tuple[bytes, ...]
    d3: tuple[bytes, ...]
    k3: dict[int, bytes]
    d4: tuple[bytes, ...]
    k4: dict[int, bytes]


def honest_hand(hand: int = 0) -> Hand:
    a, b = sides(hand)
    d1 = a.d1()
    d2 = b.receive_d1(d1, a.commitment)
    d3, k3 = a.receive_d2(d2, b.commitment)
    d4, k4 = b.receive_d3(d3, k3)
    a.receive_d4(d4, k4)
    return Hand(a, b, d1, d2, d3, k3, d4, k4)


def deal_of(hand: int = 0) -> tuple[int, ...]:
    """Card index at each position, straight from the two permutations."""
    pa = secrets_of(Role.DEALER, hand).permutation
    pb = secrets_of(Role.NONDEALER, hand).permutation
    return tuple(pa[pb[i]] for i in range(32))


def mul(k: int, x: bytes) -> bytes:
    """x(k * lift(x))."""
    return group.mul(k % N, group.decode(x))


def inv(k: int) -> int:
    return pow(k, -1, N)


def key(k: int) -> bytes:
    return k.to_bytes(32, "big")


def not_a_point() -> bytes:
    """An x-coordinate with no point on P-256."""
    for i in range(1000):
        x = hashlib.sha256(b"not a point" + bytes([i])).digest()
        try:
            group.decode(x)
        except ValueError:
            return x
    raise AssertionError("unreachable")


def fresh_point(tag: bytes = b"fresh") -> bytes:
    """A valid x-coordinate unrelated to any card."""
    for i in range(1000):
        x = hashlib.sha256(tag + bytes([i])).digest()
        try:
            group.decode(x)
        except ValueError:
            continue
        return x
    raise AssertionError("unreachable")


def card_of(x: bytes) -> int | None:
    encodings = card_encodings()
    return encodings.index(x) if x in encodings else None


__all__ = [
    "DEALER_SEED",
    "GAME_ID",
    "NONDEALER_SEED",
    "Hand",
    "N",
    "card_of",
    "deal_of",
    "fresh_point",
    "honest_hand",
    "inv",
    "key",
    "mul",
    "not_a_point",
    "positions",
    "secrets_of",
    "seed",
    "sides",
]
