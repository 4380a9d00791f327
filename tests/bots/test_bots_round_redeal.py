"""The redeal inside the solved round: the tree, the redealt round's payoff, the
solve on a small pack, the shipped table and the bot's use of it."""

from __future__ import annotations

import itertools
import json
import sys
import time
from dataclasses import replace
from importlib import resources
from pathlib import Path

import pytest
from helpers.bots import P0, P1, view

from truc_p2p.bots import make_bot
from truc_p2p.bots._round_game import Abstraction, End, Redeal, State, locate, size
from truc_p2p.bots._round_table import (
    ASK_FILE,
    RoundTable,
    load_redeal_table,
    load_robust_asks,
    load_table,
    redeal_path,
    round_path,
)
from truc_p2p.bots._solved import SolvedBot
from truc_p2p.rules import Action, Game

np = pytest.importorskip("numpy")  # the solver's only dependency (test extra)

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import solve_round  # noqa: E402

#: Twelve cards of four strengths: the two old hands and the two new ones take the pack.
SMALL = Abstraction(max_raises=1, ranks=4, copies=3)
SMALL_REDEAL = replace(SMALL, redeal=True)


def _paths(tree: solve_round.Tree) -> dict[int, str]:
    paths = {0: ""}
    for parent, child, _, letter in sorted(tree.edges, key=lambda e: e[1]):
        paths[child] = paths[parent] + letter
    return paths


def test_the_redeal_tree_holds_the_round_twice_in_its_old_layout() -> None:
    nodes, entries = size(SMALL)
    hands = len(SMALL.hands())
    # The root (play on / ask), the round, the answer (accept / decline / fold),
    # the redealt terminal, the round again, the fold's terminal.
    assert size(SMALL_REDEAL) == (2 * nodes + 4, 2 * entries + 5 * hands)
    assert locate("", SMALL_REDEAL) == (Redeal(), 0, 0)
    assert locate("d", SMALL_REDEAL) == (Redeal(True), nodes + 1, 2 * hands + entries)
    assert locate("dy", SMALL_REDEAL) == End(None, 0, lead=-2)
    assert locate("df", SMALL_REDEAL) == End(0, 1)
    assert locate("q", SMALL_REDEAL) is None
    old = solve_round.build(SMALL)
    for path in list(_paths(old).values())[::53]:
        found = locate(path, SMALL)
        if isinstance(found, End):
            assert locate("p" + path, SMALL_REDEAL) == found
            assert locate("dx" + path, SMALL_REDEAL) == found
            continue
        assert found is not None
        state, node, offset = found
        assert locate("p" + path, SMALL_REDEAL) == (state, node + 1, offset + 2 * hands)
        assert locate("dx" + path, SMALL_REDEAL) == (
            state,
            node + nodes + 3,
            offset + 5 * hands + entries,
        )
    # Without the flag the layout is the old one: the round starts at the root.
    assert locate("", SMALL) == (State(), 0, 0)


def test_the_solver_puts_every_redeal_node_where_the_runtime_finds_it() -> None:
    tree = solve_round.build(SMALL_REDEAL)
    assert size(SMALL_REDEAL) == (tree.n, tree.entries)
    paths = _paths(tree)
    for i in [*range(0, tree.n, 211), *range(tree.n - 50, tree.n)]:
        found = locate(paths[i], SMALL_REDEAL)
        if tree.player[i] < 0:
            assert isinstance(found, End)
        else:
            assert isinstance(found, tuple)
            assert found[1:] == (i, tree.soff[i])


def test_the_redealt_rounds_payoff_is_the_average_over_the_rest_of_the_pack() -> None:
    # Any values per deal will do: the payoff is their average over the new
    # hands dealt from the pack less both old hands, card by card.
    hands = SMALL.hands()
    index = {h: i for i, h in enumerate(hands)}
    rng = np.random.default_rng(42)
    v = rng.normal(size=(len(hands), len(hands)))
    r = solve_round.redeal_payoffs(SMALL, v)
    prior = solve_round.Pack(SMALL).prior
    cards = [(k, c) for k in range(SMALL.ranks) for c in range(SMALL.copies)]
    checked = 0
    for i, j in itertools.product(range(len(hands)), repeat=2):
        if prior[i, j] == 0:
            continue
        pack = list(cards)
        for k in hands[i] + hands[j]:
            pack.remove(next(x for x in pack if x[0] == k))
        total, count = 0.0, 0
        for a in itertools.combinations(range(len(pack)), 3):
            left = [x for x in range(len(pack)) if x not in a]
            for b in itertools.combinations(left, 3):
                n0 = tuple(sorted(pack[x][0] for x in a))
                n1 = tuple(sorted(pack[x][0] for x in b))
                total += v[index[n0], index[n1]]
                count += 1
        assert r[i, j] == pytest.approx(total / count, abs=1e-12)
        checked += 1
    assert checked > 100


def test_the_values_per_deal_add_up_to_the_rounds_value() -> None:
    solver = solve_round.Solver(solve_round.build(SMALL))
    for it in range(1, 21):
        solver.iterate(it)
    sigma = solver.average()
    v = solve_round.play_values(solver, sigma)
    assert (solver.pack.prior * v).sum() == pytest.approx(solver.root_value(sigma), abs=1e-12)
    # Three sevens against three nines: the round is the leader's.
    hands = SMALL.hands()
    assert v[hands.index((3, 3, 3)), hands.index((0, 0, 0))] > 0.9


def test_a_redeal_tree_needs_the_redealt_rounds_payoffs() -> None:
    with pytest.raises(ValueError, match="redealt"):
        solve_round.Solver(solve_round.build(SMALL_REDEAL))


@pytest.fixture(scope="module")
def small_plain() -> solve_round.Solver:
    plain = solve_round.Solver(solve_round.build(SMALL))
    for it in range(1, 151):
        plain.iterate(it)
    return plain


@pytest.fixture(scope="module")
def small_redeal(small_plain: solve_round.Solver) -> solve_round.Solver:
    plain = small_plain
    sigma = plain.average()
    r = solve_round.redeal_payoffs(SMALL, solve_round.play_values(plain, sigma))
    solver = solve_round.Solver(solve_round.build(SMALL_REDEAL), None, r)
    quant = np.rint(sigma[:-1] * 255).astype(np.uint8).tobytes()
    solver.warm_start(solve_round.redeal_start(solver.t, quant))
    for it in range(1, 101):
        solver.iterate(it)
    return solver


@pytest.mark.slow  # the small pack solved twice: about 10 s
def test_the_small_pack_with_the_redeal_is_solved(small_redeal: solve_round.Solver) -> None:
    _, br0, br1 = small_redeal.exploitability(small_redeal.average())
    assert (br0 + br1) / 2 < 0.01


@pytest.mark.slow  # the small pack solved twice: about 10 s
def test_a_weak_hand_asks_for_a_redeal_more_than_a_strong_one(
    small_redeal: solve_round.Solver,
) -> None:
    sigma = small_redeal.average()
    hands = SMALL.hands()
    ask = sigma[1 : 2 * len(hands) : 2]  # the root's rows: (play on, ask) per hand
    assert ask[hands.index((0, 0, 1))] > 0.5
    assert ask[hands.index((3, 3, 3))] < 0.1
    rates = solve_round.redeal_rates(small_redeal, sigma)
    assert 0 < rates["ask"] < 1
    assert rates["accept"] + rates["decline"] + rates["fold"] == pytest.approx(1.0)


# --- the shipped table and the bot ---------------------------------------------------------


def test_the_shipped_redeal_table_fits_its_tree_and_loads_fast() -> None:
    load_redeal_table.cache_clear()
    start = time.process_time()
    table = load_redeal_table()
    assert table is not None
    assert time.process_time() - start < 1.0
    assert table.abstraction.redeal
    assert size(table.abstraction)[1] == len(table.strategies)
    assert 0 <= table.exploitability < 0.05
    # The redeal is worth something to the non-dealer, never less than nothing.
    assert table.header["value"] >= table.header["value_no_redeal"] - table.exploitability
    for path, hand, letters in [
        ("", (0, 1, 2), {"p", "d"}),
        ("d", (0, 3, 7), {"y", "x", "f"}),
        ("p", (1, 1, 5), {"1", "5", "r", "s", "f"}),
        ("dx2", (0, 0, 7), {"0", "7", "r", "s", "f"}),
    ]:
        strategy = table.strategy(path, hand)
        assert strategy is not None and set(strategy) == letters
        assert sum(strategy.values()) == pytest.approx(1.0, abs=0.03)
    # Three sevens do not ask; the weakest hand does more often than not.
    assert (table.strategy("", (7, 7, 7)) or {}).get("d", 1) < 0.05
    assert (table.strategy("", (0, 0, 1)) or {}).get("d", 0) > 0.5


def _points(where: tuple[RoundTable, str, tuple[int, ...]] | None, *at: object) -> bool:
    """Whether ``where`` is the points table's position ``at`` (compared by the
    header: other tests clear the loaders' caches, so identity would not do)."""
    points = load_table()
    return (
        where is not None
        and points is not None
        and where[0].header == points.header
        and where[0].strategies == points.strategies
        and where[1:] == at
    )


def _solved(seed: int = 1) -> SolvedBot:
    bot = make_bot("strongest", seed)
    assert isinstance(bot, SolvedBot)
    return bot


def test_the_bot_maps_a_redeal_to_the_redeal_tables_paths() -> None:
    bot = _solved()
    redeal = load_redeal_table()
    # The non-dealer (P0; P1 deals) before anything: play on or ask.
    game = view([("7C 7D 8S", [])], seat=P0)
    assert bot.where(game) == (redeal, "", (6, 7, 7))
    assert set(bot.strategy(game) or {}) == {"p", "d"}
    assert bot.choose(game) in game.legal_actions()
    # The dealer answering a request.
    game = view([("9C 10D JS", ["redeal"])], seat=P1)
    assert bot.where(game) == (redeal, "d", (0, 1, 2))
    assert set(bot.strategy(game) or {}) == {"y", "x", "f"}
    assert bot.choose(game) in {Action.ACCEPT_REDEAL, Action.DECLINE_REDEAL, Action.FOLD}
    # Declined: the round from the declined copy, cards and all.
    game = view([("9C 10D JS", ["redeal", "decline-redeal", "play 7C"])], seat=P1)
    assert bot.where(game) == (redeal, "dx7", (0, 1, 2))
    # Played on without asking: the other copy.
    game = view([("9C 10D JS", ["raise", "accept", "play 8S"])], seat=P1)
    assert bot.where(game) == (redeal, "pra6", (0, 1, 2))
    # Accepted: the redealt round is the points table's, from its root.
    game = view([("7C 7D 8S", ["redeal", "accept-redeal"]), ("9C 10D JS", [])], seat=P0)
    assert game.redealt
    assert _points(bot.where(game), "", (0, 1, 2))
    assert bot.choose(game) != Action.ASK_REDEAL


def test_the_paths_of_a_redeal() -> None:
    game = view([("7C 7D 8S", ["redeal", "decline-redeal", "raise", "accept", "play 7C"])])
    actions = list(game.history)
    assert redeal_path(actions, game.dealer) == "dxra7"
    assert round_path(actions, game.dealer) == "ra7"
    assert redeal_path(actions[:1], game.dealer) == "d"
    assert redeal_path(actions[2:], game.dealer) == "pra7"
    assert redeal_path([], game.dealer) == ""
    accepted = view([("7C 7D 8S", ["redeal", "accept-redeal"])])
    assert redeal_path(list(accepted.history), game.dealer) is None


def test_the_redeal_table_is_loaded_only_when_a_redeal_may_come() -> None:
    load_redeal_table.cache_clear()
    bot = _solved()
    # Near the end of the game (a score class): the class's table, no redeal table.
    game = view([("7C 7D 8S", [])], seat=P0)
    game._scores = [10, 3]  # type: ignore[attr-defined]
    where = bot.where(game)
    assert where is not None and "class" in where[0].header and where[1] == ""
    # A redealt round: the points table.
    redealt = view([("7C 7D 8S", ["redeal", "accept-redeal"]), ("9C 10D JS", [])], seat=P0)
    assert _points(bot.where(redealt), "", (0, 1, 2))
    assert load_redeal_table.cache_info().currsize == 0
    # At 0-0, a fresh round: the redeal table, loaded now.
    game._scores = [0, 0]  # type: ignore[attr-defined]
    assert bot.where(game) == (load_redeal_table(), "", (6, 7, 7))
    assert load_redeal_table.cache_info().currsize == 1
    # Not score-aware: the redeal table at any score.
    bot.score_aware = False
    game._scores = [10, 3]  # type: ignore[attr-defined]
    where = bot.where(game)
    assert where is not None and where[0] is load_redeal_table()


def test_the_bot_asks_for_redeals_with_weak_hands_in_whole_games() -> None:
    asks = 0
    for seed in range(12):
        bot = _solved(seed)
        game = view([("9C 9D 10S", [])], seat=P0)
        asks += bot.choose(game) == Action.ASK_REDEAL
    assert asks >= 6
    assert isinstance(Game, type)


@pytest.mark.slow  # the small pack solved twice: about 10 s
def test_an_accepted_redeal_is_worth_the_round_on_average(
    small_redeal: solve_round.Solver, small_plain: solve_round.Solver
) -> None:
    # Every hand asks, every hand accepts: the round is played from new hands,
    # which over the deal are as likely as the first ones, so the value is the
    # round's under the points profile the redeal was valued with.
    solver = small_redeal
    n = len(SMALL.hands())
    sigma = solver.average()
    sigma[0 : 2 * n] = np.tile([0.0, 1.0], n)  # the root: ask
    answer = int(solver.t.soff[next(c for p, c, _, x in solver.t.edges if p == 0 and x == "d")])
    sigma[answer : answer + 3 * n] = np.tile([1.0, 0.0, 0.0], n)  # accept
    expected = small_plain.root_value(small_plain.average())
    assert solver.root_value(sigma) == pytest.approx(expected, abs=1e-9)
    assert abs(expected) > 0.5


@pytest.mark.slow  # the small pack solved twice: about 10 s
def test_the_robust_asks_are_the_hands_a_request_gains_with_against_every_dealer_hand(
    small_redeal: solve_round.Solver, small_plain: solve_round.Solver
) -> None:
    hands = SMALL.hands()
    v = solve_round.play_values(small_plain, small_plain.average())
    r = solve_round.redeal_payoffs(SMALL, v)
    prior = small_plain.pack.prior
    asks = solve_round.robust_asks(v, r, prior)
    for h in range(len(hands)):
        gains = [r[h, g] - v[h, g] for g in range(len(hands)) if prior[h, g] > 0]
        assert bool(asks[h]) == (min(gains) >= 0), hands[h]
    # (The fresh deal comes from the six cards left of this pack: the shipped
    # table's spot checks, three nines among them, are in the next test.)
    assert not asks[hands.index((3, 3, 3))]  # the best hand plays on
    assert 0 < asks.sum() < len(hands)
    # Asking with those hands only: the hands out play on, the others keep the
    # equilibrium's row, and the strategy stays near the equilibrium.
    solver = small_redeal
    sigma = solver.average()
    robust = solve_round.robust_sigma(solver, sigma, asks)
    n = len(hands)
    assert np.all(robust[1 : 2 * n : 2][~asks] == 0.0)
    assert np.all(robust[0 : 2 * n : 2][~asks] == 1.0)
    assert np.array_equal(robust[: 2 * n].reshape(n, 2)[asks], sigma[: 2 * n].reshape(n, 2)[asks])
    assert np.array_equal(robust[2 * n :], sigma[2 * n :])
    _, br0, br1 = solver.exploitability(robust)
    assert (br0 + br1) / 2 < 0.01


def test_the_shipped_robust_asks_are_the_weak_hands_and_cost_next_to_nothing() -> None:
    asks = load_robust_asks()
    assert asks is not None
    doc = json.loads(resources.files("truc_p2p.bots").joinpath(ASK_FILE).read_text())
    # Three nines are worse than new cards whatever the dealer holds; three
    # sevens and J-Q-8 (which the equilibrium always asks with: free against a
    # dealer that never accepts) lose to a fresh deal against some dealer hand.
    assert (0, 0, 0) in asks and (0, 0, 7) in asks
    assert (7, 7, 7) not in asks and (2, 3, 6) not in asks
    assert 40 < len(asks) < 80
    table, robust = doc["table"], doc["robust"]
    assert robust["ask_rate"] < table["ask_rate"]
    assert robust["exploitability"] < 0.001
    assert abs(robust["value"] - table["value"]) < 0.001
    redeal = load_redeal_table()
    assert redeal is not None
    assert table["exploitability"] == pytest.approx(redeal.exploitability, abs=1e-6)


def test_the_robust_bot_plays_on_with_a_hand_out_of_the_robust_asks() -> None:
    # J-Q-8: the table always asks with it, the robust rule plays on.
    game = view([("JC QD 8S", [])], seat=P0)
    for seed in range(6):
        bot = _solved(seed)
        bot.robust_ask = False
        assert bot.strategy(game) == {"p": 0.0, "d": 1.0}
        bot.robust_ask = True
        assert bot.strategy(game) == {"p": 1.0}
        assert bot.choose(game) != Action.ASK_REDEAL
    # Three nines: the robust rule keeps the table's row.
    game = view([("9C 9D 9S", [])], seat=P0)
    bot = _solved()
    bot.robust_ask = True
    assert bot.strategy(game) == {"p": 0.0, "d": 1.0}
    bot.ask_with = frozenset()  # never asks
    assert bot.strategy(game) == {"p": 1.0}
