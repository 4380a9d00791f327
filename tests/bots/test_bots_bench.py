"""``bench bots``, bot names, ``--bot``/``--think``, and the equity table."""

from __future__ import annotations

import argparse
import json

import pytest

from truc_p2p.bots import (
    BOT_NAMES,
    DEFAULT_OPPONENT,
    Bot,
    HeuristicBot,
    RandomBot,
    SearchBot,
    make_bot,
    parse_bot_name,
    play_local_game,
    with_think,
)
from truc_p2p.bots._bench import bench_bots, bot_name_arg, seating, wilson_interval
from truc_p2p.bots._cfr import CfrBot
from truc_p2p.bots._equity import win_chance
from truc_p2p.bots._solved import SolvedBot
from truc_p2p.cli import build_parser, main
from truc_p2p.rules import Action, Card, Game, Player

P0, P1 = Player.P0, Player.P1


def test_wilson_interval_known_values() -> None:
    low, high = wilson_interval(5, 10)
    assert low == pytest.approx(0.2366, abs=1e-4) and high == pytest.approx(0.7634, abs=1e-4)
    assert wilson_interval(0, 10)[0] == 0.0
    low, high = wilson_interval(1300, 2000)
    assert low == pytest.approx(0.6288, abs=1e-4) and high == pytest.approx(0.6706, abs=1e-4)
    with pytest.raises(ValueError):
        wilson_interval(3, 0)
    with pytest.raises(ValueError):
        wilson_interval(4, 3)


class _HandRecorder:
    """Plays the first legal action and records the hand it holds at each decision."""

    name = "recorder"

    def __init__(self) -> None:
        self.hands: list[tuple[Card, ...]] = []

    def choose(self, game: Game) -> Action:
        assert game.view is not None
        self.hands.append(game.hand(game.view) or ())
        return next(iter(game.legal_actions()))


def test_bench_pairs_share_the_shuffles_with_seats_swapped() -> None:
    plan = [seating(9, i) for i in range(4)]
    assert [seat for seat, _, _ in plan] == [P0, P1, P0, P1]
    assert [dealer for _, _, dealer in plan] == [P0, P0, P1, P1]
    assert plan[0][1] == plan[1][1] != plan[2][1] == plan[3][1]
    # Same shuffles and first dealer: the seat gets the same cards whoever sits there.
    seen = []
    for first_dealer in (P0, P0, P1):
        bots = (_HandRecorder(), _HandRecorder())
        play_local_game(*bots, seed=plan[0][1], first_dealer=first_dealer)
        seen.append(bots[0].hands[0])
    assert seen[0] == seen[1] != seen[2]


def test_bench_report_shape() -> None:
    report = bench_bots("search:fast", "random", games=4, seed=1)
    assert report.games == 4 and report.jobs == 1
    a, b = report.a, report.b
    assert (a.name, b.name) == ("search:fast", "random")
    assert a.wins + b.wins == 4
    for f in (a, b):
        assert f.games == 4
        assert f.ci_low <= f.win_rate <= f.ci_high
        assert f.decisions > 0
        assert 0 < f.think_median <= f.think_p95 <= f.think_max
    doc = report.to_json()
    assert set(doc) == {"games", "seed", "jobs", "elapsed_s", "ruleset", "a", "b"}
    assert set(doc["a"]) == {  # type: ignore[arg-type]
        "name",
        "wins",
        "games",
        "win_rate",
        "ci95",
        "avg_points",
        "decisions",
        "think_s",
    }
    with pytest.raises(ValueError):
        bench_bots("perfect", "random", games=2)
    with pytest.raises(ValueError):
        bench_bots("random", "random", games=0)


def test_bench_is_reproducible_and_splits_over_processes() -> None:
    one = bench_bots("heuristic", "random", games=6, seed=3)
    two = bench_bots("heuristic", "random", games=6, seed=3, jobs=2)
    assert (one.a.wins, one.a.avg_points, one.a.decisions) == (
        two.a.wins,
        two.a.avg_points,
        two.a.decisions,
    )


def test_bench_bots_command(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["bench", "bots", "--a", "search:fast", "--b", "heuristic", "--games", "2"]
    assert main([*argv, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["games"] == 2 and doc["a"]["name"] == "search:fast"
    assert doc["a"]["wins"] + doc["b"]["wins"] == 2
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("2 games, search:fast vs heuristic")
    assert "95% interval" in lines[1] and "p95" in lines[1]
    assert lines[2].split()[0] == "search:fast" and lines[3].split()[0] == "heuristic"
    with pytest.raises(SystemExit):
        main(["bench", "bots", "--a", "perfect"])


# ------------------------------------------------------------------ names


def test_bot_names() -> None:
    assert BOT_NAMES[:4] == ("easy", "medium", "hard", "strongest")  # the levels, weakest first
    assert {"random", "heuristic", "search", "search:fast", "search:strong"} <= set(BOT_NAMES)
    for name in BOT_NAMES:
        bot = make_bot(name, 1)
        assert isinstance(bot, Bot) and bot.name == name
    assert isinstance(make_bot("random"), RandomBot)
    assert isinstance(make_bot("heuristic"), HeuristicBot)
    fast, strong = make_bot("search:fast"), make_bot("search:strong")
    assert isinstance(fast, SearchBot) and isinstance(strong, SearchBot)
    assert fast.iterations < SearchBot().iterations < strong.iterations
    custom = make_bot("search:2500")
    assert isinstance(custom, SearchBot) and custom.iterations == 2500 and custom.think is None
    timed = make_bot("search:0.25s")
    assert isinstance(timed, SearchBot) and timed.think == 0.25
    expert = make_bot("expert")
    assert isinstance(expert, SearchBot) and expert.game_model and expert.mix > 0
    strongest = make_bot("strongest")
    assert isinstance(strongest, SolvedBot) and make_bot("cfr:0.2s").name == "cfr:0.2s"
    assert isinstance(make_bot("cfr+race"), CfrBot)  # the earlier strongest
    assert isinstance(make_bot("hard"), SearchBot) and make_bot("expert:0.2s").name == "expert:0.2s"
    for bad in (
        "perfect",
        "random:fast",
        "search:",
        "search:slow",
        "search:0",
        "search:-1s",
        "medium:fast",
        "stake:",
        "stake:2",
    ):
        with pytest.raises(ValueError):
            parse_bot_name(bad)
    assert with_think("search:fast", 0.5) == "search:0.5s"
    with pytest.raises(ValueError):
        with_think("heuristic", 1)


def test_play_defaults_to_the_medium_level_and_think_sets_its_time() -> None:
    parser = build_parser()
    assert parser.parse_args(["play"]).bot == DEFAULT_OPPONENT == "medium"
    assert parser.parse_args(["play", "--think", "2"]).bot == "solved:2s"
    assert parser.parse_args(["play", "--bot", "strongest", "--think", "0.5"]).bot == "solved:0.5s"
    assert parser.parse_args(["play", "--bot", "expert", "--think", "0.5"]).bot == "expert:0.5s"
    assert parser.parse_args(["play", "--bot", "search", "--think", "0.5"]).bot == "search:0.5s"
    assert parser.parse_args(["play", "--think", "2", "--bot", "search:fast"]).bot == "search:2s"
    assert parser.parse_args(["host", "--bot", "search:strong"]).bot == "search:strong"
    assert parser.parse_args(["join", "truc://x", "--bot", "random"]).bot == "random"
    for bad in (["play", "--bot", "random", "--think", "1"], ["play", "--bot", "nobody"]):
        with pytest.raises(SystemExit):
            parser.parse_args(bad)


# ----------------------------------------------------------------- equity


@pytest.mark.parametrize("target", [1, 5, 12, 100, 1000])
def test_win_chances_are_sane(target: int) -> None:
    assert win_chance(target, 0, target) == 1.0 and win_chance(0, target, target) == 0.0
    assert 0.5 < win_chance(0, 0, target) < 1.0  # the bot expects to outplay its opponent
    # Against an opponent who stakes the game often, a lead is worth less.
    if target > 4:
        lead = win_chance(target // 2, 0, target) - win_chance(0, target // 2, target)
        lead_vs_rests = win_chance(target // 2, 0, target, game_ends=0.4) - win_chance(
            0, target // 2, target, game_ends=0.4
        )
        assert lead > lead_vs_rests > 0
    for a in range(0, target, max(1, target // 6)):
        for b in range(0, target, max(1, target // 6)):
            here = win_chance(a, b, target)
            assert 0.0 < here < 1.0
            assert win_chance(a + 1, b, target) >= here >= win_chance(a, b + 1, target)


def test_benchmark_scripts_take_bot_names_as_the_cli_does() -> None:
    assert bot_name_arg("strongest") == "strongest"
    assert bot_name_arg("stake:0.5") == "stake:0.5"
    with pytest.raises(argparse.ArgumentTypeError, match="unknown bot 'nosuch'"):
        bot_name_arg("nosuch")
