"""The ``truc-p2p`` command line's top-level parser: the sub-commands a list of
``register(subparsers)`` functions add, the developers' commands apart, ``--lang``
after any sub-command.  :func:`truc_p2p.cli.build_parser` gives it every command's
module (or the one run); ``resume`` reads a match's stored command line with it."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable
from typing import Any

from truc_p2p import __version__
from truc_p2p.i18n import LANGUAGES, _

__all__ = ["DEVELOPER_COMMANDS", "command_parser"]


def command_parser(registers: Iterable[Callable[[Any], None]]) -> argparse.ArgumentParser:
    """The top-level argument parser with the sub-commands that ``registers`` add
    (each one a module's ``register(subparsers)``)."""
    parser = argparse.ArgumentParser(
        prog="truc-p2p",
        description=_("Play Le Truc peer to peer with a verifiable, dealerless shuffle."),
        epilog=_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"truc-p2p {__version__}",
        help=_("show program's version number and exit"),
    )
    parser.add_argument("--lang", metavar="CODE", help=_lang_help())
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for register in registers:
        register(subparsers)
    # the developers' commands are named in the epilog, not among the player's
    subparsers._choices_actions = [
        a for a in subparsers._choices_actions if a.dest not in DEVELOPER_COMMANDS
    ]
    _lang_everywhere(parser)
    return parser


#: Commands for developers (measurements, other implementations): listed apart.
DEVELOPER_COMMANDS = ("bench", "interop")


def _epilog() -> str:
    """Where a player starts, and the developers' commands, under the command list."""
    lines = [
        _("start with: truc-p2p play (you against the computer, in this terminal)"),
        _("new to Le Truc? truc-p2p learn plays a guided first hand"),
    ]
    lines.append(
        _(
            "for developers: {commands} (truc-p2p COMMAND --help)",
            commands=", ".join(DEVELOPER_COMMANDS),
        )
    )
    return "\n".join(lines)


def _lang_everywhere(parser: argparse.ArgumentParser) -> None:
    """``--lang`` after any (nested) sub-command too; SUPPRESS keeps one given before."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                sub.add_argument(
                    "--lang", metavar="CODE", default=argparse.SUPPRESS, help=_lang_help()
                )
                _lang_everywhere(sub)


def _lang_help() -> str:
    return _(
        "language of the texts: {codes} (default: from LANGUAGE, LC_ALL, LC_MESSAGES or "
        "LANG, else en; truc-p2p languages lists them)",
        codes=", ".join(LANGUAGES),
    )
