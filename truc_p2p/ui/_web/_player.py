"""The browser player: a :class:`~truc_p2p.net.Strategy` and an event hook, like
the terminal player, whose screen and keyboard are a page.  Its model (the table,
the log, the messages) is :class:`~._feed.TableFeed`, shared with the site's
in-page game; this module adds only the trio waits.

Theory of operation
-------------------
The player keeps a mirror of its own view of the game (a rules engine with
``view=me``, fed the same events the session produced), so the page can be
updated when the opponent moves, not only when it is our turn.  At our turn
the session's own view replaces the mirror.  Every change is pushed to the
page as one ``state`` message holding the whole table; the page redraws
from it, so a reloaded page only needs the last one.

Messages to the page (JSON objects with a ``type``): ``texts`` (the page's
fixed texts, first, once per connection), ``invite`` (``host --web``: the
invite and a hint, until the game starts), ``state``, ``log``
(one line: a move, a trick, a round), ``log_all`` (the whole log again, after a
change of language), ``peer_disconnected`` /
``peer_reconnected`` (the reconnect countdown), ``final`` (the end screen),
``levels`` (``play``: the start panel's bot levels, shown while ``ask``).
A log line's ``who`` is ``me``, ``opp``, ``info`` or ``game`` (the heading that
starts each game of a match or after a rematch).
The page ignores types it does not know.  Messages from the page: ``act``
(``turn`` and ``action`` text) and ``quit`` (``turn``, or none while the
opponent thinks: the player leaves at once); a stale turn or an action that
is not legal is refused with a ``notice``.  ``turn`` is the version of the set
of choices the page was shown: it grows with every turn for the player's whole
life (a rematch and the games of a match go on counting), so a click meant for
an earlier turn, hand or game never lands in a later one.  The page itself
ignores input for :data:`GUARD_SECONDS` after the hand or the choices change
(``table.js``), as the terminal drops a line typed before the last trick ended.
Also ``lang`` (the language menu), ``again`` (``yes``, and the bot's ``level``
for a rematch) and ``level`` (the start panel's choice).
"""

from __future__ import annotations

from typing import Any

import trio

from truc_p2p.net import QuitGame
from truc_p2p.rules import Action, Game

from ._feed import GUARD_SECONDS, LOG_SIZE, Publisher, TableFeed

__all__ = ["GUARD_SECONDS", "LOG_SIZE", "Publisher", "WebPlayer"]


class _Quit:
    """The page asked to leave the game."""


#: Seconds without any page connected after which a pending "play again?" is a no.
PAGE_GONE_SECONDS = 5.0


class WebPlayer(TableFeed):
    """A person playing in the browser: ``choose`` waits for a click, ``__call__``
    takes the game's events.  ``move_seconds`` is the per-move timeout shown."""

    def __init__(
        self,
        my_name: str,
        *,
        move_seconds: float | None = None,
        lang_pinned: bool = False,
        match_games: int = 1,
    ) -> None:
        super().__init__(
            my_name,
            move_seconds=move_seconds,
            lang_pinned=lang_pinned,
            match_games=match_games,
            now=self._trio_now,
        )
        self._choice: Action | _Quit | None = None
        self._answered = trio.Event()
        self._again: trio.Event | None = None
        self._again_yes = False
        self._level_chosen: trio.Event | None = None
        #: Set when the player leaves while the opponent thinks (the command passes it
        #: to the game loop as its ``stop``: a signed quit, as with Ctrl-C).
        self.leave: trio.Event | None = None
        #: Set when the player concedes this game of a match between turns (the command
        #: gives it to the game loop as this game's own stop).
        self.conceding: trio.Event | None = None

    @staticmethod
    def _trio_now() -> float:
        try:
            return trio.current_time()
        except RuntimeError:  # outside trio (unit tests of the encoding)
            return 0.0

    # -- the answers, as trio wake-ups ---------------------------------------------

    def _picked(self, choice: Action | None) -> None:
        self._choice = _Quit() if choice is None else choice
        self._answered.set()

    def _answer_again(self, yes: bool) -> None:
        if self._again is not None:
            self._again_yes = yes
            self._again.set()

    def _answer_level(self) -> None:
        if self._level_chosen is not None:
            self._level_chosen.set()

    def _concede_now(self) -> bool:
        if self.conceding is None:
            return False
        self.conceding.set()
        return True

    def _leave_now(self) -> bool:
        if self.leave is None:
            return False
        self.leave.set()
        return True

    # -- the strategy ----------------------------------------------------------------

    async def choose(self, game: Game, legal: tuple[Action, ...]) -> Action:
        """Show the table with buttons for ``legal`` and wait for the page's answer."""
        self._choice = None
        self._answered = trio.Event()
        self.offer(game, legal)
        try:
            await self._answered.wait()
        finally:
            self.withdraw()
        picked = self._choice
        if isinstance(picked, _Quit) or picked is None:
            raise QuitGame("the player left the game")
        return picked

    def goto(self, url: str) -> None:
        """Send the page to another table (``learn --web``'s game after the lesson)."""
        self._send({"type": "goto", "url": url})

    async def ask_level(self, stop: trio.Event) -> bool:
        """``play`` without ``--bot``: the page's start panel offers the levels (with
        :attr:`level` chosen); wait until the player starts (``True``: :attr:`level` is
        the choice) or ``stop`` is set (``False``)."""
        chosen = self._level_chosen = trio.Event()
        self.show_levels(True)
        while not chosen.is_set() and not stop.is_set():
            with trio.move_on_after(0.25):
                await chosen.wait()
        self._level_chosen = None
        self.show_levels(False)
        return chosen.is_set()

    async def ask_again(self, *, next_game: bool = False) -> bool:
        """The end screen offers "play again" (``next_game``: "next game" of a match);
        wait for the page's answer.  A rematch against a bot offers its levels too
        (the choice is in :attr:`level` after a yes)."""
        self._again = trio.Event()
        self._again_yes = False
        self.offer_again(next_game=next_game)
        gone_since: float | None = None
        while not self._again.is_set():
            # A tab closed at the end screen (no page for a while) means no.
            clients: Any = getattr(self.publisher, "clients", None)
            if isinstance(clients, int) and clients == 0:
                gone_since = self._now() if gone_since is None else gone_since
                if self._now() - gone_since >= PAGE_GONE_SECONDS:
                    break
            else:
                gone_since = None
            with trio.move_on_after(0.25):
                await self._again.wait()
        self._again = None
        self.asking_again = False
        return self._again_yes
