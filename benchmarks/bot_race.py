"""The race to 12: who wins and how long the games last, level by level.

For every pair of bots (the levels against each other, and each level against
a blind raiser — ``blind-raise`` says "2 more?" at its first chance in every
round, whatever its cards — and against ``random``) this plays ``--games``
duplicate-deal games (pairs on the same shuffles with the seats swapped, see
``truc_p2p.bots._bench``) and prints a Markdown table: A's wins with a 95 %
Wilson interval, hands per game, the share of games ended by "my rest", and
how A answered B's "2 more?" by the strength of A's hand (the same judge for
every bot: its edge against a random hand, strong at +0.3 or more, weak at
-0.3 or less), and A's points minus B's over the first five hands of a game
(a short sitting: is raising blind a point a hand?) with the share of games B
leads after them (more points, or the game won within them).  Run::

    nice -n 15 python benchmarks/bot_race.py --games 200 --jobs 2

``--json`` adds one line of JSON with every row.
"""

from __future__ import annotations

import argparse
import itertools
import json

from truc_p2p.bots import LEVELS
from truc_p2p.bots._bench import RaceFigures, race_bench, wilson_interval

PROBES = ("blind-raise", "random")


def _rate(fig: RaceFigures, strength: str) -> str:
    accepted, answered = fig.answers.get(strength, (0, 0))
    return f"{100 * accepted / answered:.0f}% of {answered}" if answered else "—"


def row(fig: RaceFigures) -> str:
    low, high = wilson_interval(fig.a_wins, fig.games)
    return (
        f"| {fig.a} | {fig.b} | {fig.a_wins}/{fig.games} = {100 * fig.win_rate:.0f}% "
        f"[{100 * low:.0f}, {100 * high:.0f}] | {fig.hands_per_game:.1f} | "
        f"{100 * fig.rest_share:.0f}% | {_rate(fig, 'strong')} | {_rate(fig, 'middling')} | "
        f"{_rate(fig, 'weak')} | {fig.early / fig.games:+.2f} | "
        f"{100 * fig.early_behind / fig.games:.0f}% |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per pair (default 200)")
    parser.add_argument("--jobs", type=int, default=1, help="processes (default 1)")
    parser.add_argument("--seed", type=int, default=1, help="seed (default 1)")
    parser.add_argument(
        "--bots", default=",".join(LEVELS), help="comma-separated names (default: the levels)"
    )
    parser.add_argument(
        "--probes",
        default=",".join(PROBES),
        help="comma-separated opponents each bot also meets (default blind-raise,random)",
    )
    parser.add_argument(
        "--only", default="", metavar="NAME", help="only the pairs NAME plays (to split a run)"
    )
    parser.add_argument("--json", action="store_true", help="also print the rows as JSON")
    args = parser.parse_args()
    if args.games < 1 or args.jobs < 1:
        parser.error("--games and --jobs must be at least 1")
    names = [n for n in args.bots.split(",") if n]
    probes = [n for n in args.probes.split(",") if n]
    pairs = [(a, p) for a in names for p in probes] + list(itertools.combinations(names, 2))
    if args.only:
        pairs = [(a, b) for a, b in pairs if args.only in (a, b)]
    print(
        "| A | B | A wins [95 %] | hands per game | ended by my rest "
        "| A accepts B's raise: strong hand | middling | weak | A's net points, first 5 hands "
        "| B leads after 5 hands |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    rows = []
    for a, b in pairs:
        try:
            fig = race_bench(a, b, games=args.games, seed=args.seed, jobs=args.jobs)
        except ValueError as exc:
            parser.error(str(exc))
        rows.append(fig)
        print(row(fig), flush=True)
    print(f"\n{args.games} duplicate-deal games per pair, seed {args.seed}.")
    if args.json:
        print(json.dumps([fig.to_json() for fig in rows]))


if __name__ == "__main__":
    main()
