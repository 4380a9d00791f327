"""The solved round with score-aware payoffs: the solver, the score classes, their tables."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest
from helpers.bots import P0, view

from truc_p2p.bots import _round_table, make_bot
from truc_p2p.bots._gate import own_choice
from truc_p2p.bots._round_game import Abstraction, moves, root
from truc_p2p.bots._round_table import (
    load_class_table,
    load_classes,
    load_table,
    score_class,
    table_for,
)
from truc_p2p.bots._solved import SolvedBot
from truc_p2p.rules import Action

np = pytest.importorskip("numpy")  # the solver's only dependency (test extra)

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import solve_round  # noqa: E402

#: Nine cards of three strengths: three unseen, so a hand is not sure of the other.
SMALL = Abstraction(max_raises=1, ranks=3, copies=3)
#: Six cards of two strengths: small enough to walk deal by deal.
TINY = Abstraction(max_raises=1, ranks=2, copies=3)


@pytest.fixture(scope="module")
def small_tree() -> solve_round.Tree:
    return solve_round.build(SMALL)


@pytest.fixture(scope="module")
def points_small(small_tree: solve_round.Tree) -> solve_round.Solver:
    return _solve(small_tree, None)


def _solve(tree: solve_round.Tree, payoff: solve_round.Payoff | None) -> solve_round.Solver:
    solver = solve_round.Solver(tree, payoff)
    for it in range(1, 151):
        solver.iterate(it)
    return solver


def _rest_rate(solver: solve_round.Solver) -> float:
    """How often the leader stakes "my rest" before the first card (over the deal)."""
    sigma = solver.average()
    letters = [letter for letter, _ in moves(root(), SMALL)]
    n, k = len(letters), letters.index("s")
    weight = solver.pack.prior.sum(1)
    start = int(solver.t.soff[0])
    rows = np.array([sigma[start + h * n + k] for h in range(len(weight))])
    return float((rows * weight).sum() / weight.sum())


def _brute_value(solver: solve_round.Solver, sigma: np.ndarray) -> float:
    """Seat 0's expected payoff under ``sigma``, deal by deal down the tree (no matrices)."""
    t, pk = solver.t, solver.pack
    children: dict[int, list[tuple[int, int]]] = {}
    for parent, child, a, _ in t.edges:
        children.setdefault(parent, []).append((a, child))
    total = 0.0
    for h in range(len(pk.hands)):
        for g in range(len(pk.hands)):
            if pk.prior[h, g] == 0:
                continue
            hands = (h, g)
            stack = [(0, 1.0)]
            while stack:
                node, w = stack.pop()
                end = t.ends.get(node)
                if end is not None:
                    winner = end.winner
                    if end.show:
                        follower = 1 - end.leader
                        rest = list(pk.hands[hands[follower]])
                        for x in pk.subsets[int(t.sid[node][follower])]:
                            rest.remove(x)
                        winner = solve_round.showdown_winner(end, rest[0])
                    total += pk.prior[h, g] * w * solver.payoff(winner, end.points)
                    continue
                p = int(t.player[node])
                column = pk.hold[int(t.sid[node][p])].index(hands[p])
                n = int(t.nact[node])
                for a, child in children[node]:
                    x = sigma[int(t.soff[node]) + column * n + a]
                    if x > 0:
                        stack.append((child, w * x))
    return total


def test_a_shifted_payoff_shifts_the_value_and_nothing_else(small_tree: solve_round.Tree) -> None:
    # Every outcome worth 5 more to seat 0, the spoiled round too: the showdown's
    # three terms (spoiled, |sign|, sign) must add up to exactly that.
    points = solve_round.Solver(small_tree)
    shifted = solve_round.Solver(
        small_tree,
        solve_round.vector_payoff([x + 5 for x in solve_round.POINTS_UTILITIES], SMALL),
    )
    rng = np.random.default_rng(3)
    sigma = np.ones(points.entries + 1)
    sigma[:-1] = rng.random(points.entries) * points.legal
    points._match(np.concatenate((sigma[:-1], [0.0])), sigma)
    assert shifted.root_value(sigma) == pytest.approx(points.root_value(sigma) + 5, abs=1e-9)
    # A round is decided or spoiled: the two chances add up to one, and some
    # showdowns are spoiled (all three tricks equal).
    spoiled = solve_round.Solver(small_tree, solve_round.vector_payoff([0] * 6 + [1], SMALL))
    decided = solve_round.Solver(small_tree, solve_round.vector_payoff([1] * 6 + [0], SMALL))
    p_spoiled, p_decided = spoiled.root_value(sigma), decided.root_value(sigma)
    assert 0 < p_spoiled < 0.2
    assert p_spoiled + p_decided == pytest.approx(1.0, abs=1e-9)
    # And the matrices agree with a plain walk down the tree, deal by deal.
    tiny = solve_round.build(TINY)
    lopsided = solve_round.vector_payoff([3, 5, 11, -2, -4, -13, 0.5], TINY)
    for payoff in (None, lopsided):
        solver = solve_round.Solver(tiny, payoff)
        mixed = np.ones(solver.entries + 1)
        mixed[:-1] = rng.random(solver.entries) * solver.legal
        solver._match(np.concatenate((mixed[:-1], [0.0])), mixed)
        assert solver.root_value(mixed) == pytest.approx(_brute_value(solver, mixed), abs=1e-9)
    # The points vector is the points payoff: the same terminal arrays.
    same = solve_round.Solver(
        small_tree, solve_round.vector_payoff(solve_round.POINTS_UTILITIES, SMALL)
    )
    assert len(same.term) == len(points.term)
    for x, y in zip(same.term, points.term, strict=True):
        assert all(np.array_equal(a, b) for a, b in zip(x[:4], y[:4], strict=True))


@pytest.mark.slow
def test_score_payoffs_converge_and_stake_the_game_when_trailing(
    small_tree: solve_round.Tree, points_small: solve_round.Solver
) -> None:
    rates = {"points": _rest_rate(points_small)}
    for name, score in (("leading", (9, 2)), ("trailing", (2, 9))):
        solver = _solve(
            small_tree, solve_round.vector_payoff(solve_round.score_utilities(*score), SMALL)
        )
        _, br0, br1 = solver.exploitability(solver.average())
        # In the class's units (24 × the chance of winning the game).
        assert 0 <= (br0 + br1) / 2 < 0.01
        rates[name] = _rest_rate(solver)
    # Trailing 2-9, losing a round of points nearly loses the game anyway: the
    # leader stakes the game far more often than for points; leading 9-2, no more.
    assert rates["trailing"] > rates["points"] + 0.15
    assert rates["leading"] <= rates["points"] + 0.005


def test_warm_start_plays_the_table_and_beats_a_cold_start(
    small_tree: solve_round.Tree, points_small: solve_round.Solver
) -> None:
    base = np.rint(points_small.average()[:-1] * 255).astype(np.uint8).tobytes()
    payoff = solve_round.vector_payoff(solve_round.score_utilities(8, 4), SMALL)
    warm = solve_round.Solver(small_tree, payoff)
    warm.warm_start(base)
    table = solve_round.table_sigma(warm, base)
    assert np.allclose(warm.sigma[:-1][warm.legal], table[:-1][warm.legal], atol=1e-6)
    cold = solve_round.Solver(small_tree, payoff)
    for it in range(1, 11):
        warm.iterate(it)
        cold.iterate(it)
    gaps = [sum(s.exploitability(s.average())[1:]) / 2 for s in (warm, cold)]
    assert gaps[0] < gaps[1]


def test_every_score_and_dealer_has_a_class_with_a_shipped_table() -> None:
    doc = load_classes()
    assert doc is not None
    target = int(doc["target"])
    assert target == 12
    classes = doc["classes"]
    assert classes[0]["file"] == _round_table.TABLE_FILE
    seen = set()
    for mine in range(target):
        for theirs in range(target):
            for i_deal in (False, True):
                c = score_class(mine, theirs, i_deal=i_deal)
                assert 0 <= c < len(classes)
                # The solver's state is (the non-dealer's points, the dealer's).
                a, b = (theirs, mine) if i_deal else (mine, theirs)
                assert c == doc["class"][a][b]
                seen.add(c)
    assert seen == set(range(len(classes)))
    # Far from the end the points table plays; the last point of both is a class of its own.
    assert score_class(0, 0, i_deal=False) == 0
    assert score_class(11, 11, i_deal=True) != 0


def test_class_tables_load_lazily_and_fast() -> None:
    load_class_table.cache_clear()
    start = time.process_time()
    near_end = score_class(10, 3, i_deal=False)
    assert near_end != 0
    table = table_for((10, 3), 0, 1, 12)
    assert load_class_table.cache_info().currsize == 1  # that class only
    assert time.process_time() - start < 1.0
    assert table is not None and table is not load_table()
    assert table.header["class"] == near_end
    assert len(table.strategies) == len(load_table().strategies)  # type: ignore[union-attr]
    # Other targets keep the points table.
    assert table_for((10, 3), 0, 1, 21) is load_table()


def test_the_solved_bot_plays_its_score_class_near_the_end() -> None:
    game = view([("7C 7D 8S", [])], seat=P0)  # P1 deals, P0 (to act) leads
    game._scores = [10, 3]  # type: ignore[attr-defined]
    bot = make_bot("strongest", 1)
    assert isinstance(bot, SolvedBot)
    bot.score_aware = True
    chosen = bot.table(game)
    assert chosen is load_class_table(score_class(10, 3, i_deal=False))
    assert chosen is not load_table()
    bot.score_aware = False
    assert bot.table(game) is load_table()
    game._scores = [0, 0]  # type: ignore[attr-defined]
    bot.score_aware = True
    assert bot.table(game) is load_table()


def test_the_score_aware_bot_never_folds_the_game_away() -> None:
    # 11-11: a fold hands the opponent the game, playing on can do no worse.
    # The points table folds the weakest hand at once; the 11-11 class's table
    # still folds it now and then; the score-aware bot never does.
    game = view([("9C 10D JS", [])], seat=P0)
    game._scores = [11, 11]  # type: ignore[attr-defined]
    folds = {True: 0, False: 0}
    for seed in range(40):
        for aware in (True, False):
            bot = make_bot("strongest", seed)
            assert isinstance(bot, SolvedBot)
            bot.score_aware = aware
            bot.redeal = False  # the points table itself (not the redeal table's first choice)
            folds[aware] += own_choice(bot, game) == Action.FOLD
    assert folds[True] == 0
    assert folds[False] >= 30
