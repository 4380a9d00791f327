"""The levels' Elo ladder over duplicate deals, with intervals, and each level's character.

Every pair of bots plays ``--games`` games in duplicate pairs (the same shuffles
with the seats swapped, the first dealer alternating: ``truc_p2p.bots._bench``'s
seating).  The ratings are the Elo ratings that best explain all the results
(``bot_levels.elo``, anchored at ``easy`` = 0 here); the 95 % intervals come from
a bootstrap over the duplicate pairs of every matchup (``--boot`` resamples).
Beside it, per pair, the hands per game; and per level its *character*, counted
over all its games: requests ("2 more?" or "my rest") per hand, the share of
them made with a weak hand (a *bluff*: the hand's edge against a random hand,
the win chance minus the lose chance by the bench's judge, at most -0.3), folds
per hand, and the share of the opponent's raises it refused.  Run::

    nice -n 15 python benchmarks/bot_ladder.py --games 100
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bot_levels import elo

from truc_p2p.bots import make_bot, play_local_game
from truc_p2p.bots._bench import _Judge, seating, wilson_interval
from truc_p2p.rules import Action, ActionKind, Event, Game, RoundEnded

DEFAULT = ("easy", "medium", "hard", "strongest")


@dataclass
class Character:
    """A level's counts over its games (see the module doc)."""

    hands: int = 0
    requests: int = 0
    bluffs: int = 0
    folds: int = 0
    answers: int = 0
    refusals: int = 0

    def add(self, other: Character) -> None:
        for k in vars(self):
            setattr(self, k, getattr(self, k) + getattr(other, k))


@dataclass
class _Watch:
    """Wraps a bot: counts its requests (judging the hand), folds and answers."""

    bot: object
    judge: _Judge
    counts: Character = field(default_factory=Character)

    @property
    def name(self) -> str:
        return str(getattr(self.bot, "name", "?"))

    def choose(self, game: Game) -> Action:
        action: Action = self.bot.choose(game)  # type: ignore[attr-defined]
        kind = action.kind
        if kind in (ActionKind.RAISE, ActionKind.REST):
            self.counts.requests += 1
            self.counts.bluffs += self.judge.strength(game) == "weak"
        elif kind is ActionKind.FOLD:
            self.counts.folds += 1
        elif game.pending is ActionKind.RAISE and kind in (ActionKind.ACCEPT, ActionKind.REFUSE):
            self.counts.answers += 1
            self.counts.refusals += kind is ActionKind.REFUSE
        return action


def play(
    a: str, b: str, seed: int, index: int, judge: _Judge
) -> tuple[bool, int, Character, Character]:
    """Game ``index`` of the pair: A won, hands, A's and B's characters."""
    a_seat, deal_seed, first_dealer = seating(seed, index)
    bot_seed = (seed * 1_000_003 + index) * 2
    wa = _Watch(make_bot(a, bot_seed), judge)
    wb = _Watch(make_bot(b, bot_seed + 1), judge)
    seats = (wa, wb) if int(a_seat) == 0 else (wb, wa)
    hands = 0

    def count(event: Event) -> None:
        nonlocal hands
        hands += isinstance(event, RoundEnded)

    outcome = play_local_game(
        *seats,  # type: ignore[arg-type]
        seed=deal_seed,
        first_dealer=first_dealer,
        on_event=count,
    )
    wa.counts.hands = wb.counts.hands = hands
    return outcome.winner is a_seat, hands, wa.counts, wb.counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="games per pair (default 100)")
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--boot", type=int, default=200, help="bootstrap resamples (default 200)")
    parser.add_argument("--bots", default=",".join(DEFAULT), help="comma-separated names")
    args = parser.parse_args()
    names = args.bots.split(",")
    judge = _Judge()
    started = time.perf_counter()
    pairs: dict[tuple[str, str], list[tuple[int, int]]] = {}
    hands: dict[tuple[str, str], list[int]] = {}
    character = {n: Character() for n in names}
    for a, b in itertools.combinations(names, 2):
        results = []
        for i in range(args.games):
            won, h, ca, cb = play(a, b, args.seed, i, judge)
            results.append(int(won))
            hands.setdefault((a, b), []).append(h)
            character[a].add(ca)
            character[b].add(cb)
        # duplicate pairs: (A's wins, games) of games 2k and 2k + 1
        pairs[(a, b)] = [
            (sum(results[k : k + 2]), len(results[k : k + 2])) for k in range(0, len(results), 2)
        ]
        w, n = sum(results), len(results)
        low, high = wilson_interval(w, n)
        print(
            f"{a} vs {b}: {w}/{n} ({100 * w / n:.1f}%, 95% [{100 * low:.1f}, {100 * high:.1f}]), "
            f"{sum(hands[(a, b)]) / n:.1f} hands per game",
            flush=True,
        )

    def fit(sample: dict[tuple[str, str], list[tuple[int, int]]]) -> dict[str, float]:
        wins = {k: (sum(w for w, _ in v), sum(n for _, n in v)) for k, v in sample.items()}
        r = elo(names, wins)
        return {k: v - r[names[0]] for k, v in r.items()}

    ratings = fit(pairs)
    rng = random.Random(args.seed)
    boots: dict[str, list[float]] = {n: [] for n in names}
    for _ in range(args.boot):
        sample = {k: [rng.choice(v) for _ in v] for k, v in pairs.items()}
        for k, v in fit(sample).items():
            boots[k].append(v)
    print()
    print("| level | Elo | 95% interval | requests/hand | bluffs | folds/hand | refused raises |")
    print("|---|---:|---|---:|---:|---:|---:|")
    for n in sorted(names, key=lambda x: ratings[x]):
        xs = sorted(boots[n])
        lo, hi = xs[int(0.025 * len(xs))], xs[min(len(xs) - 1, int(0.975 * len(xs)))]
        c = character[n]
        print(
            f"| {n} | {ratings[n]:.0f} | [{lo:.0f}, {hi:.0f}] | "
            f"{c.requests / max(1, c.hands):.2f} | "
            f"{100 * c.bluffs / max(1, c.requests):.0f}% of {c.requests} | "
            f"{c.folds / max(1, c.hands):.2f} | "
            f"{100 * c.refusals / max(1, c.answers):.0f}% of {c.answers} |"
        )
    print(
        f"\n{args.games} duplicate-deal games per pair, seed {args.seed}; Elo anchored at "
        f"{names[0]} = 0, intervals from {args.boot} bootstrap resamples of the duplicate pairs; "
        f"{time.perf_counter() - started:.0f} s"
    )


if __name__ == "__main__":
    main()
