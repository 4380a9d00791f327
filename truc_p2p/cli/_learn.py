"""``truc-p2p learn``: a guided first hand against a scripted tutor, in the terminal
or (``--web``) on the web table."""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from truc_p2p.cli._parser import COMMAND_HELP
from truc_p2p.i18n import _, current, use_ascii

if TYPE_CHECKING:
    import trio

__all__ = ["register"]


def register(subparsers: Any) -> None:
    learn = subparsers.add_parser(
        "learn",
        help=_(COMMAND_HELP["learn"]),
        description=_(
            "Play a short guided hand against a scripted tutor: the card order, a redeal, a "
            "spoiled trick, “2 more?” and “my rest”, one step at a time. The deal is fixed "
            "and nothing goes over the network: the lesson is about the rules."
        ),
    )
    learn.add_argument("--ascii", action="store_true", help=_("plain-ASCII cards (7S, not 7♠)"))
    learn.add_argument(
        "--web", action="store_true", help=_("play the lesson on the web table, in a browser")
    )
    learn.add_argument("--web-port", type=int, default=0, help=argparse.SUPPRESS)
    learn.add_argument("--no-browser", action="store_true", help=argparse.SUPPRESS)
    learn.set_defaults(func=_learn)


@dataclass(frozen=True)
class _WebArgs:
    """What the web table reads of a game command's options (see ``cli._web``)."""

    web_port: int
    no_browser: bool
    lang: str | None
    web: bool = True
    json: bool = False


def _learn(args: argparse.Namespace) -> int:
    import trio  # here, not at the top: ``learn --help`` stays light

    from truc_p2p.ui import StdinLines, run_lesson

    try:
        if args.web:
            return _learn_web(args)
        lines = StdinLines()
        echo = not os.isatty(0)
        return trio.run(lambda: run_lesson(lines, ascii=use_ascii(args.ascii), echo=echo))
    except (KeyboardInterrupt, BaseExceptionGroup) as exc:  # Ctrl-C, also inside a nursery
        if isinstance(exc, BaseExceptionGroup) and exc.split(KeyboardInterrupt)[1] is not None:
            raise
        print()
        return 1


#: Where ``play --web`` prints its table's address (in any language).
_TABLE_URL = re.compile(r"(http://127\.0\.0\.1:\d+/\?token=[\w-]+)")


def _start_game(level: str, lang: str) -> tuple[subprocess.Popen[str], str] | None:
    """``truc-p2p play --web`` against ``level``, its page not opened (this one goes
    there): the process and its table's address, ``None`` if it printed none."""
    # this very program (its package, run with -m), as a process of its own
    command = [sys.executable, "-m", str(__package__), "play", "--web", "--no-browser"]
    command += ["--bot", level, "--lang", lang]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, encoding="utf-8")
    assert proc.stdout is not None
    for line in proc.stdout:
        found = _TABLE_URL.search(line)
        if found:
            return proc, found.group(1)
        print(line, end="")
    proc.wait()
    return None


def _follow(proc: subprocess.Popen[str]) -> int:
    """The game's own lines, then its exit status (Ctrl-C reaches it too: one group)."""
    assert proc.stdout is not None
    try:
        for line in proc.stdout:
            print(line, end="", flush=True)
        return proc.wait()
    except KeyboardInterrupt:
        return proc.wait()


def _learn_web(args: argparse.Namespace) -> int:
    import trio

    from truc_p2p.cli._web import with_web
    from truc_p2p.ui import WebPlayer, lesson_end, run_web_lesson

    lang = getattr(args, "lang", None)
    player = WebPlayer(_("you"), lang_pinned=lang is not None)
    game: list[subprocess.Popen[str]] = []  # the game the lesson led to

    async def next_game() -> None:
        """The end panel: a game against the level the learner picks, on this page."""
        player.level = "medium"
        player.finish(lesson_end())
        if not await player.ask_again() or player.level is None:
            return
        # the game speaks the language the page chose last
        started = await trio.to_thread.run_sync(_start_game, player.level, current())
        if started is not None:
            game.append(started[0])
            player.goto(started[1])

    async def main(stop: trio.Event) -> int:
        async with trio.open_nursery() as nursery:
            status = 1

            async def lesson() -> None:
                nonlocal status
                status = await run_web_lesson(player)
                if not status:
                    await next_game()
                nursery.cancel_scope.cancel()

            async def stopped() -> None:
                await stop.wait()
                nursery.cancel_scope.cancel()

            nursery.start_soon(lesson)
            nursery.start_soon(stopped)
        if status:
            print(_("(lesson left: type truc-p2p learn to start it again)"))
        return status

    web = _WebArgs(
        web_port=args.web_port, no_browser=args.no_browser, lang=getattr(args, "lang", None)
    )

    async def top() -> int:
        return await with_web("learn", web, player, main)(trio.Event())

    status = trio.run(top)
    return _follow(game[0]) if game else status
