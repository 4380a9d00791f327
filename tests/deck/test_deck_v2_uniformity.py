"""Deck v2 deals are uniform: chi-square over many seeded deals, fixed RNG seed.

The card at position ``i`` is ``pB[pA[i]]`` (the non-dealer's shuffle of the
cards, then the dealer's shuffle of D1); the permutations are derived exactly
as the sides derive them (no curve operations), and a few full deals confirm
that this composition is what the sides really open.
"""

from __future__ import annotations

import functools
import random
from collections import Counter

from helpers.deck_v2 import CONTEXT, GAME_ID, honest_deal
from helpers.stats import chi2, chi2_critical

from truc_p2p.deck import Role
from truc_p2p.deck.v2._derive import derived_permutation, digest, hand_digest, side_key

DEALS = 12800


@functools.cache  # dealt when a test first asks, not at collection in every worker
def _deals() -> tuple[list[tuple[int, ...]], list[tuple[int, ...]], list[tuple[int, ...]]]:
    rng = random.Random(0xDEC42)
    deals, dealer_perms, nondealer_perms = [], [], []
    for _ in range(DEALS):
        pb = derived_permutation(rng.randbytes(32), rng.randbytes(32), 32)
        pa = derived_permutation(rng.randbytes(32), rng.randbytes(32), 32)
        dealer_perms.append(pa)
        nondealer_perms.append(pb)
        deals.append(tuple(pb[pa[i]] for i in range(32)))
    return deals, dealer_perms, nondealer_perms


def test_each_dealt_position_is_uniform() -> None:
    crit = chi2_critical(31)
    for position in range(12):
        counts = Counter(deal[position] for deal in _deals()[0])
        assert chi2(counts, 32, DEALS) < crit, position


def test_each_player_shuffle_alone_is_uniform() -> None:
    crit = chi2_critical(31)
    for perms in (_deals()[1], _deals()[2]):
        for position in (0, 1, 15, 31):
            counts = Counter(p[position] for p in perms)
            assert chi2(counts, 32, DEALS) < crit, position


def test_pairs_of_positions_are_uniform() -> None:
    pairs = Counter(deal[0] * 32 + deal[1] for deal in _deals()[0])
    cells = [a * 32 + b for a in range(32) for b in range(32) if a != b]
    expected = DEALS / len(cells)
    stat = sum((pairs[c] - expected) ** 2 / expected for c in cells)
    assert sum(pairs[c] for c in cells) == DEALS
    assert stat < chi2_critical(len(cells) - 1)


def test_the_real_deal_is_the_composition() -> None:
    from helpers.deck_v2 import DEALER_SEED, NONDEALER_SEED

    for hand in (0, 5):
        deal = honest_deal(hand)
        t0 = hand_digest(GAME_ID, hand, CONTEXT)
        d1 = deal.d1
        t1 = digest(b"T1", t0, d1["key"], d1["pok"], b"".join(d1["deck"]), d1["proof"])
        pb = derived_permutation(side_key(NONDEALER_SEED, t0, Role.NONDEALER.wire_byte), t0, 32)
        pa = derived_permutation(side_key(DEALER_SEED, t0, Role.DEALER.wire_byte), t1, 32)
        for pos, card in {**deal.a.my_cards(), **deal.b.my_cards()}.items():
            assert card == pb[pa[pos]]
