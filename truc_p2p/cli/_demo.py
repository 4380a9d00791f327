"""``truc-p2p demo``: bots play each other (placeholder until the protocol lands)."""

from __future__ import annotations

import argparse
from typing import Any


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("demo", help="watch two bots play a game")
    parser.add_argument("--games", type=int, default=1)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--json", action="store_true")
    parser.set_defaults(func=_demo)


def _demo(args: argparse.Namespace) -> int:
    raise NotImplementedError
