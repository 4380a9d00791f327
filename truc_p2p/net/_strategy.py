"""The local player of a networked game: whatever picks our moves, bot or person.

:func:`~._play.play_game` asks its :class:`Strategy` for an action on each
of our turns and keeps reading the peer meanwhile; :class:`BotStrategy`
makes a synchronous bot one, thinking in a worker thread when the bot says it
thinks long (:func:`truc_p2p.bots.thinks_in_thread`).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import trio

from truc_p2p.bots import Bot, thinks_in_thread
from truc_p2p.net._play_endings import CONCEDE_DETAIL, conceded
from truc_p2p.rules import Action, Game

__all__ = ["CONCEDE_DETAIL", "BotStrategy", "QuitGame", "Strategy", "conceded", "concedes"]


def concedes(strategy: object) -> bool:
    """Whether the local player leaving now concedes only this game of a match (its
    ``concedes`` attribute, set by the terminal when the player chose so)."""
    return getattr(strategy, "concedes", False) is True


class QuitGame(Exception):
    """Raise from :meth:`Strategy.choose` to leave: a signed ``quit`` is sent."""


@runtime_checkable
class Strategy(Protocol):
    """The local player: bot, terminal UI or anything else that picks moves."""

    async def choose(self, game: Game, legal: tuple[Action, ...]) -> Action:
        """Return one of ``legal``; ``game`` is this player's view (a copy)."""
        ...


class BotStrategy:
    """Adapts a synchronous :class:`~truc_p2p.bots.Bot` to :class:`Strategy`."""

    def __init__(self, bot: Bot, *, threaded: bool | None = None) -> None:
        self.bot = bot
        #: Think in a worker thread (default: when the bot says it thinks long), so the
        #: game loop keeps reading the peer -- an abort, a dropped link -- while it thinks.
        self.threaded = thinks_in_thread(bot) if threaded is None else threaded

    async def choose(self, game: Game, legal: tuple[Action, ...]) -> Action:
        if self.threaded:
            return await trio.to_thread.run_sync(self.bot.choose, game, abandon_on_cancel=True)
        await trio.lowlevel.checkpoint()
        return self.bot.choose(game)
