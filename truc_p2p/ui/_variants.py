"""The two rule variants that make a longer game, as ``play`` offers them (issue 42):
on the web start panel and in the terminal's first question.

``value``: a refused "my rest" scores the hand, not the game (``--rest-refused
value``); ``best3``: a match of three games (``--match 3``).  Each has a name and
one line saying what it changes; the command applies the choice
(:func:`truc_p2p.cli._play.with_variants`).
"""

from __future__ import annotations

from typing import Any, Final

from truc_p2p.i18n import N_, _

__all__ = ["VARIANTS", "variants_json"]

#: The variants on offer: code -> (name, what it changes), marked for the catalogue.
VARIANTS: Final[dict[str, tuple[str, str]]] = {
    "value": (
        N_("refused “my rest” scores the hand"),
        N_("refusing “my rest” gives away the hand, not the whole game: the race to 12 goes on"),
    ),
    "best3": (
        N_("best of 3"),
        N_("a match of three games: the first to win two games wins"),
    ),
}


def variants_json(offered: frozenset[str] | None = None) -> list[dict[str, Any]]:
    """The variants (those ``offered``; ``None``: all), in the language in use, as the
    start panel shows them."""
    return [
        {"code": code, "name": _(name), "text": _(text)}
        for code, (name, text) in VARIANTS.items()
        if offered is None or code in offered
    ]
