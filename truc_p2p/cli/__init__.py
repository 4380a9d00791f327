"""The ``truc-p2p`` command line.

Each sub-command lives in its own private module exposing
``register(subparsers)``; ``main`` wires them together.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from truc_p2p import __version__

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    """Return the top-level argument parser with every sub-command registered."""
    from truc_p2p.cli import _bench, _demo, _hosts, _identity, _net, _relay, _verify

    parser = argparse.ArgumentParser(
        prog="truc-p2p",
        description="Play Le Truc peer to peer with a verifiable, dealerless shuffle.",
    )
    parser.add_argument("--version", action="version", version=f"truc-p2p {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in (_demo, _net, _hosts, _relay, _identity, _verify, _bench):
        module.register(subparsers)
    return parser


def _tolerant_output() -> None:
    """Line-buffered output that never fails on a character the terminal cannot show."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(line_buffering=True, errors="replace")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``truc-p2p`` console script; returns the exit status."""
    _tolerant_output()
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    try:
        status: int = args.func(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BaseException as exc:
        if not _only(exc, BrokenPipeError):
            raise
        # The reader of our output went away (``truc-p2p demo | head``): stop quietly.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    return status


def _only(exc: BaseException, kind: type[BaseException]) -> bool:
    """Whether ``exc`` is ``kind`` or a (nested) group made only of ``kind``."""
    if isinstance(exc, BaseExceptionGroup):
        return all(_only(e, kind) for e in exc.exceptions)
    return isinstance(exc, kind)
