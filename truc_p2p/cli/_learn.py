"""``truc-p2p learn``: a guided first hand against a scripted tutor, in the terminal
or (``--web``) on the web table."""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass
from typing import Any

import trio

from truc_p2p.i18n import _, use_ascii
from truc_p2p.ui import StdinLines, run_lesson

__all__ = ["register"]


def register(subparsers: Any) -> None:
    learn = subparsers.add_parser(
        "learn",
        help=_("play a guided first hand to learn the rules"),
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


def _learn_web(args: argparse.Namespace) -> int:
    from truc_p2p.cli._web import with_web
    from truc_p2p.ui import WebPlayer, run_web_lesson

    player = WebPlayer(_("you"), lang_pinned=getattr(args, "lang", None) is not None)

    async def main(stop: trio.Event) -> int:
        async with trio.open_nursery() as nursery:
            status = 1

            async def lesson() -> None:
                nonlocal status
                status = await run_web_lesson(player)
                if status:
                    nursery.cancel_scope.cancel()
                else:  # the table stays up to be read until the page leaves or Ctrl-C
                    print(_("(the lesson is over: leave the table in the page, or Ctrl-C)"))

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

    return trio.run(top)
