"""Bots that play through the rules engine's public interface only.

``make_bot(name, seed)`` builds one of :data:`BOT_NAMES`: the levels for
people (:data:`LEVELS`: easy, medium, hard, strongest), random, heuristic,
the earlier search bot and the expert bot at several strengths, and the
exploiters of the exploit harness (:mod:`truc_p2p.bots._exploit`); every bot follows
the :class:`Bot` protocol (``choose(game) -> Action`` on its own view) and is
deterministic when seeded.  Every bot ``make_bot`` builds but ``random`` answers
through one gate (:mod:`truc_p2p.bots._gate`): it never gives away a round it
cannot lose (``easy`` now and then, on purpose).  :func:`play_local_game` runs a
bot-versus-bot game in memory.
"""

from __future__ import annotations

from truc_p2p.bots._base import Bot, RandomBot, thinks_in_thread
from truc_p2p.bots._heuristic import HeuristicBot
from truc_p2p.bots._local import ViewsOutOfSyncError, play_local_game
from truc_p2p.bots._make import (
    BOT_NAMES,
    DEFAULT_OPPONENT,
    LEVELS,
    make_bot,
    parse_bot_name,
    with_think,
)
from truc_p2p.bots._review import Judged, review_game
from truc_p2p.bots._search import STRENGTHS, SearchBot, SearchOptions, Strength

__all__ = [
    "BOT_NAMES",
    "DEFAULT_OPPONENT",
    "LEVELS",
    "STRENGTHS",
    "Bot",
    "HeuristicBot",
    "Judged",
    "RandomBot",
    "SearchBot",
    "SearchOptions",
    "Strength",
    "ViewsOutOfSyncError",
    "make_bot",
    "parse_bot_name",
    "play_local_game",
    "review_game",
    "thinks_in_thread",
    "with_think",
]
