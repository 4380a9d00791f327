"""Bots that play through the rules engine's public interface only.

``make_bot(name, seed)`` builds one of :data:`BOT_NAMES` (random, heuristic,
and the search bot at several strengths); every bot follows
the :class:`Bot` protocol (``choose(game) -> Action`` on its own view) and is
deterministic when seeded.  :func:`play_local_game` runs a bot-versus-bot game
in memory.
"""

from __future__ import annotations

from truc_p2p.bots._base import Bot, RandomBot
from truc_p2p.bots._heuristic import HeuristicBot
from truc_p2p.bots._local import ViewsOutOfSyncError, play_local_game
from truc_p2p.bots._make import BOT_NAMES, DEFAULT_OPPONENT, make_bot, parse_bot_name, with_think
from truc_p2p.bots._search import STRENGTHS, SearchBot, Strength

__all__ = [
    "BOT_NAMES",
    "DEFAULT_OPPONENT",
    "STRENGTHS",
    "Bot",
    "HeuristicBot",
    "RandomBot",
    "SearchBot",
    "Strength",
    "ViewsOutOfSyncError",
    "make_bot",
    "parse_bot_name",
    "play_local_game",
    "with_think",
]
