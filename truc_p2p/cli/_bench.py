"""``truc-p2p bench``: benchmarks that print figures."""

from __future__ import annotations

import argparse
from typing import Any


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("bench", help="run a benchmark and print figures")
    sub = parser.add_subparsers(dest="bench", metavar="WHAT", required=True)
    deck = sub.add_parser("deck", help="mental-poker deck: per-operation and per-hand cost")
    deck.add_argument("--hands", type=int, default=20, help="hands to time (default 20)")
    deck.add_argument("--json", action="store_true", help="print one JSON object")
    deck.set_defaults(func=_bench_deck)


def _bench_deck(args: argparse.Namespace) -> int:
    from truc_p2p.cli._bench_deck import main as bench_main

    return bench_main(hands=args.hands, as_json=args.json)
