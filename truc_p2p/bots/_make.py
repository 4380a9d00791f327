"""Bot names: ``random``, ``heuristic``, ``search[:LEVEL]`` and how to build them.

A search bot's name may carry its budget: ``search:fast``/``search:default``/
``search:strong`` (fixed iteration budgets, reproducible under a seed),
``search:N`` (N iterations per decision) or ``search:Ss`` (S seconds of
thinking per decision, e.g. ``search:0.5s``).
"""

from __future__ import annotations

import math
from typing import Final

from truc_p2p.bots._base import Bot, RandomBot
from truc_p2p.bots._heuristic import HeuristicBot
from truc_p2p.bots._search import STRENGTHS, SearchBot, Strength

__all__ = ["BOT_NAMES", "make_bot", "parse_bot_name", "with_think"]

#: The names :func:`make_bot` accepts (plus ``search:N`` and ``search:Ss``).
BOT_NAMES: Final[tuple[str, ...]] = (
    "random",
    "heuristic",
    "search",
    "search:fast",
    "search:strong",
)

#: The strongest bot that answers in time: the default opponent of ``truc-p2p play``.
DEFAULT_OPPONENT: Final = "search"


def parse_bot_name(name: str) -> tuple[str, Strength | None]:
    """``(kind, budget)`` of a bot name; raises :class:`ValueError` for unknown names.

    ``budget`` is ``None`` except for the search bot.
    """
    if not isinstance(name, str):
        raise ValueError(f"a bot name must be a str, not {type(name).__name__}")
    kind, colon, level = name.partition(":")
    if kind in ("random", "heuristic") and not colon:
        return kind, None
    if kind == "search":
        if not colon:
            return kind, STRENGTHS["default"]
        if level in STRENGTHS:
            return kind, STRENGTHS[level]
        try:
            if level.endswith("s"):
                seconds = float(level[:-1])
                if math.isfinite(seconds) and seconds > 0:
                    return kind, Strength(iterations=1, think=seconds)
            elif level.isdigit() and int(level) > 0:
                return kind, Strength(iterations=int(level))
        except ValueError:
            pass
        raise ValueError(
            f"bad search level {level!r}: use {', '.join(STRENGTHS)}, "
            "a number of iterations (search:5000) or seconds (search:0.5s)"
        )
    raise ValueError(f"unknown bot {name!r}; choose from {', '.join(BOT_NAMES)}")


def with_think(name: str, seconds: float) -> str:
    """The search bot ``name`` made to think ``seconds`` per decision."""
    kind, _ = parse_bot_name(name)
    if kind != "search":
        raise ValueError(f"only a search bot thinks for a set time, not {name!r}")
    return f"search:{seconds:g}s"


def make_bot(name: str, seed: int | None = None) -> Bot:
    """Build the bot called ``name`` (see :data:`BOT_NAMES`), seeded for reproducibility."""
    kind, budget = parse_bot_name(name)
    if kind == "random":
        return RandomBot(seed)
    if kind == "heuristic":
        return HeuristicBot(seed)
    assert budget is not None
    bot = SearchBot(seed, iterations=budget.iterations, think=budget.think)
    bot.name = name
    return bot
