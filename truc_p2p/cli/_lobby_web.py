"""``truc-p2p join --relay RELAY --web``: the relay's lobby on a page in the browser.

The web table's server (:mod:`truc_p2p.ui._web._server`: loopback, token, Host and Origin
checks) serves ``lobby.html``; the program asks the relay again every
:data:`REFRESH` seconds and pushes the list (listings checked as in the
terminal, dropped ones named).  A join button sends ``{"type": "join",
"code": C}``: the page is told the game is being joined, the lobby server
stops, and ``join`` goes on with that game's invite on the web table.
"""

from __future__ import annotations

import signal
import sys
import webbrowser
from collections.abc import Awaitable, Callable
from functools import partial
from typing import TYPE_CHECKING, Any

import trio

from truc_p2p.cli._lobby import fetch_lobby_for_page
from truc_p2p.cli._lobby_words import describe_game, game_words, waiting_words

if TYPE_CHECKING:
    from truc_p2p.cli._game_args import GameOptions
from truc_p2p.history import PageLanguage, menu_json
from truc_p2p.i18n import _, ngettext
from truc_p2p.net import LobbyGame

__all__ = ["REFRESH", "LobbyPage", "pick_on_page"]

#: Seconds between two looks at the relay's lobby.
REFRESH = 5.0


class LobbyPage:
    """What the server shows: the latest list; what it hears: the game picked."""

    def __init__(
        self,
        relay: tuple[str, int] | None,
        label: str,
        *,
        lang_pinned: bool = False,
        opens_tab: bool = True,
        fetch: Fetch | None = None,
    ) -> None:
        self.relay = relay
        #: how a look gets the games (default: ask ``relay``'s lobby); ``join --nostr
        #: --web`` asks the Nostr relays instead
        self.fetch: Fetch = fetch or partial(_relay_fetch, relay)
        #: whether the table of the game picked opens in the browser (not --no-browser)
        self.opens_tab = opens_tab
        self.label = label
        self.server: Any = None
        self.language = PageLanguage(lang_pinned)
        self.games: list[LobbyGame] = []
        self.notes: list[str] = []
        #: the last look's status (``None``: not looked yet)
        self.status: str | None = None
        self.picked: LobbyGame | None = None
        self.picked_event = trio.Event()

    @property
    def message(self) -> dict[str, Any]:
        """The list in the language now in use (the notes and status of the last look
        are in the language of that look: the next one, a few seconds on, follows)."""
        status = self.status if self.status is not None else _("asking the relay…")
        return self._message(self.games, self.notes, status)

    def _message(self, games: list[LobbyGame], notes: list[str], status: str) -> dict[str, Any]:
        rows = []
        for g in games:
            rows.append(
                {
                    "code": pick_id(g),
                    "fingerprint": g.listing.fingerprint,
                    # one card per game, in a player's words: who, the game, how long
                    # the host has waited; the key's start last, for who checks it
                    "cells": [
                        g.listing.name,
                        game_words(g),
                        waiting_words(g.waiting),
                        _("key {fingerprint}…", fingerprint=g.listing.fingerprint[:16]),
                    ],
                }
            )
        return {
            "type": "lobby",
            "games": rows,
            "notes": notes,
            "status": status,
            "labels": {
                "title": _("open games at the relay {relay}", relay=self.label),
                "join": _("join"),
                "none": _("no open game yet: the list refreshes by itself"),
            },
            "menu": menu_json(),
        }

    def show(self, games: list[LobbyGame], notes: list[str], status: str) -> None:
        self.games = games
        self.notes = notes
        self.status = status
        if self.server is not None:
            self.server.publish(self.message)

    def greet(self, accept_language: str) -> None:
        self.language.greet(accept_language)

    def snapshot(self) -> list[dict[str, Any]]:
        return [self.message]

    def receive(self, message: dict[str, Any]) -> None:
        """``{"type": "join", "code": C}``: the game listed under code C, if still listed;
        the language menu: the list again in that language."""
        if self.language.choose(message):
            if self.server is not None:
                self.server.publish(self.message)
            return
        code = message.get("code")
        if message.get("type") != "join" or not isinstance(code, str) or self.picked:
            return
        for game in self.games:
            if pick_id(game) == code:
                self.picked = game
                if self.server is not None:
                    self.server.publish(
                        {
                            "type": "joining",
                            "text": _(
                                "joining {name}: the table opens in a new tab",
                                name=game.listing.name,
                            )
                            if self.opens_tab
                            else _(
                                "joining {name}: open the table at the address the terminal shows",
                                name=game.listing.name,
                            ),
                        }
                    )
                self.picked_event.set()
                return


#: One look at a lobby: (games, notes on dropped listings, why it failed or ``None``).
Fetch = Callable[[float], Awaitable[tuple[list[LobbyGame], list[str], str | None]]]


async def _relay_fetch(
    relay: tuple[str, int] | None, timeout: float
) -> tuple[list[LobbyGame], list[str], str | None]:
    assert relay is not None  # a page without a fetch of its own asks a relay
    return await fetch_lobby_for_page(relay, timeout)


def pick_id(game: LobbyGame) -> str:
    """What the page's join button names a game by: its relay code, or for a host
    listed on Nostr without a relay, its key fingerprint (one game per key there)."""
    return game.code or game.listing.fingerprint


def status_words(count: int, every: float) -> str:
    """The page's status line after a look at the relay: how many games are open."""
    return ngettext(
        "{n} open game, the list refreshes every {s} seconds",
        "{n} open games, the list refreshes every {s} seconds",
        count,
        s=f"{every:g}",
    )


async def refresh(page: LobbyPage, every: float = REFRESH, timeout: float = 10.0) -> None:
    """Ask the relay for its lobby now and every ``every`` seconds, forever."""
    while True:
        games, notes, problem = await page.fetch(timeout)
        status = problem or status_words(len(games), every)
        page.show(games, notes, status)
        await trio.sleep(every)


def pick_on_page(
    opts: GameOptions, relay: tuple[str, int] | None, *, fetch: Fetch | None = None
) -> LobbyGame | int:
    """Serve the lobby page until a game is picked (the game) or Ctrl-C (130);
    ``fetch`` (``join --nostr --web``) looks somewhere else than ``relay``."""
    from truc_p2p.ui import bind_table, serve_table

    out = opts.screen.info
    label = opts.network.relay or " ".join(opts.network.nostr or ())
    page = LobbyPage(
        relay,
        label,
        lang_pinned=opts.screen.lang is not None,
        opens_tab=not opts.screen.no_browser,
        fetch=fetch,
    )

    async def main() -> LobbyGame | int:
        try:
            listeners = await bind_table(opts.screen.web_port)
        except OSError as exc:
            print(
                _(
                    "truc-p2p {command}: cannot serve the page on port {port}: {reason}",
                    command="join",
                    port=opts.screen.web_port,
                    reason=exc.strerror or exc,
                ),
                file=sys.stderr,
            )
            return 2
        with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM, signal.SIGHUP) as signals:
            async with serve_table(page, listeners) as server, trio.open_nursery() as nursery:
                page.server = server
                url = server.url.replace("/?token=", "/lobby.html?token=")
                print(_("lobby: {url}", url=url), file=out, flush=True)
                if not opts.screen.no_browser:
                    await trio.to_thread.run_sync(webbrowser.open, url)
                nursery.start_soon(refresh, page)

                async def interrupted() -> None:
                    async for _signum in signals:
                        break
                    nursery.cancel_scope.cancel()

                nursery.start_soon(interrupted)
                await page.picked_event.wait()
                await server.drain()
                nursery.cancel_scope.cancel()
        if page.picked is None:
            return 130
        print(
            _("picked {game}", game=describe_game(page.picked)),
            file=out,
            flush=True,
        )
        return page.picked

    return trio.run(main)
