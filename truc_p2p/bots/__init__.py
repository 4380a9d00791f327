"""Bots that play through the rules engine's public interface only.

``make_bot(name, seed)`` builds one of :data:`BOT_NAMES`; every bot follows
the :class:`Bot` protocol (``choose(game) -> Action`` on its own view) and is
deterministic when seeded.  :func:`play_local_game` runs a bot-versus-bot game
in memory.
"""

from __future__ import annotations

from typing import Final

from truc_p2p.bots._base import Bot, RandomBot
from truc_p2p.bots._heuristic import HeuristicBot
from truc_p2p.bots._local import ViewsOutOfSyncError, play_local_game

__all__ = [
    "BOT_NAMES",
    "Bot",
    "HeuristicBot",
    "RandomBot",
    "ViewsOutOfSyncError",
    "make_bot",
    "play_local_game",
]

#: The names :func:`make_bot` accepts.
BOT_NAMES: Final[tuple[str, ...]] = ("random", "heuristic")


def make_bot(name: str, seed: int | None = None) -> Bot:
    """Build the bot called ``name`` (one of :data:`BOT_NAMES`)."""
    if name == "random":
        return RandomBot(seed)
    if name == "heuristic":
        return HeuristicBot(seed)
    raise ValueError(f"unknown bot {name!r}; choose from {', '.join(BOT_NAMES)}")
