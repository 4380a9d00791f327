"""Round robin of the bot levels: win rates, Elo ratings and think times.

Every pair of bots plays ``--games`` duplicate-deal games (pairs on the same
shuffles with the seats swapped, see ``truc_p2p.bots._bench``); the ratings are
the Elo ratings that best explain all the results (a Bradley–Terry fit by
gradient ascent, anchored so that ``random`` is 0 when it plays).  Run::

    nice -n 15 python benchmarks/bot_levels.py --games 200 --jobs 2

Prints a Markdown table (the one in docs/bots.md).
"""

from __future__ import annotations

import argparse
import itertools

from truc_p2p.bots import make_bot, play_local_game
from truc_p2p.bots._bench import bench_bots
from truc_p2p.rules import Event, GameEndReason, RoundEnded

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


def game_length(name: str, proxy: str, games: int, seed: int) -> tuple[float, float, float]:
    """Against ``proxy`` (a stand-in for a person): rounds per game, the share of
    games ended by "my rest", and the share of rounds the level gave up by folding."""
    rounds = rest_games = folds = 0
    for i in range(games):
        events: list[Event] = []
        bots = [make_bot(name, 2 * i), make_bot(proxy, 2 * i + 1)]
        if i % 2:
            bots.reverse()
        outcome = play_local_game(*bots, seed=seed * 7919 + i, on_event=events.append)
        ended = [e for e in events if isinstance(e, RoundEnded)]
        rounds += len(ended)
        rest_games += outcome.reason is not GameEndReason.TARGET
        level_seat = i % 2
        folds += sum(
            1
            for e in ended
            if e.reason.value == "folded" and e.winner is not None and int(e.winner) != level_seat
        )
    return rounds / games, rest_games / games, folds / max(1, rounds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per pair (default 200)")
    parser.add_argument("--jobs", type=int, default=1, help="processes (default 1)")
    parser.add_argument("--seed", type=int, default=1, help="seed (default 1)")
    parser.add_argument("--bots", default=",".join(DEFAULT), help="comma-separated names")
    parser.add_argument(
        "--length",
        type=int,
        default=0,
        metavar="N",
        help="instead: N games of each level against the heuristic bot as a stand-in for "
        "a person; rounds per game, games ended by my rest, rounds given up by folding",
    )
    args = parser.parse_args()
    names = args.bots.split(",")
    if args.length:
        print("| level | rounds per game | games ended by my rest | rounds it folds |")
        print("|---|---:|---:|---:|")
        for name in names:
            r, rest, fold = game_length(name, "heuristic", args.length, args.seed)
            print(f"| {name} | {r:.1f} | {100 * rest:.0f}% | {100 * fold:.0f}% |", flush=True)
        print(f"\n{args.length} games each against the heuristic bot, seed {args.seed}.")
        return
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
