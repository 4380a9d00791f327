"""Pearson's chi-squared statistic and its critical value, for the uniformity tests
of both decks."""

from __future__ import annotations

import math
from collections import Counter


def chi2_critical(df: int, z: float = 3.719) -> float:
    """Upper 1e-4 quantile of chi-square (Wilson-Hilferty approximation)."""
    c = 2 / (9 * df)
    return float(df * (1 - c + z * math.sqrt(c)) ** 3)


def chi2(counts: Counter[int], categories: int, total: int) -> float:
    expected = total / categories
    return sum((counts[c] - expected) ** 2 / expected for c in range(categories))
