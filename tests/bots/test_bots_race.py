"""The levels as opponents (issue 32): the default level is not farmed by
raising blind, its answers follow its cards, and the strong levels race to 12
instead of staking the game in the first rounds."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.bots import P0, P1, view

from truc_p2p.bots import LEVELS, make_bot, parse_bot_name, with_think
from truc_p2p.bots._bench import race_bench, wilson_interval
from truc_p2p.bots._exploit import ExploiterBot
from truc_p2p.bots._search import SearchBot, rest_open
from truc_p2p.rules import Action, ActionKind, Game


def _scored(points: int) -> list[tuple[str, list[str]]]:
    """Rounds in which P0 (leading the odd rounds) gets ``points`` by the opponent folding."""
    rounds: list[tuple[str, list[str]]] = []
    for i in range(points):
        if i % 2 == 0:  # P1 deals, P0 leads: P0 plays, P1 folds
            rounds.append(("9C 9D 10S", ["play 9C", "fold"]))
        else:  # P0 deals, P1 leads and folds at once
            rounds.append(("9C 9D 10S", ["fold"]))
    return rounds


def _strong_lead(before: int) -> Game:
    """P0 leads with 7 7 8 after ``before`` (even) points of its own."""
    game = view([*_scored(before), ("7C 7D 8S", [])], seat=P0)
    assert game.to_act is P0 and game.scores == (before, 0)
    return game


def test_the_gate_opens_once_a_player_is_half_way() -> None:
    assert rest_open(_strong_lead(0), None)
    assert not rest_open(_strong_lead(0), 6)
    assert not rest_open(_strong_lead(4), 6)
    assert rest_open(_strong_lead(6), 6)


def test_the_racing_levels_never_stake_the_game_early() -> None:
    early, late = _strong_lead(0), _strong_lead(6)
    racing = [make_bot("hard", seed) for seed in range(4)]
    free = [make_bot("expert:fast", seed) for seed in range(4)]
    # Unchecked, the expert stakes the game on three top cards at 0-0 ...
    assert any(bot.choose(early).kind is ActionKind.REST for bot in free)
    # ... racing, it never does before a player has 6 points, and may after.
    assert all(bot.choose(early).kind is not ActionKind.REST for bot in racing)
    assert any(make_bot("hard", s).choose(late).kind is ActionKind.REST for s in range(4))


def test_race_names() -> None:
    # hard races; strongest does not (without "my rest" before 6 points the solved
    # round is exploitable: the table's exploitability_no_rest)
    assert LEVELS["hard"].endswith("+race") and not LEVELS["strongest"].endswith("+race")
    hard = make_bot("hard", 1)
    assert isinstance(hard, SearchBot) and hard.rest_from == 6
    plain = make_bot("expert:fast", 1)
    assert isinstance(plain, SearchBot) and plain.rest_from is None
    assert parse_bot_name("cfr+race") == parse_bot_name("cfr")
    assert with_think("strongest", 2) == "solved:2s"
    assert with_think("cfr+race", 2) == "cfr:2s+race"
    assert with_think("expert", 1) == "expert:1s"
    for bad in ("heuristic+race", "random+race", "cfr+race+race"):
        with pytest.raises(ValueError):
            parse_bot_name(bad)


def test_the_blind_raiser_raises_once_a_round_whatever_its_cards() -> None:
    bot = make_bot("blind-raise", 1)
    assert isinstance(bot, ExploiterBot)
    game = view([("9C 9D 10S", [])], seat=P0)  # the weakest cards, leading
    assert bot.choose(game) == Action.RAISE
    game.push(Action.RAISE)
    game.push(Action.ACCEPT)
    assert bot.choose(game).kind is ActionKind.PLAY  # not again this round
    # Dealing, its first chance is before it follows the opponent's lead.
    dealer = view([("9C 9D 10S", ["play 7S"])], seat=P1, first_dealer=P1)
    assert make_bot("blind-raise", 2).choose(dealer) == Action.RAISE


@pytest.mark.slow
def test_the_default_level_answers_a_blind_raiser_by_its_cards() -> None:
    fig = race_bench("medium", "blind-raise", games=40, seed=3)
    strong, weak = fig.accept_rate("strong"), fig.accept_rate("weak")
    assert strong is not None and weak is not None
    assert fig.answers["strong"][1] >= 30 and fig.answers["weak"][1] >= 30
    # Accepts with good hands, refuses weak ones; not one refusal after another.
    assert strong >= 0.85 and weak <= 0.25
    accepted = sum(a for a, _ in fig.answers.values())
    answered = sum(n for _, n in fig.answers.values())
    assert accepted / answered >= 0.45
    # After the first five hands the blind raiser seldom leads (more points, or
    # the game won): 14 of these 40 games (the heuristic bot, not punishing the
    # raises: 18).  The points alone no longer show it: medium wins most of its
    # games by staking a sure round, which scores no points.
    assert fig.early_behind <= 0.4 * fig.games


@pytest.mark.slow
def test_the_default_level_beats_a_blind_raiser() -> None:
    # 78 % over 400 games (benchmarks/bot_race.py, seed 1); on these 200 seeded
    # duplicate deals 157 wins, the 95 % interval clear of 70 %, where the
    # heuristic bot (medium before issue 32) wins 124.
    fig = race_bench("medium", "blind-raise", games=200, seed=5)
    low, _ = wilson_interval(fig.a_wins, fig.games)
    assert low > 0.7, fig
    before = race_bench("heuristic", "blind-raise", games=200, seed=5)
    assert fig.a_wins > before.a_wins + 20
    # Still a race of several hands, not one staked hand.
    assert fig.hands_per_game >= 3


@pytest.mark.parametrize(
    ("hand", "actions", "answer"),
    [
        # Answering "2 more?" at 1 point, before any card: the cost of refusing is 1.
        ("7C 7D 8S", ["raise"], {Action.ACCEPT}),
        ("AC KD JS", ["raise"], {Action.ACCEPT}),
        ("9C 9D 10S", ["raise"], {Action.FOLD}),
        # At 2 points (raised to 6): the opponent won trick 1 with a king over a
        # nine and raises again; two low cards cannot win a trick back ...
        ("9C 9D 10S", ["play KS", "raise", "accept", "play 9C", "raise"], {Action.FOLD}),
        # ... an ace and a queen after losing trick 1 are not worth 4 more points ...
        (
            "AC QD 9S",
            ["play KS", "raise", "accept", "play AC", "play QD", "raise"],
            {Action.REFUSE},
        ),
        # ... and a seven in hand after winning trick 1 is the round.
        (
            "7C 7D 8S",
            ["play KS", "raise", "accept", "play 8S", "play 7C", "raise"],
            {Action.ACCEPT},
        ),
    ],
)
def test_the_default_level_answers_a_raise_by_its_cards_and_the_cost(
    hand: str, actions: list[str], answer: set[Action]
) -> None:
    game = view([(hand, actions)], seat=P1)
    assert {make_bot("medium", seed).choose(game) for seed in range(6)} == answer


def _answer_then_act(name: str, seed: int, raised: bool) -> Action:
    """P1 (dealing) holds 7 7 8; P0 raises or not, then leads a king: P1's action."""
    bot = make_bot(name, seed)
    game = view([("7C 7D 8S", [])], seat=P1)
    if raised:
        game.push(Action.RAISE)
        game.push(bot.choose(game))
    game.push(Action.from_str("play KS"))
    return bot.choose(game)


def test_the_default_level_stakes_a_sure_round_the_opponent_raised() -> None:
    # 7 7 8 against a king led wins the round whatever happens: once the
    # opponent raised, medium plays it for the game at 0-0 ...
    assert {_answer_then_act("medium", s, raised=True) for s in range(6)} == {Action.REST}
    # ... not unprovoked (a race of several hands), and the heuristic bot it
    # was does not punish the raise (it raises again, for 6 points).
    assert Action.REST not in {_answer_then_act("medium", s, raised=False) for s in range(6)}
    assert Action.REST not in {_answer_then_act("heuristic", s, raised=True) for s in range(6)}


@pytest.mark.slow
def test_hard_races_to_12() -> None:
    racing = race_bench("hard", "medium", games=24, seed=2)
    free = race_bench("expert:fast", "medium", games=24, seed=2)
    # Unchecked the expert's games are over in two or three hands, all by "my rest".
    assert free.hands_per_game < 4.0 and free.rest_share > 0.9
    assert racing.hands_per_game >= 5.0
    assert racing.win_rate > 0.6


@pytest.mark.slow
def test_the_racing_cfr_bot_races_to_12() -> None:
    fig = race_bench("cfr+race", "medium", games=20, seed=4)
    assert fig.hands_per_game >= 6.0
    assert fig.win_rate > 0.6


@pytest.mark.slow
def test_the_race_benchmark_prints_every_figure() -> None:
    script = Path(__file__).resolve().parents[2] / "benchmarks" / "bot_race.py"
    args = ["--games", "4", "--bots", "easy,medium", "--probes", "blind-raise", "--json"]
    done = subprocess.run(
        [sys.executable, str(script), *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("| A | B | A wins") and "hands per game" in lines[0]
    rows = json.loads(lines[-1])
    assert [(r["a"], r["b"]) for r in rows] == [
        ("easy", "blind-raise"),
        ("medium", "blind-raise"),
        ("easy", "medium"),
    ]
    for r in rows:
        assert r["games"] == 4 and 0 <= r["a_wins"] <= 4 and r["hands_per_game"] >= 1
    bad = subprocess.run(
        [sys.executable, str(script), "--games", "1", "--bots", "nobody"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert bad.returncode == 2 and "unknown bot 'nobody'" in bad.stderr
    assert "Traceback" not in bad.stderr
