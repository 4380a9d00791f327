"""The ``truc-p2p`` command line's top-level parser: the sub-commands a list of
``register(subparsers)`` functions add, the developers' commands apart, ``--lang``
after any sub-command.  :func:`truc_p2p.cli.build_parser` gives it every command's
module (or the one run); ``resume`` reads a match's stored command line with it."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable
from typing import Any, Final

from truc_p2p import __version__
from truc_p2p.i18n import LANGUAGES, N_, _

__all__ = ["COMMAND_HELP", "DEVELOPER_COMMANDS", "command_parser", "top_parser"]

#: Each command's line in ``truc-p2p --help``: the top-level help is built from this
#: table alone, without importing any command's module.
COMMAND_HELP: Final[dict[str, str]] = {
    "demo": N_("watch two bots play through the full protocol over loopback TCP"),
    "host": N_("wait for an opponent and print an invite for them"),
    "join": N_("join a host with its invite, or pick a game on the LAN"),
    "resume": N_("finish a game whose process died, from its transcript"),
    "play": N_("play against a bot on this machine (over loopback TCP)"),
    "hosts": N_("list the games hosted on this LAN"),
    "lobby": N_("list the open games of a relay's lobby"),
    "relay": N_("run a rendezvous and relay server (on a machine with a public address)"),
    "identity": N_("create or show your long-lived key and its fingerprint"),
    "verify": N_("verify a game transcript: signatures, chain, rules, deck audit, result"),
    "games": N_(
        "list the games in a folder: date, opponent, result, verified; record per opponent"
    ),
    "replay": N_(
        "replay a game from its transcript, hand by hand (only the cards that were shown)"
    ),
    "review": N_("where did I lose it? your decisions in a game against the solved round"),
    "export": N_("print a game as a short plain-text record (protocol_spec/record.md)"),
    "bench": N_("run a benchmark and print figures"),
    "languages": N_("list the languages of the game and how complete each one is"),
    "interop": N_("test another implementation against this one, case by case"),
    "learn": N_("play a guided first hand to learn the rules"),
    "site": N_("build the web client (the site) or check a deployed one"),
}


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


def top_parser() -> argparse.ArgumentParser:
    """The top-level parser alone, for ``truc-p2p --help``, no command or an unknown
    one: each command a bare sub-parser with its line of :data:`COMMAND_HELP`, so that
    no command's module is imported (``truc-p2p COMMAND`` builds the real one)."""
    return command_parser([_bare_commands])


def _bare_commands(subparsers: Any) -> None:
    for name, text in COMMAND_HELP.items():
        subparsers.add_parser(name, help=_(text))


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
