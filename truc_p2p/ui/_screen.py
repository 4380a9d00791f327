"""What a person's screen does around a game: the terminal and the web table alike.

The game commands talk to a :class:`Screen` (``isinstance(player, Screen)``)
instead of asking an object for the methods it happens to have; a bot's
strategy is no screen, and nothing is shown for it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import trio

from truc_p2p.net import NetEvent
from truc_p2p.protocol import SessionEvent
from truc_p2p.rules import Action, Event, Game

__all__ = ["Screen"]


@runtime_checkable
class Screen(Protocol):
    """A person's player: picks moves (a :class:`~truc_p2p.net.Strategy`), sees every
    event (an :data:`~truc_p2p.net.EventHook`) and, between games, shows the match
    and asks for another."""

    #: Set while a game runs: the person asked to leave (web page, Ctrl-C confirmed).
    leave: trio.Event | None

    async def choose(self, game: Game, legal: tuple[Action, ...]) -> Action:
        """One of ``legal``, as the person picks it."""
        ...

    def __call__(self, event: Event | SessionEvent | NetEvent) -> None:
        """Show one event of the game."""
        ...

    async def ask_again(self, *, next_game: bool = False) -> bool:
        """After a game: play another?  ``next_game``: the next game of a match."""
        ...

    def new_game(self, match_line: str | None = None) -> None:
        """A fresh table for the next game (``match_line``: the match so far)."""
        ...

    def show_match(self, line: str, retell: Callable[[], str] | None = None) -> None:
        """The match score after a game (``retell`` says it again in another language)."""
        ...


if TYPE_CHECKING:  # mypy checks that both screens are one
    from truc_p2p.ui._tui import TerminalPlayer
    from truc_p2p.ui._web._player import WebPlayer

    _TERMINAL: type[Screen] = TerminalPlayer
    _WEB: type[Screen] = WebPlayer
