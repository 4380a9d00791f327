"""``--web`` for ``play``, ``host`` and ``join``: the few hooks the commands call."""

from __future__ import annotations

import argparse
import sys
import webbrowser
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import trio

from truc_p2p.net import GameOutcome
from truc_p2p.protocol import TranscriptFormatError, verify_transcript
from truc_p2p.transcript import read_transcript

from ._player import WebPlayer
from ._server import bind_table, serve_table

__all__ = ["add_web_args", "final_message", "show_web_result", "web_player", "with_web"]


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError("must be in 0..65535")
    return value


def add_web_args(parser: argparse.ArgumentParser) -> None:
    """``--web``, ``--web-port N`` and ``--no-browser``."""
    group = parser.add_argument_group("web table")
    group.add_argument(
        "--web",
        action="store_true",
        help="play in your browser: serve the table on 127.0.0.1 and open it",
    )
    group.add_argument(
        "--web-port",
        type=_port,
        default=0,
        metavar="N",
        help="port of the web table on 127.0.0.1 (default: a free one)",
    )
    group.add_argument(
        "--no-browser", action="store_true", help="with --web: only print the table's URL"
    )


def web_player(args: argparse.Namespace, name: str) -> WebPlayer | None:
    """The browser player when ``--web`` was given, else ``None``."""
    if not getattr(args, "web", False):
        return None
    return WebPlayer(name, move_seconds=getattr(args, "timeout", None))


def with_web(
    args: argparse.Namespace, player: object, main: Callable[[trio.Event], Awaitable[int]]
) -> Callable[[trio.Event], Awaitable[int]]:
    """``main`` run beside the web table's server when ``player`` is a :class:`WebPlayer`."""
    if not isinstance(player, WebPlayer):
        if getattr(args, "web", False):
            print("(--web ignored: a bot plays for you)", file=sys.stderr)
        return main
    out = sys.stderr if getattr(args, "json", False) else sys.stdout

    async def run(stop: trio.Event) -> int:
        try:
            listeners = await bind_table(args.web_port)
        except OSError as exc:
            print(
                f"truc-p2p {args.command}: cannot serve the web table on 127.0.0.1 port "
                f"{args.web_port}: {exc.strerror or exc}",
                file=sys.stderr,
            )
            return 2
        async with serve_table(player, listeners) as server:
            player.publisher = server
            print(f"web table: {server.url}", file=out, flush=True)
            print("(open it in a browser on this machine; the link is yours alone)", file=out)
            if not args.no_browser and not await trio.to_thread.run_sync(
                webbrowser.open, server.url
            ):
                print("(no browser could be started: open the link yourself)", file=out)
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


def final_message(outcome: GameOutcome) -> dict[str, Any]:
    """The end screen: result, co-signed status and the verifier's verdict."""
    me = outcome.me
    names = outcome.names
    scores = outcome.scores
    if outcome.valid and outcome.winner is not None:
        headline = "You win!" if outcome.winner is me else f"{names[outcome.winner]} wins"
    else:
        headline = "Game not finished"
    verdict: dict[str, Any] | None = None
    path = outcome.transcript
    if path is not None:
        verdict = _verify(path)
    return {
        "headline": headline,
        "message": outcome.message,
        "outcome": outcome.end.value,
        "won": outcome.valid and outcome.winner is me,
        "score": {"me": scores[me], "opp": scores[me.other]} if scores is not None else None,
        "hands": outcome.hands,
        "cosigned": outcome.valid,
        "verdict": verdict,
        "transcript": str(path) if path is not None else None,
    }


def _verify(path: Path) -> dict[str, Any]:
    try:
        report = verify_transcript(read_transcript(path))
    except (OSError, TranscriptFormatError) as exc:
        return {"valid": False, "summary": f"cannot read the transcript: {exc}"}
    return {"valid": report.valid, "summary": report.summary()}


async def show_web_result(player: object, outcome: GameOutcome) -> None:
    """Send the end screen to the page (the transcript is verified in a thread)."""
    if isinstance(player, WebPlayer):
        final = await trio.to_thread.run_sync(final_message, outcome)
        player.finish(final)
