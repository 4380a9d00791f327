"""The two rule variants that make a longer game, as ``play`` offers them (issue 42):
on the web start panel and in the terminal's first question.

``value``: a refused "my rest" scores the hand, not the game (``--rest-refused
value``); ``best3``: a match of three games (``--match 3``).  Each has a name and
one line saying what it changes; the command applies the choice
(:func:`truc_p2p.cli._play.with_variants`).
"""

from __future__ import annotations

import functools
from typing import Any, Final

from truc_p2p.i18n import N_, _, ngettext

__all__ = ["VARIANTS", "rules_words", "variants_json"]

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


def rules_words(
    *, target: int | None, rest: str | None, ladder: str | None, match: int | None = None
) -> str:
    """The rules a game is played with, in a player's words and the language in use
    (a joiner's first lines, the lobby, the replay's header): the points to play to,
    what refusing "my rest" costs, an uncommon raise ladder, a match; ``None``: not
    said."""
    parts = []
    if target is not None:
        parts.append(ngettext("to {n} point", "to {n} points", target))
    if rest == "game":
        parts.append(_("refusing “my rest” loses the game"))
    elif rest == "value":
        parts.append(_("refusing “my rest” costs only the points at stake"))
    if ladder == "even":
        parts.append(_("raises go 1, 2, 4, 6, 8…"))
    if match is not None and match > 1:
        parts.append(_("match of {n} games", n=match))
    return functools.reduce(_and_then, parts) if parts else ""


def _and_then(first: str, second: str) -> str:
    # Translators: the separator between two of a game's rules ("to 12 points;
    # refusing “my rest” loses the game"); French puts a space before the semicolon
    return _("{first}; {second}", first=first, second=second)
