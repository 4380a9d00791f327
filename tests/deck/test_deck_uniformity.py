"""Dealt cards are uniform: chi-square over many seeded deals, fixed RNG seed.

The deal is ``pA[pB[i]]``; the permutations are derived from the seeds directly
(no curve operations), which is exactly what decides the deal.
"""

from __future__ import annotations

import functools
import random
from collections import Counter

from helpers.deck import GAME_ID
from helpers.stats import chi2, chi2_critical

from truc_p2p.deck import Role
from truc_p2p.deck.legacy_v1._secrets import derive_permutation

DEALS = 12800


@functools.cache  # dealt when a test first asks, not at collection in every worker
def _deals() -> tuple[list[tuple[int, ...]], list[tuple[int, ...]], list[tuple[int, ...]]]:
    rng = random.Random(0xDEC4)
    deals, dealer_perms, nondealer_perms = [], [], []
    for hand in range(DEALS):
        pa = derive_permutation(rng.randbytes(32), game_id=GAME_ID, hand=hand, role=Role.DEALER)
        pb = derive_permutation(rng.randbytes(32), game_id=GAME_ID, hand=hand, role=Role.NONDEALER)
        dealer_perms.append(pa)
        nondealer_perms.append(pb)
        deals.append(tuple(pa[pb[i]] for i in range(32)))
    return deals, dealer_perms, nondealer_perms


def test_each_dealt_position_is_uniform() -> None:
    crit = chi2_critical(31)
    for position in range(12):  # both hands and both redeal hands
        counts = Counter(deal[position] for deal in _deals()[0])
        assert chi2(counts, 32, DEALS) < crit, position


def test_each_player_shuffle_alone_is_uniform() -> None:
    """Either shuffle must be uniform by itself: the privacy of each side relies on it."""
    crit = chi2_critical(31)
    for perms in (_deals()[1], _deals()[2]):
        for position in (0, 1, 15, 31):
            counts = Counter(p[position] for p in perms)
            assert chi2(counts, 32, DEALS) < crit, position


def test_pairs_of_positions_are_uniform() -> None:
    """The joint distribution of the first card of each player (32 * 31 pairs)."""
    pairs = Counter(deal[0] * 32 + deal[1] for deal in _deals()[0])
    cells = [a * 32 + b for a in range(32) for b in range(32) if a != b]
    expected = DEALS / len(cells)
    stat = sum((pairs[c] - expected) ** 2 / expected for c in cells)
    assert sum(pairs[c] for c in cells) == DEALS  # never the same card twice
    assert stat < chi2_critical(len(cells) - 1)


def test_the_statistic_rejects_a_biased_deal() -> None:
    """Sanity: a deal that favours low cards at position 0 by a few percent is caught."""
    rng = random.Random(7)
    counts = Counter(
        rng.randrange(8) if rng.random() < 0.08 else rng.randrange(32) for _ in range(DEALS)
    )
    assert chi2(counts, 32, DEALS) > chi2_critical(31)
