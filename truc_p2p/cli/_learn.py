"""``truc-p2p learn``: a guided first hand against a scripted tutor, in the terminal."""

from __future__ import annotations

import argparse
import os
from typing import Any

import trio

from truc_p2p.ui import StdinLines, _, run_lesson, use_ascii

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
    learn.set_defaults(func=_learn)


def _learn(args: argparse.Namespace) -> int:
    lines = StdinLines()
    echo = not os.isatty(0)
    try:
        return trio.run(lambda: run_lesson(lines, ascii=use_ascii(args.ascii), echo=echo))
    except KeyboardInterrupt:
        print()
        print(_("(lesson left: type truc-p2p learn to start it again)"))
        return 1
