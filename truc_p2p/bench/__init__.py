"""The ``truc-p2p bench`` measurements: deck, game and text benchmarks.

The command itself is :mod:`truc_p2p.cli._bench`, which imports these names from
``truc_p2p.bench`` only.  Each is imported from its module on first use (PEP
562), as in :mod:`truc_p2p.ui`: a benchmark loads only what it measures.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._deck import main as deck_main
    from ._game import main as game_main
    from ._text import Column, table

__all__ = ["Column", "deck_main", "game_main", "table"]

#: Each public name -> its private module and its name there.
_HOME: dict[str, tuple[str, str]] = {
    "Column": ("_text", "Column"),
    "table": ("_text", "table"),
    "deck_main": ("_deck", "main"),
    "game_main": ("_game", "main"),
}


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, attr = _HOME[name]
    return getattr(importlib.import_module(f"{__name__}.{module}"), attr)


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
