"""Matches between two bots: does bot A play better once it has met B before?

A person who asks for "play again" meets the same bot object (``play`` keeps
it while the level is unchanged), and the CFR bot remembers the opponent's
record from the earlier games: whether it stakes the game, plays carelessly,
raises at every chance.  This script measures what that memory is worth:
``--matches`` pairs of matches of ``--games`` games, each pair on the same
shuffles with the seats swapped (duplicate deals, as ``truc-p2p bench bots``),
the same two bot objects through a match.  It prints A's win rate in the first
game of a match (what ``bench bots`` measures) and in the later ones, with 95 %
Wilson intervals, and the same games played by new bot objects for every game
(no memory) beside them.  Run::

    nice -n 15 python benchmarks/bot_match.py --a strongest --b search --matches 200 --jobs 2
"""

from __future__ import annotations

import argparse
from concurrent.futures import ProcessPoolExecutor

from truc_p2p.bots import make_bot, play_local_game
from truc_p2p.bots._bench import bot_name_arg, wilson_interval
from truc_p2p.rules import Player


def play_match(task: tuple[str, str, int, int, int, bool]) -> list[bool]:
    """Match ``index`` (its pair shares the shuffles, seats swapped): A's wins, game
    by game; ``fresh``: new bot objects for every game (nothing remembered)."""
    a_name, b_name, seed, index, games, fresh = task
    pair = index // 2
    a_seat = Player(index % 2)
    bot_seed = (seed * 1_000_003 + index) * 2
    wins = []
    for game in range(games):
        if fresh or game == 0:
            a, b = make_bot(a_name, bot_seed), make_bot(b_name, bot_seed + 1)
        seats = (a, b) if a_seat is Player.P0 else (b, a)
        outcome = play_local_game(
            *seats,
            seed=(seed * 1_000_003 + pair) * 64 + game,
            first_dealer=Player((pair + game) % 2),
        )
        wins.append(outcome.winner is a_seat)
    return wins


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--a", type=bot_name_arg, default="strongest", help="the bot measured (default strongest)"
    )
    parser.add_argument(
        "--b", type=bot_name_arg, default="search", help="its opponent (default search)"
    )
    parser.add_argument("--matches", type=int, default=100, help="pairs of matches (default 100)")
    parser.add_argument("--games", type=int, default=4, help="games per match (default 4)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    if args.matches < 1 or not 2 <= args.games <= 64 or args.jobs < 1:
        parser.error("--matches and --jobs must be at least 1, --games in 2..64")
    n = 2 * args.matches
    tasks = [
        (args.a, args.b, args.seed, i, args.games, fresh)
        for fresh in (False, True)
        for i in range(n)
    ]
    if args.jobs == 1:
        results = list(map(play_match, tasks))
    else:
        with ProcessPoolExecutor(args.jobs) as pool:
            results = list(pool.map(play_match, tasks, chunksize=2))
    print(f"{args.a} against {args.b}: {n} matches of {args.games} games (seed {args.seed})")
    print("| games of a match | A remembers | A's win rate (95 % interval) |")
    print("|---|---|---:|")
    for label, part in (("first", slice(0, 1)), (f"2 to {args.games}", slice(1, None))):
        for memory, runs in (("yes", results[:n]), ("no (new bot each game)", results[n:])):
            wins = sum(sum(r[part]) for r in runs)
            played = sum(len(r[part]) for r in runs)
            low, high = wilson_interval(wins, played)
            print(
                f"| {label} | {memory} | {wins}/{played} = {wins / played:.1%} "
                f"({low:.1%}–{high:.1%}) |"
            )


if __name__ == "__main__":
    main()
