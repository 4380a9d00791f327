"""``--web`` for ``play``, ``host`` and ``join``: the few hooks the commands call."""

from __future__ import annotations

import argparse
import ipaddress
import sys
import webbrowser
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol

import trio

from truc_p2p.cli._common import transcript_report
from truc_p2p.i18n import _
from truc_p2p.net import GameOutcome, Invite
from truc_p2p.ui import WebPlayer, bind_table, serve_table
from truc_p2p.ui import final_message as ui_final_message

#: ``final_message``'s default: verify the transcript now.
_VERIFY_NOW: Any = object()

__all__ = [
    "add_web_args",
    "bot_level",
    "final_message",
    "show_invite",
    "show_web_result",
    "web_player",
    "with_web",
]


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(_("not a port number: {text}", text=repr(text))) from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(
            _("must be from {low} to {high}, not {value}", low=0, high=65535, value=value)
        )
    return value


def add_web_args(parser: argparse.ArgumentParser) -> None:
    """``--web``, ``--web-port N`` and ``--no-browser``."""
    group = parser.add_argument_group(_("web table"))
    group.add_argument(
        "--web",
        action="store_true",
        help=_("play in your browser: serve the table on 127.0.0.1 and open it"),
    )
    group.add_argument(
        "--web-port",
        type=_port,
        default=0,
        metavar="N",
        help=_("port of the web table on 127.0.0.1 (default: a free one)"),
    )
    group.add_argument(
        "--no-browser", action="store_true", help=_("with --web: only print the table's URL")
    )


class WebOptions(Protocol):
    """The screen options the web table reads (a game command's :class:`Screen`)."""

    @property
    def web(self) -> bool: ...
    @property
    def web_port(self) -> int: ...
    @property
    def no_browser(self) -> bool: ...
    @property
    def json(self) -> bool: ...
    @property
    def lang(self) -> str | None: ...


def web_player(
    args: WebOptions, name: str, *, move_seconds: float | None, match_games: int
) -> WebPlayer | None:
    """The browser player when ``--web`` was given, else ``None``."""
    if not args.web:
        return None
    return WebPlayer(
        name,
        move_seconds=move_seconds,
        lang_pinned=args.lang is not None,
        match_games=match_games,
    )


def bot_level(
    bot: str | None, argv: Sequence[str], player: object, *, resumed: bool = False
) -> bool:
    """``play --web``: let the page choose the bot's level.  The end screen offers the
    levels for a rematch when the bot is one; returns whether the page's start panel
    must ask first (no ``--bot`` nor ``--think`` on the command line, not a match
    going on after a crash)."""
    if not isinstance(player, WebPlayer):
        return False
    from truc_p2p.bots import LEVELS

    words = [str(w).split("=", 1)[0] for w in argv]
    chosen = "--bot" in words or "--think" in words
    if bot in LEVELS:
        player.level = bot
    return player.level is not None and not chosen and not resumed


async def ask_bot_level(player: object, stop: trio.Event) -> bool:
    """The start panel: wait for the player's level (then in ``player.level``);
    ``False`` when the player left first."""
    return isinstance(player, WebPlayer) and await player.ask_level(stop)


def with_web(
    command: str,
    args: WebOptions,
    player: object,
    main: Callable[[trio.Event], Awaitable[int]],
) -> Callable[[trio.Event], Awaitable[int]]:
    """``main`` run beside the web table's server when ``player`` is a :class:`WebPlayer`."""
    if not isinstance(player, WebPlayer):
        if args.web:
            print(_("(--web ignored: a bot plays for you)"), file=sys.stderr)
        return main
    out = sys.stderr if args.json else sys.stdout

    async def run(stop: trio.Event) -> int:
        try:
            listeners = await bind_table(args.web_port)
        except OSError as exc:
            print(
                f"truc-p2p {command}: "
                + _(
                    "cannot serve the web table on 127.0.0.1 port {port}: {reason}",
                    port=args.web_port,
                    reason=exc.strerror or exc,
                ),
                file=sys.stderr,
            )
            return 2
        async with serve_table(player, listeners) as server:
            player.publisher = server
            print(_("web table: {url}", url=server.url), file=out, flush=True)
            print(_("(open it in a browser on this machine; the link is yours alone)"), file=out)
            if not args.no_browser and not await trio.to_thread.run_sync(
                webbrowser.open, server.url
            ):
                print(_("(no browser could be started: open the link yourself)"), file=out)
            # Leaving from the page while the opponent thinks stops the game like Ctrl-C.
            leaving = trio.Event()
            player.leave = leaving
            either = trio.Event()

            async def forward(event: trio.Event) -> None:
                await event.wait()
                either.set()

            try:
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(forward, stop)
                    nursery.start_soon(forward, leaving)
                    status = await main(either)
                    nursery.cancel_scope.cancel()
                await server.drain()
            finally:
                player.publisher = None
                player.leave = None
        return status

    return run


def final_message(outcome: GameOutcome, report: object = _VERIFY_NOW) -> dict[str, Any]:
    """The end screen (:func:`truc_p2p.ui.final_message`) with the transcript verified
    now (``report``: its :func:`transcript_report`, when it was verified already)."""
    path = outcome.transcript
    if report is _VERIFY_NOW:
        report = transcript_report(path) if path is not None else None
    return ui_final_message(outcome, report)


def show_invite(player: object, invite: Invite, *, relay: str | None = None) -> None:
    """``host --web``: put the invite on the page, with how a friend reaches us."""
    if not isinstance(player, WebPlayer):
        return
    hint: str | None
    if invite.relay is not None:
        hint = _(
            "registered with the relay {relay}: your friend can join from behind NAT, "
            "no port forwarding needed",
            relay=relay or f"{invite.relay[0]}:{invite.relay[1]}",
        )
    else:
        try:
            address = ipaddress.ip_address(invite.host)
        except ValueError:
            address = None
        # the page says the one road a person in a browser can take (a relay, no
        # router settings); the terminal that started it also names --advertise
        if address is not None and address.is_loopback:
            hint = _(
                "this invite only works on this machine; to play over the internet, host "
                "through a relay: {command}",
                command="truc-p2p host --web --relay HOST:PORT",
            )
        elif address is not None and address.is_private:
            hint = _(
                "this invite works on your local network; to play over the internet, host "
                "through a relay: {command}",
                command="truc-p2p host --web --relay HOST:PORT",
            )
        else:
            hint = None
    player.invite(str(invite), hint)


async def show_web_result(player: object, outcome: GameOutcome) -> None:
    """Send the end screen to the page (the transcript is verified in a thread)."""
    if isinstance(player, WebPlayer):
        path = outcome.transcript
        report = None if path is None else await trio.to_thread.run_sync(transcript_report, path)
        player.finish(final_message(outcome, report), retell=lambda: final_message(outcome, report))
