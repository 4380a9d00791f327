"""The protocol's default clocks, trio-free: the game loop's (:mod:`._play_options`)
and the page's (:mod:`truc_p2p.page`), one table."""

from __future__ import annotations

__all__ = [
    "DEFAULT_AWAY_BUDGET",
    "DEFAULT_BOT_TIMEOUT",
    "DEFAULT_DEAD_AFTER",
    "DEFAULT_GRACE",
    "DEFAULT_HEARTBEAT",
    "DEFAULT_HELLO_TIMEOUT",
    "DEFAULT_TURN_TIMEOUT",
]

#: Seconds the opponent may take for a move when it may be a human.
DEFAULT_TURN_TIMEOUT = 300.0
#: Seconds a bot opponent may take (``truc-p2p demo``).
DEFAULT_BOT_TIMEOUT = 30.0
#: Seconds the peer may take to send its hello after connecting.
DEFAULT_HELLO_TIMEOUT = 10.0
#: Seconds a disconnected opponent has to come back before the game is abandoned.
DEFAULT_GRACE = 120.0
#: Seconds the opponent may be away over a whole game, all drops together (wire.md 13.4).
DEFAULT_AWAY_BUDGET = 600.0
#: Seconds of silence on our side after which we send a heartbeat (wire.md 13.3).
DEFAULT_HEARTBEAT = 5.0
#: Seconds without any frame from the peer after which its link counts as dead.
DEFAULT_DEAD_AFTER = 20.0
