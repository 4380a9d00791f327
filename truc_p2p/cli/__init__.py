"""The ``truc-p2p`` command line.

Each sub-command lives in its own private module exposing
``register(subparsers)``; ``main`` wires them together.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from truc_p2p import __version__

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    """Return the top-level argument parser with every sub-command registered."""
    from truc_p2p.cli import _bench, _demo, _verify

    parser = argparse.ArgumentParser(
        prog="truc-p2p",
        description="Play Le Truc peer to peer with a verifiable, dealerless shuffle.",
    )
    parser.add_argument("--version", action="version", version=f"truc-p2p {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in (_demo, _verify, _bench):
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``truc-p2p`` console script; returns the exit status."""
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
    return status
