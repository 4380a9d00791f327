"""The free-point checker: blunders of every bot on a seeded set of decisions.

A blunder is giving away a round the bot cannot lose from what it sees
(refusing a raise or "my rest", folding, a redeal, or a card that throws away a
round it is sure to win; see ``truc_p2p.bots._blunders``).  The positions are every
decision of ``--games`` seeded games between generator bots, and every raise
or "my rest" the player to act could have made there, as its opponent's
decision.  For each bot the table gives its own choices (``own``: before the
gate, as the bots played before it) and what it plays (``played``: through
the gate).  Every bot above ``easy`` must make none (``random`` is exempt:
it is the uniform baseline); ``easy`` lets :data:`~truc_p2p.bots._make.EASY_SLIP`
of its own through on purpose.  Exits 1 when a bot breaks that.  Run::

    nice -n 15 python benchmarks/bot_blunders.py --games 400
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from truc_p2p.bots._blunders import check, describe, kinds, positions
from truc_p2p.bots._make import EASY_SLIP

DEFAULT = (
    "easy",
    "medium",
    "hard",
    "strongest",
    "heuristic",
    "search",
    "expert",
    "cfr",
    "expert+race",
    "random",
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400, help="seeded games (default 400)")
    parser.add_argument("--seed", type=int, default=1, help="seed (default 1)")
    parser.add_argument("--bots", default=",".join(DEFAULT), help="comma-separated names")
    parser.add_argument("--examples", action="store_true", help="show a few own blunders")
    parser.add_argument("--json", action="store_true", help="one JSON line at the end")
    args = parser.parse_args()
    start = time.perf_counter()
    pos = positions(args.games, args.seed)
    decided = sum(p.decided for p in pos)
    print(
        f"{len(pos)} decisions of {args.games} games (seed {args.seed}), {decided} in a round "
        f"the player cannot lose: {kinds(pos)} ({time.perf_counter() - start:.1f} s)",
        flush=True,
    )
    print("\n| bot | own: gives up | own: throws away | played: gives up | played: throws away |")
    print("|---|---:|---:|---:|---:|")
    rows = {}
    failed = []
    for name in args.bots.split(","):
        own = check(name, pos, seed=args.seed, own=True)
        played = check(name, pos, seed=args.seed)
        rows[name] = {"own": own.blunders, "played": played.blunders, "decided": played.decided}
        cells = [
            str(r.blunders.get(k, 0)) for r in (own, played) for k in ("gives up", "throws away")
        ]
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)
        if args.examples:
            for game, action in own.examples:
                print(f"|   | {describe(game, action)} | | | |")
        if name == "easy":
            if own.total and played.total > own.total * EASY_SLIP * 2 + 2:
                failed.append(f"easy lets through {played.total} of {own.total}")
        elif name != "random" and played.total:
            failed.append(f"{name} gives away {played.total} decided rounds")
    print(
        f"\nout of {decided} decided positions; easy lets {EASY_SLIP:.0%} of its own through "
        f"on purpose ({time.perf_counter() - start:.0f} s)"
    )
    for line in failed:
        print(f"FAIL: {line}")
    if args.json:
        print(json.dumps({"positions": len(pos), "decided": decided, "bots": rows}))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
