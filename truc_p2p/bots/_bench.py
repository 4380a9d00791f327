"""Bot against bot through the rules engine alone: win rates, points and think times.

Games come in pairs played on the same shuffles with the seats swapped (each
bot gets the cards the other had), and the first dealer alternates between
pairs, so over every four games each bot sits in each seat with each first
dealer once.  Every game gets its own seeds, so a run is reproducible and
may be split over processes (``jobs``) without changing its results, apart
from the measured times.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import statistics
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final

from truc_p2p.bots._base import Bot
from truc_p2p.bots._local import play_local_game
from truc_p2p.bots._make import make_bot, parse_bot_name, racing
from truc_p2p.bots._round_table import (
    load_class_table,
    load_classes,
    load_redeal_table,
    load_table,
)
from truc_p2p.rules import (
    DEFAULT_RULESET,
    Action,
    ActionKind,
    Event,
    Game,
    GameEndReason,
    Player,
    RoundEnded,
    Ruleset,
)

__all__ = [
    "BenchReport",
    "BotFigures",
    "RaceFigures",
    "bench_bots",
    "bot_name_arg",
    "exact_exploitability",
    "level_exploitability",
    "race_bench",
    "redeal_exploitability",
    "score_class_exploitability",
    "seating",
    "wilson_interval",
]

_Z95 = 1.959963984540054


def score_class_exploitability(name: str) -> list[tuple[tuple[int, int], float]] | None:
    """The exact exploitability, in points per hand, of each score class's table
    that bot ``name`` plays near the end of a game, by the score it was solved at
    (the non-dealer's points, the dealer's); ``None`` when the bot plays no class
    table (not the solved bot, a racing one, or the classes are missing)."""
    try:
        kind, _ = parse_bot_name(name)
    except ValueError:
        return None
    doc = load_classes()
    if kind != "solved" or racing(name) or doc is None:
        return None
    out = []
    for index in range(1, len(doc["classes"])):
        table = load_class_table(index)
        if table is None or "exploitability_points" not in table.header:
            return None
        a, b = table.header["score"]
        out.append(((int(a), int(b)), float(table.header["exploitability_points"])))
    return out


def exact_exploitability(name: str) -> float | None:
    """The exact exploitability of bot ``name`` over the solved round's
    abstraction, in points per hand (the table's header, measured by best
    responses when it was built), or ``None`` when the bot does not play from
    the table.  A racing bot is measured as it plays before a player has 6
    points: the table without "my rest"."""
    try:
        kind, _ = parse_bot_name(name)
    except ValueError:
        return None
    table = load_table()
    if kind != "solved" or table is None:
        return None
    key = "exploitability_no_rest" if racing(name) else "exploitability"
    value = table.header.get(key)
    return None if value is None else float(value)


def redeal_exploitability(name: str) -> dict[str, float] | None:
    """The figures of the table with the redeal, which bot ``name`` plays while a
    round may still be redealt (from its header, measured when it was solved):
    ``exploitability`` (exact, points per hand; a racing bot's without "my
    rest"), ``value`` and ``value_no_redeal`` (the non-dealer's points per hand
    with and without the redeal); ``None`` when the bot does not play it."""
    try:
        kind, _ = parse_bot_name(name)
    except ValueError:
        return None
    if kind != "solved":
        return None
    table = load_redeal_table()
    if table is None:
        return None
    key = "_no_rest" if racing(name) else ""
    head = table.header
    if "exploitability" + key not in head or "value_no_redeal" not in head:
        return None
    return {
        "exploitability": float(head["exploitability" + key]),
        "value": float(head["value"]),
        "value_no_redeal": float(head["value_no_redeal"]),
    }


#: The levels' measured exploitability (``benchmarks/level_exploit.py --write``).
LEVEL_FIGURES: Final = "level_exploit.json"


def level_exploitability(name: str) -> dict[str, Any] | None:
    """The measured figures of level ``name`` (``easy``, ``medium``, ``hard``; or the
    bot a level is), from ``benchmarks/level_exploit.py``: ``lower_bound`` (``mean``,
    ``low``, ``high`` points per hand and ``hands``: a best response to the level's
    tabulated play, played in real first hands from 0–0, a lower bound of its
    exploitability), ``model`` (that best response's value over the abstraction
    against the tabulated play) and ``depth`` (how deep the level was asked);
    ``None`` for a bot that was not measured."""
    from importlib import resources

    from truc_p2p.bots._make import LEVELS

    level = {bot: lv for lv, bot in LEVELS.items()}.get(name, name)
    try:
        raw = resources.files("truc_p2p.bots").joinpath(LEVEL_FIGURES).read_text()
    except (FileNotFoundError, OSError):
        return None
    found = json.loads(raw).get(level)
    return found if isinstance(found, dict) else None


def wilson_interval(successes: int, trials: int, z: float = _Z95) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion (95 % by default)."""
    if trials <= 0:
        raise ValueError("the interval needs at least one trial")
    if not 0 <= successes <= trials:
        raise ValueError("successes must be between 0 and trials")
    p = successes / trials
    z2 = z * z
    denominator = 1 + z2 / trials
    centre = (p + z2 / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True, slots=True)
class BotFigures:
    """One bot's side of a bench: results and think time per decision (seconds)."""

    name: str
    wins: int
    games: int
    win_rate: float
    ci_low: float
    ci_high: float
    avg_points: float
    decisions: int
    think_median: float
    think_p95: float
    think_max: float

    def to_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "wins": self.wins,
            "games": self.games,
            "win_rate": self.win_rate,
            "ci95": [self.ci_low, self.ci_high],
            "avg_points": self.avg_points,
            "decisions": self.decisions,
            "think_s": {
                "median": self.think_median,
                "p95": self.think_p95,
                "max": self.think_max,
            },
        }


@dataclass(frozen=True, slots=True)
class BenchReport:
    """The result of :func:`bench_bots`."""

    games: int
    seed: int
    jobs: int
    elapsed: float
    ruleset: Ruleset
    a: BotFigures
    b: BotFigures

    def to_json(self) -> dict[str, object]:
        return {
            "games": self.games,
            "seed": self.seed,
            "jobs": self.jobs,
            "elapsed_s": self.elapsed,
            "ruleset": self.ruleset.to_dict(),
            "a": self.a.to_json(),
            "b": self.b.to_json(),
        }


@dataclass(frozen=True, slots=True)
class _GameResult:
    a_won: bool
    a_points: int
    b_points: int
    a_times: tuple[float, ...]
    b_times: tuple[float, ...]


class _Timed:
    """Wraps a bot and records how long each decision took."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.name = bot.name
        self.omniscient = getattr(bot, "omniscient", False)
        self.times: list[float] = []

    def choose(self, game: Game) -> Action:
        start = time.perf_counter()
        action = self.bot.choose(game)
        self.times.append(time.perf_counter() - start)
        return action


def bot_name_arg(name: str) -> str:
    """An ``argparse`` type for a bot name: an unknown one is a one-line usage error."""
    try:
        parse_bot_name(name)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return name


def seating(seed: int, index: int) -> tuple[Player, int, Player]:
    """Game ``index`` of a bench: bot A's seat, the seed of the shuffles, the first dealer.

    Games ``2k`` and ``2k + 1`` share their shuffles and first dealer with the
    seats swapped; the first dealer alternates from one pair to the next.
    """
    pair = index // 2
    return Player(index % 2), seed * 1_000_003 + pair, Player(pair % 2)


def _play_one(task: tuple[str, str, int, int, Ruleset]) -> _GameResult:
    """Play game ``index`` of a bench (see :func:`seating`)."""
    a_name, b_name, seed, index, ruleset = task
    a_seat, deal_seed, first_dealer = seating(seed, index)
    bot_seed = (seed * 1_000_003 + index) * 2
    a = _Timed(make_bot(a_name, bot_seed))
    b = _Timed(make_bot(b_name, bot_seed + 1))
    seats = (a, b) if a_seat is Player.P0 else (b, a)
    outcome = play_local_game(*seats, ruleset=ruleset, seed=deal_seed, first_dealer=first_dealer)
    return _GameResult(
        a_won=outcome.winner is a_seat,
        a_points=outcome.scores[a_seat],
        b_points=outcome.scores[a_seat.other],
        a_times=tuple(a.times),
        b_times=tuple(b.times),
    )


def _percentile(ordered: list[float], q: float) -> float:
    """Nearest-rank percentile of sorted data (0 for no data)."""
    if not ordered:
        return 0.0
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def _figures(name: str, wins: int, games: int, points: int, times: list[float]) -> BotFigures:
    low, high = wilson_interval(wins, games)
    times.sort()
    return BotFigures(
        name=name,
        wins=wins,
        games=games,
        win_rate=wins / games,
        ci_low=low,
        ci_high=high,
        avg_points=points / games,
        decisions=len(times),
        think_median=statistics.median(times) if times else 0.0,
        think_p95=_percentile(times, 0.95),
        think_max=times[-1] if times else 0.0,
    )


def bench_bots(
    a: str,
    b: str,
    *,
    games: int,
    seed: int = 0,
    jobs: int = 1,
    ruleset: Ruleset = DEFAULT_RULESET,
) -> BenchReport:
    """Play ``games`` games of bot ``a`` against bot ``b`` (names as for ``make_bot``)."""
    parse_bot_name(a)
    parse_bot_name(b)
    if games < 1:
        raise ValueError("play at least one game")
    if jobs < 1:
        raise ValueError("jobs must be at least 1")
    tasks = [(a, b, seed, i, ruleset) for i in range(games)]
    start = time.perf_counter()
    results: Iterable[_GameResult]
    if jobs == 1:
        results = list(map(_play_one, tasks))
    else:
        with multiprocessing.get_context("spawn").Pool(jobs) as pool:
            results = pool.map(_play_one, tasks, chunksize=max(1, games // (8 * jobs)))
    elapsed = time.perf_counter() - start
    done = list(results)
    a_wins = sum(r.a_won for r in done)
    return BenchReport(
        games=games,
        seed=seed,
        jobs=jobs,
        elapsed=elapsed,
        ruleset=ruleset,
        a=_figures(a, a_wins, games, sum(r.a_points for r in done), _times(done, "a")),
        b=_figures(b, games - a_wins, games, sum(r.b_points for r in done), _times(done, "b")),
    )


def _times(results: list[_GameResult], side: str) -> list[float]:
    out: list[float] = []
    for r in results:
        out.extend(r.a_times if side == "a" else r.b_times)
    return out


@dataclass(frozen=True, slots=True)
class ExploitRow:
    """One opponent of :func:`exploit_table`: the bot's and the oracle's results."""

    opponent: str
    bot: BotFigures
    oracle: BotFigures | None

    @property
    def kept(self) -> float | None:
        """The share of the oracle's margin over 50 % that the bot keeps."""
        if self.oracle is None or self.oracle.win_rate <= 0.5:
            return None
        return (self.bot.win_rate - 0.5) / (self.oracle.win_rate - 0.5)

    def to_json(self) -> dict[str, object]:
        return {
            "opponent": self.opponent,
            "bot": self.bot.to_json(),
            "oracle": None if self.oracle is None else self.oracle.to_json(),
            "margin_kept": self.kept,
        }


def exploit_table(
    name: str,
    opponents: Iterable[str],
    *,
    games: int,
    seed: int = 0,
    jobs: int = 1,
    ruleset: Ruleset = DEFAULT_RULESET,
    reference: str = "oracle",
) -> list[ExploitRow]:
    """Bot ``name`` and the all-seeing ``reference`` against each opponent, on the same deals.

    Every bench plays duplicate deals (pairs on the same shuffles, seats
    swapped) and every opponent is met on the same shuffles, by the bot and by
    the reference alike.  Plain opponents (not exploiters) get no reference row.
    """
    from truc_p2p.bots._exploit import is_exploiter

    rows = []
    for opponent in opponents:
        mine = bench_bots(name, opponent, games=games, seed=seed, jobs=jobs, ruleset=ruleset).a
        ref = None
        if is_exploiter(opponent):
            ref = bench_bots(
                reference, opponent, games=games, seed=seed, jobs=jobs, ruleset=ruleset
            ).a
        rows.append(ExploitRow(opponent=opponent, bot=mine, oracle=ref))
    return rows


# ------------------------------------------------------------------ the race to 12

#: An answer's hand is *strong* at or above this edge against a random hand
#: (chance of winning the round minus chance of losing it), *weak* at or below
#: minus it (see :func:`race_bench`).
STRONG_EDGE: Final = 0.3
#: The hands of a short sitting: :attr:`RaceFigures.early` counts the points in them.
SITTING: Final = 5


@dataclass(frozen=True, slots=True)
class RaceFigures:
    """Bot A against bot B over duplicate deals: who wins and how the games go.

    ``answers`` counts A's answers to B's "2 more?" by the strength of A's hand
    (``"strong"``, ``"middling"``, ``"weak"``): ``(accepted, answered)``.
    """

    a: str
    b: str
    games: int
    a_wins: int
    hands: int
    rest_games: int
    answers: dict[str, tuple[int, int]]
    #: A's points minus B's over the first :data:`SITTING` hands of every game.
    early: int = 0
    #: The games where B leads after those hands: more points in them, or the
    #: game won within them (a short sitting that says B is the better player).
    early_behind: int = 0

    @property
    def win_rate(self) -> float:
        return self.a_wins / self.games

    @property
    def hands_per_game(self) -> float:
        return self.hands / self.games

    @property
    def rest_share(self) -> float:
        """The share of games ended by "my rest" (won or refused)."""
        return self.rest_games / self.games

    def accept_rate(self, strength: str) -> float | None:
        accepted, answered = self.answers.get(strength, (0, 0))
        return accepted / answered if answered else None

    def to_json(self) -> dict[str, object]:
        low, high = wilson_interval(self.a_wins, self.games)
        return {
            "a": self.a,
            "b": self.b,
            "games": self.games,
            "a_wins": self.a_wins,
            "ci95": [low, high],
            "hands_per_game": self.hands_per_game,
            "rest_share": self.rest_share,
            "answers": {k: list(v) for k, v in self.answers.items()},
            "early_points_per_game": self.early / self.games,
            "b_leads_after_sitting": self.early_behind / self.games,
        }


class _Judge:
    """The strength of a hand against a random one, the same for every bot."""

    def __init__(self) -> None:
        from truc_p2p.bots._heuristic import HeuristicBot

        self._bot = HeuristicBot(12345, samples=200)

    def strength(self, game: Game) -> str:
        me = game.to_act
        assert me is not None
        est = self._bot._scores(game, me, [None], False)[0]
        edge = est.win - est.lose
        if edge >= STRONG_EDGE:
            return "strong"
        return "weak" if edge <= -STRONG_EDGE else "middling"


class _Answers:
    """Wraps bot A and counts its answers to the opponent's raises by hand strength."""

    def __init__(self, bot: Bot, judge: _Judge, counts: dict[str, list[int]]) -> None:
        self.bot = bot
        self.name = bot.name
        self.omniscient = getattr(bot, "omniscient", False)
        self._judge = judge
        self._counts = counts

    def choose(self, game: Game) -> Action:
        action = self.bot.choose(game)
        if game.pending is ActionKind.RAISE and game.requester is not game.to_act:
            row = self._counts.setdefault(self._judge.strength(game), [0, 0])
            row[0] += action.kind is ActionKind.ACCEPT
            row[1] += 1
        return action


def _race_one(
    task: tuple[str, str, int, int, Ruleset],
) -> tuple[bool, int, bool, dict[str, list[int]], int, bool]:
    a_name, b_name, seed, index, ruleset = task
    a_seat, deal_seed, first_dealer = seating(seed, index)
    bot_seed = (seed * 1_000_003 + index) * 2
    counts: dict[str, list[int]] = {}
    a = _Answers(make_bot(a_name, bot_seed), _Judge(), counts)
    b = make_bot(b_name, bot_seed + 1)
    seats = (a, b) if a_seat is Player.P0 else (b, a)
    hands = early = 0

    def count(event: Event) -> None:
        nonlocal hands, early
        if isinstance(event, RoundEnded):
            hands += 1
            if hands <= SITTING and event.winner is not None:
                early += event.points if event.winner is a_seat else -event.points

    outcome = play_local_game(
        *seats, ruleset=ruleset, seed=deal_seed, first_dealer=first_dealer, on_event=count
    )
    rest = outcome.reason is not GameEndReason.TARGET
    # A game over within the sitting is led by its winner; else by the points.
    behind = outcome.winner is not a_seat if hands <= SITTING else early < 0
    return outcome.winner is a_seat, hands, rest, counts, early, behind


def race_bench(
    a: str,
    b: str,
    *,
    games: int,
    seed: int = 0,
    jobs: int = 1,
    ruleset: Ruleset = DEFAULT_RULESET,
) -> RaceFigures:
    """``games`` duplicate-deal games of ``a`` against ``b`` (as :func:`bench_bots`):
    A's wins, hands per game, games ended by "my rest", A's answers to raises."""
    parse_bot_name(a)
    parse_bot_name(b)
    if games < 1:
        raise ValueError("play at least one game")
    tasks = [(a, b, seed, i, ruleset) for i in range(games)]
    if jobs == 1:
        done = list(map(_race_one, tasks))
    else:
        with multiprocessing.get_context("spawn").Pool(jobs) as pool:
            done = pool.map(_race_one, tasks, chunksize=max(1, games // (8 * jobs)))
    answers: dict[str, list[int]] = {}
    for *_, counts, _early, _behind in done:
        for k, (acc, n) in counts.items():
            row = answers.setdefault(k, [0, 0])
            row[0] += acc
            row[1] += n
    return RaceFigures(
        a=a,
        b=b,
        games=games,
        a_wins=sum(r[0] for r in done),
        hands=sum(r[1] for r in done),
        rest_games=sum(r[2] for r in done),
        answers={k: (v[0], v[1]) for k, v in sorted(answers.items())},
        early=sum(r[4] for r in done),
        early_behind=sum(r[5] for r in done),
    )
