"""The ``truc-p2p`` command line.

Each sub-command lives in its own private module exposing
``register(subparsers)``; ``main`` wires them together.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from truc_p2p.cli._parser import command_parser, top_parser
from truc_p2p.i18n import LANGUAGES, UnknownLanguage, _, install_argparse, resolve, use_language

__all__ = ["build_parser", "main"]


#: Sub-command -> the module that registers it (the four game commands together:
#: they pass each other their roads).  Only the module of the command being run is
#: imported (``truc-p2p verify`` never loads trio or the network stack);
#: ``truc-p2p --help``, no command and an unknown one import none: their parser is
#: built from :data:`~truc_p2p.cli._parser.COMMAND_HELP` (one line per command here).
COMMANDS: dict[str, str] = {
    "demo": "truc_p2p.cli._demo",
    "host": "truc_p2p.cli._game_commands",
    "join": "truc_p2p.cli._game_commands",
    "resume": "truc_p2p.cli._game_commands",
    "play": "truc_p2p.cli._game_commands",
    "hosts": "truc_p2p.cli._hosts",
    "lobby": "truc_p2p.cli._lobby",
    "relay": "truc_p2p.cli._relay",
    "identity": "truc_p2p.cli._identity",
    "verify": "truc_p2p.cli._verify",
    "games": "truc_p2p.cli._games",
    "replay": "truc_p2p.cli._replay",
    "review": "truc_p2p.cli._review",
    "export": "truc_p2p.cli._export",
    "bench": "truc_p2p.cli._bench",
    "languages": "truc_p2p.cli._languages",
    "interop": "truc_p2p.cli._interop",
    "learn": "truc_p2p.cli._learn",
    "site": "truc_p2p.cli._site",
}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """Return the top-level argument parser: with the sub-commands of ``command``'s
    module only, or every sub-command (``None`` or an unknown name)."""
    wanted = [COMMANDS[command]] if command in COMMANDS else list(dict.fromkeys(COMMANDS.values()))
    return command_parser(importlib.import_module(name).register for name in wanted)


def _lang_option(argv: Sequence[str]) -> str | None:
    """The ``--lang CODE`` (or ``--lang=CODE``) of the command line, read before the
    parser is built so that every module already speaks the language."""
    found: str | None = None
    for index, word in enumerate(argv):
        if word == "--":
            break
        if word == "--lang" and index + 1 < len(argv):
            found = argv[index + 1]
        elif word.startswith("--lang="):
            found = word.partition("=")[2]
    return found


def _command_of(argv: Sequence[str]) -> str | None:
    """The sub-command named on the command line (the first word not an option)."""
    after_lang = False
    for word in argv:
        if after_lang:  # the CODE of ``--lang CODE``
            after_lang = False
            continue
        if word == "--lang":
            after_lang = True
            continue
        if not word.startswith("-"):
            return word
        if word in ("-h", "--help", "--version"):
            return None
    return None


def _tolerant_output() -> None:
    """Line-buffered output that never fails on a character the terminal cannot show."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(line_buffering=True, errors="replace")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``truc-p2p`` console script; returns the exit status."""
    _tolerant_output()
    words = list(sys.argv[1:] if argv is None else argv)
    try:
        use_language(resolve(_lang_option(words)))
    except UnknownLanguage as exc:
        # said in the environment's language when the game speaks it, else English
        use_language(resolve(None))
        text = _(
            "unknown language {code}; choose one of: {codes} (truc-p2p languages lists them)",
            code=repr(exc.code),
            codes=", ".join(LANGUAGES),
        )
        print(f"truc-p2p: {text}", file=sys.stderr)
        return 2
    install_argparse()
    command = _command_of(words)
    parser = build_parser(command) if command in COMMANDS else top_parser()
    args = parser.parse_args(words)
    args.argv = words  # a match resumed after a crash goes on with the same command line
    if args.command is None:
        parser.print_help()
        return 2
    from truc_p2p.cli._common import UsageError, check_shared_args, first_exception

    try:
        check_shared_args(args)
        status: int = args.func(args)
    except KeyboardInterrupt:
        print(_("interrupted"), file=sys.stderr)
        return 130
    except BaseException as exc:
        if _only(exc, BrokenPipeError):
            # The reader of our output went away (``truc-p2p demo | head``): stop quietly.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            return 141
        usage = first_exception(exc, UsageError)
        if usage is not None:
            print(f"truc-p2p {args.command}: {usage}", file=sys.stderr)
            return 2
        failure = first_exception(exc, OSError) if _only(exc, OSError) else None
        if failure is None:
            raise
        # Last resort for a file or system problem a command did not report itself.
        print(f"truc-p2p {args.command}: {_describe(failure)}", file=sys.stderr)
        return 1
    return status


def _only(exc: BaseException, kind: type[BaseException]) -> bool:
    """Whether ``exc`` is ``kind`` or a (nested) group made only of ``kind``."""
    if isinstance(exc, BaseExceptionGroup):
        return all(_only(e, kind) for e in exc.exceptions)
    return isinstance(exc, kind)


def _describe(exc: OSError) -> str:
    """``[Errno 28] No space left on device: 'x'`` as ``x: No space left on device``."""
    if exc.strerror and exc.filename is not None and type(exc).__str__ is OSError.__str__:
        return f"{exc.filename}: {exc.strerror}"
    return str(exc) or type(exc).__name__
