"""Is ``strongest`` the strongest? Its win rate against every other bot, duplicate deals.

``strongest`` (the solved round, ``solved``) plays ``--games`` games against
each opponent in duplicate pairs (the same shuffles, seats swapped; the first
dealer alternating), none of which it was tuned on (it is an equilibrium of
the round, solved without any opponent): the earlier ``strongest``
(``cfr+race``), the other levels, the earlier search bot, the rule-based
heuristic bot and the exploiters that stake the game (``stake:0.5``: "my rest"
whenever its round chance is at least one half; ``always-rest``) or bluff
(``blind-raise``, ``fold-bait``).  Prints each win rate with its 95 % Wilson
interval and the hands per game.  Run::

    nice -n 15 python benchmarks/bot_strongest.py --games 400
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from truc_p2p.bots import Bot, make_bot, play_local_game
from truc_p2p.bots._bench import seating, wilson_interval
from truc_p2p.rules import Event, RoundEnded

DEFAULT = (
    "cfr+race",
    "hard",
    "medium",
    "easy",
    "search",
    "heuristic",
    "stake:0.5",
    "always-rest",
    "blind-raise",
    "fold-bait",
)


def games_won(
    make_a: Callable[[int], Bot],
    make_b: Callable[[int], Bot],
    games: int,
    seed: int,
    start: int = 0,
) -> tuple[list[int], int]:
    """Each game's result (1: A won) and the hands played, over ``games``
    duplicate-deal games of the bots ``make_a(seed)`` and ``make_b(seed)``
    (from game ``start`` of the run: a slice of it, for parallel workers)."""
    wins: list[int] = []
    hands = 0
    for index in range(start, games):
        a_seat, deal_seed, first_dealer = seating(seed, index)
        bot_seed = (seed * 1_000_003 + index) * 2
        bots = [make_a(bot_seed), make_b(bot_seed + 1)]
        if int(a_seat):
            bots.reverse()
        counted = 0

        def count(event: Event) -> None:
            nonlocal counted
            counted += isinstance(event, RoundEnded)

        outcome = play_local_game(*bots, seed=deal_seed, first_dealer=first_dealer, on_event=count)
        wins.append(int(outcome.winner is a_seat))
        hands += counted
    return wins, hands


def duel(a: str, b: str, games: int, seed: int) -> tuple[int, int]:
    """A's wins and the hands played, over ``games`` duplicate-deal games."""
    wins, hands = games_won(lambda s: make_bot(a, s), lambda s: make_bot(b, s), games, seed)
    return sum(wins), hands


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400, help="games per opponent")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--bot", default="strongest")
    parser.add_argument("--against", default=",".join(DEFAULT))
    args = parser.parse_args()
    print(f"| {args.bot} against | win rate | 95% interval | hands per game |")
    print("|---|---:|---|---:|")
    started = time.perf_counter()
    for b in args.against.split(","):
        w, h = duel(args.bot, b, args.games, args.seed)
        low, high = wilson_interval(w, args.games)
        print(
            f"| {b} | {100 * w / args.games:.1f}% | [{100 * low:.1f}, {100 * high:.1f}] | "
            f"{h / args.games:.1f} |",
            flush=True,
        )
    print(
        f"\n{args.games} duplicate-deal games per opponent, seed {args.seed}; "
        f"{time.perf_counter() - started:.0f} s"
    )


if __name__ == "__main__":
    main()
