"""The whole round solved: the solver on a tiny pack, the table's layout, the shipped table."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from truc_p2p.bots import make_bot, play_local_game
from truc_p2p.bots._round_game import Abstraction, End, locate, size
from truc_p2p.bots._round_table import RoundTable, load_table, round_path
from truc_p2p.rules import Action, Player

np = pytest.importorskip("numpy")  # the solver's only dependency (test extra)

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import solve_round  # noqa: E402

#: A pack of three nines and three tens: each player holds half of it, so each
#: knows the other's hand.  By hand: 000 against 111 (chance 1/20) cannot win,
#: the leader folds (-1); 111 against 000 (1/20) and 011 against 001 (9/20) can
#: force the round (011 leads a ten, then its other ten), so "my rest" scores
#: the game's 12 points (refused or not); 001 against 011 (9/20) folds (-1):
#: (-1 + 12 + 12 * 9 - 9) / 20 = 5.5 points per hand to the leader.
TINY = Abstraction(max_raises=1, ranks=2, copies=3)
TINY_VALUE = 5.5


@pytest.fixture(scope="module")
def tiny() -> solve_round.Solver:
    solver = solve_round.Solver(solve_round.build(TINY))
    for it in range(1, 301):
        solver.iterate(it)
    return solver


def test_cfr_plus_solves_a_tiny_round_to_its_hand_computed_value(tiny: solve_round.Solver) -> None:
    value, br0, br1 = tiny.exploitability(tiny.average())
    assert value == pytest.approx(TINY_VALUE, abs=0.01)
    # The leader's best response gains nothing on the solution, nor the dealer's.
    assert br0 == pytest.approx(TINY_VALUE, abs=0.01)
    assert -br1 == pytest.approx(TINY_VALUE, abs=0.01)
    assert (br0 + br1) / 2 < 0.005


def test_the_best_response_finds_what_a_uniform_player_gives_away(tiny: solve_round.Solver) -> None:
    uniform = np.zeros(tiny.entries + 1)
    uniform[-1] = 1.0
    uniform[:-1] = tiny.legal / tiny.nlegal[tiny.rows]
    value, br0, br1 = tiny.exploitability(uniform)
    # A best response does at least as well as the equilibrium, and much better
    # than it against a player who folds, refuses and rests at random.
    assert br0 > TINY_VALUE + 1 and br1 > -TINY_VALUE + 1
    assert br0 >= value and br1 >= -value


def test_the_runtime_finds_every_node_where_the_solver_put_it() -> None:
    ab = Abstraction(max_raises=1, ranks=3, copies=3)
    tree = solve_round.build(ab)
    assert size(ab) == (tree.n, tree.entries)
    paths = {0: ""}
    for parent, child, _, letter in sorted(tree.edges, key=lambda e: e[1]):
        paths[child] = paths[parent] + letter
    for i in range(0, tree.n, 97):
        found = locate(paths[i], ab)
        if tree.player[i] < 0:
            assert isinstance(found, End)
        else:
            assert isinstance(found, tuple)
            _, node, offset = found
            assert (node, offset) == (i, tree.soff[i])


def test_the_shipped_table_loads_fast_and_is_near_an_equilibrium() -> None:
    load_table.cache_clear()
    start = time.process_time()  # CPU time: the wall clock of a loaded machine says little
    table = load_table()
    assert table is not None
    assert time.process_time() - start < 0.5
    # Measured exactly when it was built (tools/solve_round.py): a best response
    # gains less than this many points per hand on it.
    assert 0 <= table.exploitability < 0.05
    ab = table.abstraction
    assert size(ab)[1] == len(table.strategies)
    # Every row is a distribution over the legal actions.
    for path, hand in [("", (0, 3, 7)), ("2", (1, 1, 5)), ("25", (1, 5, 6)), ("7s", (0, 0, 7))]:
        strategy = table.strategy(path, hand)
        assert strategy is not None
        assert sum(strategy.values()) == pytest.approx(1.0, abs=0.03)
    # A hand holding no seven cannot lead one.
    assert "7" not in (table.strategy("", (0, 1, 2)) or {"7": 1})
    # Three sevens never fold the first trick.
    assert (table.strategy("", (7, 7, 7)) or {}).get("f", 1) == 0


def test_a_round_maps_to_the_trees_path() -> None:
    from truc_p2p.rules import Card

    seven, nine = Card.from_str("7H"), Card.from_str("9S")
    actions = [
        (Player.P1, Action.ASK_REDEAL),
        (Player.P0, Action.DECLINE_REDEAL),
        (Player.P1, Action.RAISE),
        (Player.P0, Action.ACCEPT),
        (Player.P1, Action.play(seven)),
        (Player.P0, Action.play(nine)),
    ]
    assert round_path(actions, Player.P0) == "ra70"
    assert round_path(actions[1:], Player.P0) is None


def test_the_solved_bot_plays_whole_games() -> None:
    for seed in range(3):
        outcome = play_local_game(make_bot("solved", seed), make_bot("medium", seed + 1), seed=seed)
        assert outcome.winner is not None


@pytest.mark.slow
def test_the_shipped_tables_exploitability_recomputed() -> None:
    table = load_table()
    assert table is not None
    solver = solve_round.Solver(solve_round.build(table.abstraction))
    sigma = solve_round.table_sigma(solver, table.strategies)
    _, br0, br1 = solver.exploitability(sigma)
    assert (br0 + br1) / 2 == pytest.approx(table.exploitability, abs=0.01)
    assert isinstance(RoundTable, type)
