"""Test matrices whose first cells run in the fast loop and the rest in CI only.

``pytest -m "not slow"`` (docs/developing.md) plays the first ``fast`` values of a
parametrization; the others are marked ``slow``, and CI plays every cell.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import pytest


def fast_first(
    values: Iterable[Any], *, fast: int = 1, ids: Callable[[Any], str] | None = None
) -> list[Any]:
    """``values`` as ``pytest.param``\\ s, all after the first ``fast`` marked ``slow``.

    A tuple value is spread over the parametrization's names, as pytest does.
    """
    cells = []
    for index, value in enumerate(values):
        marks = () if index < fast else (pytest.mark.slow,)
        args = value if isinstance(value, tuple) else (value,)
        cells.append(pytest.param(*args, marks=marks, id=ids(value) if ids else None))
    return cells
