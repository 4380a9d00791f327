"""``truc-p2p bench``: benchmarks that print figures."""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any

from truc_p2p.bench import Column, table
from truc_p2p.cli._common import MAX_COUNT, UsageError, bot_name, count, cpu_jobs
from truc_p2p.cli._parser import COMMAND_HELP
from truc_p2p.i18n import _, ngettext
from truc_p2p.rules import Ladder, RestRefused, RulesError, Ruleset


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("bench", help=_(COMMAND_HELP["bench"]))
    sub = parser.add_subparsers(dest="bench", metavar="WHAT", required=True)
    deck = sub.add_parser("deck", help=_("mental-poker deck: per-operation and per-hand cost"))
    deck.add_argument("--hands", type=int, default=20, help=_("hands to time (default 20)"))
    deck.add_argument("--json", action="store_true", help=_("print one JSON object"))
    deck.set_defaults(func=_bench_deck)

    bots = sub.add_parser(
        "bots",
        help=_("bot against bot through the rules engine: win rate, points, think time"),
        description=_(
            "Play N games of bot A against bot B through the rules engine alone "
            "(no network, no deck). Games come in pairs on the same shuffles with the seats "
            "swapped, and the first dealer alternates between pairs. Reports each bot's win "
            "rate with a 95%% (Wilson) interval, its average points per game and its think "
            "time per decision (median, p95, max)."
        ),
    )
    bots.add_argument("--a", type=bot_name, default="search", metavar="NAME", help=_("bot A"))
    bots.add_argument("--b", type=bot_name, default="heuristic", metavar="NAME", help=_("bot B"))
    bots.add_argument("--games", type=count, default=200, help=_("games (default 200)"))
    bots.add_argument("--seed", type=int, default=0, help=_("seed of the shuffles and bots"))
    bots.add_argument(
        "--jobs",
        type=cpu_jobs,
        default=1,
        help=_("processes to play on (default 1; at most the number of CPUs)"),
    )
    bots.add_argument("--target", type=int, default=12, help=_("points to win (default 12)"))
    bots.add_argument("--ladder", choices=[x.value for x in Ladder], default=Ladder.LITERAL.value)
    bots.add_argument(
        "--rest-refused", choices=[x.value for x in RestRefused], default=RestRefused.GAME.value
    )
    bots.add_argument(
        "--exploit",
        type=bot_name,
        default=None,
        metavar="NAME",
        help=_(
            "instead of A vs B: bot NAME and the all-seeing oracle against every "
            "exploiter (stake:T, always-rest, always-raise, always-refuse, fold-bait, "
            "redeal-spam) and random, heuristic, search, on the same duplicate deals; "
            "prints each win rate with its 95%% interval and the share of the oracle's "
            "margin the bot keeps"
        ),
    )
    bots.add_argument(
        "--against",
        default="",
        metavar="A,B,...",
        help=_("with --exploit: only these opponents (default: all)"),
    )
    bots.add_argument("--json", action="store_true", help=_("print one JSON object"))
    bots.set_defaults(func=_bench_bots)

    game = sub.add_parser(
        "game",
        help=_("whole games: messages, flights, bytes, CPU and wall time per hand"),
        description=_(
            "Bot games through the full protocol in one process: messages, flights "
            "and deal flights on the critical path per hand, bytes per hand, CPU per hand per "
            "peer beside its floor, wall time per game over a link with an emulated delay beside "
            "the model (CPU + flights x one-way delay), and with --concurrency N,M,... many "
            "games at once."
        ),
    )
    game.add_argument("--games", type=count, default=10, help=_("games (default 10)"))
    game.add_argument(
        "--rtt",
        type=_rtt_ms,
        default=50.0,
        metavar="MS",
        help=_("round trip in ms, 0 to 60000 (default 50)"),
    )
    game.add_argument("--target", type=_positive_int, default=12, help=_("points (default 12)"))
    game.add_argument(
        "--concurrency",
        default="",
        metavar="N,M,...",
        help=_("also play N games at once (e.g. 1,10,50,200) and report games/s"),
    )
    game.add_argument("--json", action="store_true", help=_("print one JSON object"))
    game.set_defaults(func=_bench_game)


def _rtt_ms(text: str) -> float:
    """argparse type: a round trip in milliseconds, finite, from 0 to a minute."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            _("not a number of milliseconds: {text}", text=repr(text))
        ) from None
    if not (math.isfinite(value) and 0 <= value <= 60_000):
        raise argparse.ArgumentTypeError(
            _("must be from 0 to 60000 ms, not {text}", text=repr(text))
        )
    return value


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(_("not a whole number: {text}", text=repr(text))) from None
    if value < 1:
        raise argparse.ArgumentTypeError(_("must be at least 1"))
    return value


def _bench_game(args: argparse.Namespace) -> int:
    from truc_p2p.bench import game_main as bench_main

    try:
        levels = [int(x) for x in args.concurrency.split(",") if x.strip()]
    except ValueError:
        raise UsageError(
            _("--concurrency takes numbers like 1,10,50, not {value}", value=repr(args.concurrency))
        ) from None
    if any(n < 1 for n in levels):
        raise UsageError(_("--concurrency takes positive numbers"))
    return bench_main(
        games=args.games,
        rtt_ms=args.rtt,
        target=args.target,
        concurrency=levels,
        as_json=args.json,
    )


def _bench_deck(args: argparse.Namespace) -> int:
    from truc_p2p.bench import deck_main as bench_main

    if args.hands > MAX_COUNT:
        print(
            "truc-p2p bench: "
            + _("--hands must be at most {most}, not {n}", most=MAX_COUNT, n=args.hands),
            file=sys.stderr,
        )
        return 2
    return bench_main(hands=args.hands, as_json=args.json)


def _bench_bots(args: argparse.Namespace) -> int:
    from truc_p2p.bots._bench import BotFigures, bench_bots

    try:
        ruleset = Ruleset.from_dict(
            {"target": args.target, "ladder": args.ladder, "rest_refused": args.rest_refused}
        )
    except RulesError as exc:
        print("truc-p2p bench bots: " + _("bad ruleset option: {reason}", reason=exc))
        return 2
    if args.exploit is not None:
        return _bench_exploit(args, ruleset)
    report = bench_bots(
        args.a,
        args.b,
        games=args.games,
        seed=args.seed,
        jobs=min(args.jobs, args.games),  # no idle workers
        ruleset=ruleset,
    )
    if args.json:
        print(json.dumps(report.to_json()))
        return 0

    def row(f: BotFigures) -> list[str]:
        return [
            f.name,
            str(f.wins),
            f"{100 * f.win_rate:.1f}%",
            _interval(f.ci_low, f.ci_high),
            f"{f.avg_points:.2f}",
            str(f.decisions),
            f"{1000 * f.think_median:.1f}",
            f"{1000 * f.think_p95:.1f}",
            f"{1000 * f.think_max:.1f}",
        ]

    print(
        ngettext(
            "{n} games, {a} vs {b}, seed {seed}, {jobs} job(s), {seconds} s",
            "{n} games, {a} vs {b}, seed {seed}, {jobs} job(s), {seconds} s",
            report.games,
            a=args.a,
            b=args.b,
            seed=report.seed,
            jobs=report.jobs,
            seconds=f"{report.elapsed:.1f}",
        )
    )
    columns = [
        Column(_("bot"), "<", 15),
        Column(_("wins"), ">", 6, " "),
        Column(_("win rate"), ">", 9, " "),
        Column(_("95% interval"), "<", 16),
        Column(_("points/game"), ">", 11),
        Column(_("decisions"), ">", 9),
        Column(_("median ms"), ">", 9),
        Column(_("p95 ms"), ">", 9),
        Column(_("max ms"), ">", 9),
    ]
    print("\n".join(table(columns, [row(report.a), row(report.b)])))
    return 0


def _interval(low: float, high: float) -> str:
    return f"[{100 * low:5.1f}%, {100 * high:5.1f}%]"


def _bench_exploit(args: argparse.Namespace, ruleset: Ruleset) -> int:
    from truc_p2p.bots._bench import (
        exact_exploitability,
        exploit_table,
        level_exploitability,
        redeal_exploitability,
        score_class_exploitability,
    )
    from truc_p2p.bots._exploit import EXPLOITERS

    opponents = [x.strip() for x in args.against.split(",") if x.strip()] or [
        "random",
        "heuristic",
        "search",
        *EXPLOITERS,
    ]
    for name in opponents:
        bot_name(name)
    rows = exploit_table(
        args.exploit, opponents, games=args.games, seed=args.seed, jobs=args.jobs, ruleset=ruleset
    )
    if args.json:
        print(
            json.dumps(
                {
                    "bot": args.exploit,
                    "exploitability": exact_exploitability(args.exploit),
                    "score_classes": [
                        {"score": list(score), "exploitability": points}
                        for score, points in score_class_exploitability(args.exploit) or []
                    ],
                    "redeal": redeal_exploitability(args.exploit),
                    "exploitability_lower_bound": level_exploitability(args.exploit),
                    "levels": _levels_exploitability(),
                    "games": args.games,
                    "seed": args.seed,
                    "rows": [r.to_json() for r in rows],
                }
            )
        )
        return 0
    print(
        ngettext(
            "{bot} and the all-seeing oracle, {n} duplicate-deal game per opponent, seed {seed}",
            "{bot} and the all-seeing oracle, {n} duplicate-deal games per opponent, seed {seed}",
            args.games,
            bot=args.exploit,
            seed=args.seed,
        )
    )
    exact = exact_exploitability(args.exploit)
    bound = level_exploitability(args.exploit)
    if exact is not None:
        print(
            _("exact exploitability over the solved round: {points} points per hand", points=exact)
        )
        classes = score_class_exploitability(args.exploit)
        if classes:
            print(
                _(
                    "near the end of a game, a table per score class (non-dealer–dealer: "
                    "exact, points per hand): {classes}",
                    classes=", ".join(f"{a}–{b} {x:.4f}" for (a, b), x in classes),
                )
            )
        redeal = redeal_exploitability(args.exploit)
        if redeal is not None:
            print(
                _(
                    "while a round may be redealt, the table with the redeal: exact "
                    "exploitability {points} points per hand; the redeal is worth {gain} "
                    "points per hand to the non-dealer",
                    points=redeal["exploitability"],
                    gain=f"{redeal['value'] - redeal['value_no_redeal']:+.4f}",
                )
            )
    elif bound is not None:
        print(_bound_line(bound["lower_bound"]))
    else:
        print(_("exact exploitability: not measured (the bot does not play the solved round)"))
    columns = [
        Column(_("opponent"), "<", 14),
        Column(_("bot win"), ">", 8, " "),
        Column(_("95% interval"), "<", 16),
        Column(_("oracle"), ">", 7),
        Column(_("95% interval"), "<", 16),
        Column(_("margin kept"), ">", 11),
    ]
    lines = []
    for r in rows:
        b, o = r.bot, r.oracle
        cells = [r.opponent, f"{100 * b.win_rate:.1f}%", _interval(b.ci_low, b.ci_high)]
        if o is not None:
            kept = "-" if r.kept is None else f"{100 * r.kept:.0f}%"
            cells += [f"{100 * o.win_rate:.1f}%", _interval(o.ci_low, o.ci_high), kept]
        lines.append(cells)
    print("\n".join(table(columns, lines)))
    _print_levels()
    return 0


def _bound_line(bound: dict[str, Any]) -> str:
    return _(
        "exploitability, a lower bound: a best response to its tabulated play wins "
        "{mean} points per hand (95% interval [{low}, {high}], {hands} first hands from 0–0)",
        mean=f"{bound['mean']:.2f}",
        low=f"{bound['low']:.2f}",
        high=f"{bound['high']:.2f}",
        hands=int(bound["hands"]),
    )


def _levels_exploitability() -> dict[str, dict[str, Any] | None]:
    """Every level's exploitability: exact (the solved table's) or a lower bound."""
    from truc_p2p.bots import LEVELS
    from truc_p2p.bots._bench import exact_exploitability, level_exploitability

    out: dict[str, dict[str, Any] | None] = {}
    for level in LEVELS:
        exact = exact_exploitability(level)
        bound = level_exploitability(level)
        if exact is not None:
            out[level] = {"exact": exact}
        elif bound is not None:
            out[level] = {"lower_bound": bound["lower_bound"]}
        else:
            out[level] = None
    return out


def _print_levels() -> None:
    """Every level's exploitability, after the bot's table."""
    print(_("every level's exploitability, in points per hand:"))
    columns = [
        Column(_("level"), "<", 10),
        Column(_("points per hand"), ">", 15, " "),
        Column(_("95% interval"), "<", 16),
        Column("", "<", 12),
    ]
    lines = []
    for level, figure in _levels_exploitability().items():
        if figure is None:
            lines.append([level, "-", "", ""])
        elif "exact" in figure:
            lines.append([level, f"{figure['exact']:.4f}", "", _("exact")])
        else:
            b = figure["lower_bound"]
            interval = f"[{b['low']:.2f}, {b['high']:.2f}]"
            lines.append([level, f"{b['mean']:.2f}", interval, _("lower bound")])
    print("\n".join(table(columns, lines)))
