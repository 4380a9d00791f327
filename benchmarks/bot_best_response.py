"""How much more could any opening win against an opponent than the CFR bot's table?

The CFR bot (``strongest``) plays ``--games`` games against ``--opponent`` on
duplicate deals (as ``truc-p2p bench bots``) while every opening decision of
the opponent is recorded (its seat, the node, its hand, its action).  Then the
whole game is solved in the opening abstraction
(`benchmarks/cfr_response.py`) against that measured opening, twice:
with the bot playing its table — what the model predicts for the games just
played, a check of the model — and with the bot's best response at each of
its opening decisions, knowing the opponent's measured strategy exactly.  The
difference is the room left to any opening strategy against that opponent
(in the model: after the opening, nobody outplays anybody).  It also prints
the table's exploitability at the level of the game (its best response
against the table itself).  Run::

    nice -n 15 python benchmarks/bot_best_response.py --opponent search --games 4000 --jobs 2
"""

from __future__ import annotations

import argparse
from concurrent.futures import ProcessPoolExecutor

from cfr_response import Decision, OpeningPolicy, game_values

from truc_p2p.bots import Bot, make_bot, play_local_game
from truc_p2p.bots._bench import bot_name_arg, seating, wilson_interval
from truc_p2p.bots._cfr import CfrBot, opening_letter, opening_position
from truc_p2p.bots._cfr_game import DEALER, LEADER
from truc_p2p.bots._search import SearchBot
from truc_p2p.rules import Action, Game, Player


class _Recorder:
    """Plays as ``bot`` and records its decisions inside the opening model."""

    def __init__(self, bot: Bot, decisions: list[Decision]) -> None:
        self._bot = bot
        self.name = bot.name
        self._decisions = decisions
        self._reader = SearchBot(0)  # only for its reading of the public record

    def choose(self, game: Game) -> Action:
        action = self._bot.choose(game)
        me = game.to_act
        hand = game.hand(me) if me is not None else None
        position = opening_position(game, self._reader.deal_actions(game))
        if position is not None and hand is not None and len(hand) == 3:
            _, role, tree, path = position
            letter = opening_letter(action, role)
            if letter is not None:
                strengths = tuple(sorted(c.strength for c in hand))
                self._decisions.append((role, tree, path, strengths, letter))
        return action


def play_one(task: tuple[str, str, int, int]) -> tuple[bool, list[Decision]]:
    """Game ``index`` of the run: whether the bot won, and the opponent's decisions."""
    bot_name, opponent_name, seed, index = task
    a_seat, deal_seed, first_dealer = seating(seed, index)
    bot_seed = (seed * 1_000_003 + index) * 2
    decisions: list[Decision] = []
    bot = make_bot(bot_name, bot_seed)
    opponent = _Recorder(make_bot(opponent_name, bot_seed + 1), decisions)
    seats = (bot, opponent) if a_seat is Player.P0 else (opponent, bot)
    outcome = play_local_game(*seats, seed=deal_seed, first_dealer=first_dealer)
    return outcome.winner is a_seat, decisions


def _percent(x: float) -> str:
    return f"{100 * x:.1f} %"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--opponent", type=bot_name_arg, default="search", help="the opponent (default search)"
    )
    parser.add_argument(
        "--bot", type=bot_name_arg, default="strongest", help="a CFR bot (default strongest)"
    )
    parser.add_argument("--games", type=int, default=2000, help="games, an even number")
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument(
        "--smoothing",
        type=float,
        default=2.0,
        help="pseudo-decisions per hand of the table's strategy at each node (default 2)",
    )
    args = parser.parse_args()
    if args.games < 2 or args.games % 2 or args.jobs < 1 or args.smoothing < 0:
        parser.error("--games must be even and at least 2, --jobs at least 1, --smoothing ≥ 0")
    if not isinstance(make_bot(args.bot, 0), CfrBot):
        parser.error(f"--bot must be a CFR bot (strongest, cfr…), not {args.bot!r}")
    tasks = [(args.bot, args.opponent, args.seed, i) for i in range(args.games)]
    if args.jobs == 1:
        results = list(map(play_one, tasks))
    else:
        with ProcessPoolExecutor(args.jobs) as pool:
            results = list(pool.map(play_one, tasks, chunksize=8))
    wins = sum(won for won, _ in results)
    policy = OpeningPolicy.from_decisions(d for _, ds in results for d in ds)
    lo, hi = wilson_interval(wins, args.games)
    print(
        f"{args.bot} against {args.opponent}: {args.games} games on duplicate deals "
        f"(seed {args.seed}); {policy.decisions} opening decisions of {args.opponent} recorded"
    )
    outside = sum(policy.outside.values())
    if outside:
        common = ", ".join(
            f"{_name(letter)} after {path!r} ×{n}"
            for (path, letter), n in policy.outside.most_common(3)
        )
        print(f"{outside} decisions have no action in the model, left out: {common}")
    first = policy.frequencies(LEADER, 1, "")
    shown = ", ".join(f"{_name(a)} {_percent(p)}" for a, p in _grouped(first).items())
    print(f"{args.opponent}'s first decision as the leader: {shown}")
    print("| the bot's opening | against | as leader | as dealer | game from 0–0 |")
    print("|---|---|---:|---:|---:|")
    rows = (
        ("the table (model)", args.opponent, policy, False),
        ("best response (model)", args.opponent, policy, True),
        ("the table (model)", "the table", None, False),
        ("best response (model)", "the table", None, True),
    )
    values = {}
    for label, against, opp, best in rows:
        g = game_values(opp, best=best, smoothing=args.smoothing)
        values[(against, best)] = g.first_game()
        print(
            f"| {label} | {against} | {_percent(g.start(LEADER))} | "
            f"{_percent(g.start(DEALER))} | {_percent(g.first_game())} |"
        )
    print(
        f"| played (95 % interval) | {args.opponent} | | | {_percent(wins / args.games)} "
        f"({_percent(lo)}–{_percent(hi)}) |"
    )
    room = values[(args.opponent, True)] - values[(args.opponent, False)]
    exploit = values[("the table", True)] - values[("the table", False)]
    print(
        f"room left to any opening against {args.opponent}: {100 * room:+.1f} points; "
        f"the table's exploitability at the game level: {100 * exploit:+.1f} points"
    )


_NAMES = {"f": "fold", "s": "my rest", "r": "raise", "q": "ask for a redeal", "lead": "lead a card"}


def _name(letter: str) -> str:
    return _NAMES.get(letter, letter)


def _grouped(frequencies: dict[str, float]) -> dict[str, float]:
    """The leader's cards as one "lead a card"."""
    out: dict[str, float] = {}
    for letter, p in frequencies.items():
        key = "lead" if letter.isdigit() else letter
        out[key] = out.get(key, 0.0) + p
    return out


if __name__ == "__main__":
    main()
