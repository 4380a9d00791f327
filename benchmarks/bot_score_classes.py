"""Does the score-aware solved round beat the points-only one? Whole games, duplicate deals.

``strongest`` (the solved bot) playing its score classes' tables
(``round_classes.json``, ``round_score_<k>.bin``: the round solved with the
chance of winning the game as payoff, by class of score) against the same
bot playing the points table at every score (the previous ``strongest``):
``--games`` games to 12 in duplicate pairs (the same shuffles, seats swapped,
the first dealer alternating).  Prints the win rate with its 95 % Wilson
interval, the hands per game, and each class's states, size, load time and
exploitability (in its units, 24 × the chance of winning the game, and in
points per hand), as measured exactly when it was solved.  ``--against``:
also both variants against other bots on the same deals and seeds, with the
paired difference of their results (a game decided before any score class
is reached is the same game for both).  Run::

    nice -n 15 python benchmarks/bot_score_classes.py --games 2000
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from importlib import resources
from pathlib import Path

from truc_p2p.bots import Bot, make_bot
from truc_p2p.bots._bench import wilson_interval
from truc_p2p.bots._round_table import load_class_table, load_classes, load_table

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bot_strongest import games_won as duplicate_games


def _bot(seed: int, score_aware: bool) -> Bot:
    bot = make_bot("strongest", seed)
    bot.score_aware = score_aware  # type: ignore[attr-defined]
    return bot


def duel(games: int, seed: int, against: str | None = None, aware: bool = True) -> tuple[int, int]:
    """The (score-aware) bot's wins and the hands played, over ``games``
    duplicate-deal games against ``against`` (default: the points-only bot)."""
    results, hands = games_won(games, seed, against, aware)
    return sum(results), hands


def games_won(
    games: int, seed: int, against: str | None = None, aware: bool = True
) -> tuple[list[int], int]:
    """Each game's result (1: the first bot won) and the hands played (see :func:`duel`)."""
    other = (lambda s: _bot(s, False)) if against is None else (lambda s: make_bot(against, s))
    return duplicate_games(lambda s: _bot(s, aware), other, games, seed)


def paired(games: int, seed: int, against: str) -> tuple[float, float, float, float, float]:
    """Both variants against ``against`` on the same deals and seeds: their win
    rates, the mean paired difference (score-aware minus points-only) with its
    95 % interval (normal, over the games), and the share of games whose result differs."""
    aware, _ = games_won(games, seed, against, True)
    plain, _ = games_won(games, seed, against, False)
    diff = [x - y for x, y in zip(aware, plain, strict=True)]
    mean = sum(diff) / games
    var = sum((d - mean) ** 2 for d in diff) / max(1, games - 1)
    half = 1.96 * math.sqrt(var / games)
    changed = sum(1 for d in diff if d) / games
    return sum(aware) / games, sum(plain) / games, mean - half, mean + half, changed


def classes() -> None:
    doc = load_classes()
    base = load_table()
    if doc is None or base is None:
        print("no score classes shipped")
        return
    print("| class | solved at | states | bytes | load | exploitability | points/hand |")
    print("|---|---|---:|---:|---:|---:|---:|")
    total = 0
    for index, spec in enumerate(doc["classes"]):
        name = str(spec["file"])
        size = len(resources.files("truc_p2p.bots").joinpath(name).read_bytes())
        start = time.process_time()
        table = load_class_table(index)
        took = time.process_time() - start
        assert table is not None
        header = table.header
        if index == 0:
            expl = points = float(header["exploitability"])
            took = 0.0
        else:
            total += size
            expl = float(header["exploitability"])
            points = float(header["exploitability_points"])
        a, b = spec["score"]
        print(
            f"| {index} | {a}-{b} | {spec['states']} | {size:,} | {took:.2f} s | "
            f"{expl:.4f} | {points:.4f} |"
        )
    print(f"\nthe class tables add {total:,} bytes to the package")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--against", default="", help="comma-separated bots, each variant")
    args = parser.parse_args()
    classes()
    started = time.perf_counter()
    w, h = duel(args.games, args.seed)
    low, high = wilson_interval(w, args.games)
    print(
        f"\nscore-aware strongest against points-only strongest: {100 * w / args.games:.1f}% "
        f"[{100 * low:.1f}, {100 * high:.1f}] of {args.games} duplicate-deal games "
        f"(seed {args.seed}), {h / args.games:.1f} hands per game; "
        f"{time.perf_counter() - started:.0f} s",
        flush=True,
    )
    if args.against:
        print("\n| against | score-aware | points-only | paired difference, 95% | games changed |")
        print("|---|---:|---:|---|---:|")
    for name in filter(None, args.against.split(",")):
        aware, plain, low, high, changed = paired(args.games, args.seed, name)
        print(
            f"| {name} | {100 * aware:.1f}% | {100 * plain:.1f}% | "
            f"[{100 * low:+.1f}, {100 * high:+.1f}] points of % | {100 * changed:.1f}% |",
            flush=True,
        )


if __name__ == "__main__":
    main()
