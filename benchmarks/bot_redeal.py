"""Does the redeal table help? ``strongest`` with and without it, whole games, duplicate deals.

``strongest`` (the solved bot) playing the table solved with the redeal
(``round_redeal.bin``: asking, answering and the round after a declined
request, while a round may be redealt and the points table is the score's)
against the same bot without it (the fallback CFR bot asks and answers every
redeal, the points table plays the round; the previous ``strongest``):
``--games`` games to 12 in duplicate pairs (the same shuffles, seats swapped,
the first dealer alternating).  Prints the table's figures (its header,
measured exactly when it was solved), its size and load time, the win rate
with its 95 % Wilson interval and the hands per game.  ``--against``: also
both variants against other bots on the same deals and seeds, with the
paired difference of their results.  ``--variants robust,table``: the
robust asking rule (the non-dealer asks only with the hands a request gains
with against any accepting dealer) against the table as solved.  ``--jobs``: games in parallel
processes.  Run::

    nice -n 15 python benchmarks/bot_redeal.py --games 2000 --against hard
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import sys
import time
from importlib import resources
from pathlib import Path

from truc_p2p.bots import Bot, make_bot
from truc_p2p.bots._bench import wilson_interval
from truc_p2p.bots._round_table import REDEAL_FILE, load_redeal_table

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bot_strongest import games_won as duplicate_games

#: The variants: the robust asking rule over the redeal table, the redeal
#: table as solved (asking as the equilibrium does), no redeal table.
#: ``noask``: the redeal table, the non-dealer never asking.
VARIANTS = ("robust", "table", "none", "noask")


def _bot(seed: int, variant: str) -> Bot:
    bot = make_bot("strongest", seed)
    bot.redeal = variant != "none"  # type: ignore[attr-defined]
    bot.robust_ask = variant in ("robust", "noask")  # type: ignore[attr-defined]
    if variant == "noask":
        bot.ask_with = frozenset()  # type: ignore[attr-defined]
    return bot


class _Variant:
    def __init__(self, variant: str) -> None:
        self.variant = variant

    def __call__(self, seed: int) -> Bot:
        return _bot(seed, self.variant)


class _Named:
    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self, seed: int) -> Bot:
        return make_bot(self.name, seed)


def _chunk(job: tuple[str, str, int, int, int]) -> tuple[list[int], int]:
    """Games ``start`` to ``start + count`` of the duplicate-deal run at ``seed``."""
    variant, against, seed, start, count = job
    make_b = _Named(against[1:]) if against.startswith("=") else _Variant(against)
    wins, hands = duplicate_games(_Variant(variant), make_b, start + count, seed, start)
    return wins, hands


def games_won(
    games: int, seed: int, against: str = "=hard", variant: str = "robust", jobs: int = 1
) -> tuple[list[int], int]:
    """Each game's result (1: the first bot won) and the hands played: ``strongest``
    playing ``variant`` (:data:`VARIANTS`) against ``against``: a bot's name after
    ``=``, else another variant of ``strongest``."""
    step = math.ceil(games / jobs)
    chunks = [(variant, against, seed, s, min(step, games - s)) for s in range(0, games, step)]
    if jobs == 1:
        parts = [_chunk(c) for c in chunks]
    else:
        with multiprocessing.get_context("spawn").Pool(jobs) as pool:
            parts = pool.map(_chunk, chunks)
    return [w for part in parts for w in part[0]], sum(part[1] for part in parts)


def table() -> None:
    size = len(resources.files("truc_p2p.bots").joinpath(REDEAL_FILE).read_bytes())
    load_redeal_table.cache_clear()
    start = time.process_time()
    loaded = load_redeal_table()
    took = time.process_time() - start
    if loaded is None:
        print("no redeal table shipped")
        return
    h = loaded.header
    print(
        f"{REDEAL_FILE}: {size:,} bytes, loads in {took:.2f} s of CPU; {h['nodes']:,} nodes, "
        f"{h['entries']:,} entries, {h['iterations']} iterations; value {h['value']:+.4f} "
        f"points per hand to the non-dealer (without the redeal {h['value_no_redeal']:+.4f}: "
        f"the redeal is worth {h['value'] - h['value_no_redeal']:+.4f}); exact exploitability "
        f"{h['exploitability']:.4f} (without 'my rest' {h['exploitability_no_rest']:.4f}); "
        f"asks {100 * h['ask_rate']:.1f}% of its deals, the dealer accepts "
        f"{100 * h['accept_rate']:.1f}% and folds {100 * h['fold_rate']:.1f}% of the requests"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument(
        "--against", default="", help="comma-separated bots, each of the two variants"
    )
    parser.add_argument(
        "--variants",
        default="table,none",
        help="the two variants of strongest compared (robust, table, none)",
    )
    parser.add_argument("--no-head", action="store_true", help="skip the variants' head-to-head")
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    first, second = args.variants.split(",")
    if {first, second} - set(VARIANTS):
        raise SystemExit(f"--variants: two of {', '.join(VARIANTS)}")
    table()
    if not args.no_head:
        started = time.perf_counter()
        results, h = games_won(args.games, args.seed, second, first, jobs=args.jobs)
        w = sum(results)
        low, high = wilson_interval(w, args.games)
        print(
            f"\nstrongest ({first}) against strongest ({second}): "
            f"{100 * w / args.games:.1f}% [{100 * low:.1f}, {100 * high:.1f}] of {args.games} "
            f"duplicate-deal games (seed {args.seed}), {h / args.games:.1f} hands per game; "
            f"{time.perf_counter() - started:.0f} s",
            flush=True,
        )
    if args.against:
        print(f"\n| against | {first} | {second} | paired difference, 95% |")
        print("|---|---:|---:|---|")
    for name in filter(None, args.against.split(",")):
        started = time.perf_counter()
        on, _ = games_won(args.games, args.seed, "=" + name, first, args.jobs)
        off, _ = games_won(args.games, args.seed, "=" + name, second, args.jobs)
        diff = [x - y for x, y in zip(on, off, strict=True)]
        mean = sum(diff) / args.games
        var = sum((d - mean) ** 2 for d in diff) / max(1, args.games - 1)
        half = 1.96 * math.sqrt(var / args.games)
        a_low, a_high = wilson_interval(sum(on), args.games)
        print(
            f"| {name} | {100 * sum(on) / args.games:.1f}% [{100 * a_low:.1f}, "
            f"{100 * a_high:.1f}] | {100 * sum(off) / args.games:.1f}% | "
            f"[{100 * (mean - half):+.1f}, {100 * (mean + half):+.1f}] points of % "
            f"({time.perf_counter() - started:.0f} s) |",
            flush=True,
        )


if __name__ == "__main__":
    main()
