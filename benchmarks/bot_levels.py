"""Round robin of the bot levels: win rates, Elo ratings and think times.

Every pair of bots plays ``--games`` duplicate-deal games (pairs on the same
shuffles with the seats swapped, see ``truc_p2p.bots._bench``); the ratings are
the Elo ratings that best explain all the results (a Bradley–Terry fit by
gradient ascent, anchored so that ``random`` is 0 when it plays).  Run::

    nice -n 15 python benchmarks/bot_levels.py --games 200 --jobs 2

Prints a Markdown table (the one in the README).
"""

from __future__ import annotations

import argparse
import itertools

from truc_p2p.bots._bench import bench_bots

DEFAULT = ("random", "easy", "medium", "hard", "strongest", "search")


def elo(names: list[str], wins: dict[tuple[str, str], tuple[int, int]]) -> dict[str, float]:
    """Elo ratings maximising the likelihood of ``wins[(a, b)] = (a's wins, games)``."""
    r = dict.fromkeys(names, 0.0)
    for _ in range(4000):
        grad = dict.fromkeys(names, 0.0)
        for (a, b), (w, n) in wins.items():
            p = 1.0 / (1.0 + 10 ** ((r[b] - r[a]) / 400))
            grad[a] += w - n * p
            grad[b] -= w - n * p
        for k in names:
            r[k] += 2.0 * grad[k] / max(1, sum(n for (x, y), (_, n) in wins.items() if k in (x, y)))
    anchor = r.get("random", min(r.values()))
    return {k: v - anchor for k, v in r.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per pair (default 200)")
    parser.add_argument("--jobs", type=int, default=1, help="processes (default 1)")
    parser.add_argument("--seed", type=int, default=1, help="seed (default 1)")
    parser.add_argument("--bots", default=",".join(DEFAULT), help="comma-separated names")
    args = parser.parse_args()
    names = args.bots.split(",")
    wins: dict[tuple[str, str], tuple[int, int]] = {}
    think: dict[str, list[tuple[float, float]]] = {n: [] for n in names}
    for a, b in itertools.combinations(names, 2):
        rep = bench_bots(a, b, games=args.games, seed=args.seed, jobs=args.jobs)
        wins[(a, b)] = (rep.a.wins, rep.games)
        think[a].append((rep.a.think_median, rep.a.think_p95))
        think[b].append((rep.b.think_median, rep.b.think_p95))
        print(
            f"{a} vs {b}: {rep.a.wins}/{rep.games} ({100 * rep.a.win_rate:.1f}%, "
            f"95% [{100 * rep.a.ci_low:.1f}, {100 * rep.a.ci_high:.1f}])",
            flush=True,
        )
    ratings = elo(names, wins)
    order = sorted(names, key=lambda n: -ratings[n])
    print()
    print("| bot | Elo | " + " | ".join(f"vs {n}" for n in order) + " | median ms | p95 ms |")
    print("|---|---:|" + "---:|" * len(order) + "---:|---:|")
    for a in order:
        cells = []
        for b in order:
            if a == b:
                cells.append("—")
            elif (a, b) in wins:
                w, n = wins[(a, b)]
                cells.append(f"{100 * w / n:.0f}%")
            else:
                w, n = wins[(b, a)]
                cells.append(f"{100 * (n - w) / n:.0f}%")
        med = max(m for m, _ in think[a]) * 1000
        p95 = max(p for _, p in think[a]) * 1000
        print(f"| {a} | {ratings[a]:.0f} | " + " | ".join(cells) + f" | {med:.1f} | {p95:.0f} |")
    print(
        f"\n{args.games} duplicate-deal games per pair, seed {args.seed}; "
        "think times: the worst median and p95 over the bot's pairings."
    )


if __name__ == "__main__":
    main()
