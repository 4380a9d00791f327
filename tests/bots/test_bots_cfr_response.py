"""The best response to a measured opening (benchmarks/bot_best_response.py) and
the opening positions and letters it records."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest
from helpers.bots import P0, P1, view
from helpers.scripts import load_script

from truc_p2p.bots import _cfr, make_bot
from truc_p2p.bots._cfr_game import (
    ACCEPT,
    DEALER,
    FOLD,
    HANDS,
    LEADER,
    RAISE,
    REDEAL,
    REFUSE,
    REST,
)
from truc_p2p.rules import Action, Game

#: processes, namespaces or long games: left out of the fast loop
pytestmark = pytest.mark.slow

np = pytest.importorskip("numpy")  # the offline analysis's only dependency (test extra)

# The analysis lives beside benchmarks/bot_best_response.py, outside the installed package.
_response = load_script("benchmarks/cfr_response.py")
OpeningPolicy = _response.OpeningPolicy
game_values = _response.game_values


def _position(game: Game) -> tuple[tuple[int, int], int, int, str] | None:
    bot = make_bot("cfr", 1)
    assert isinstance(bot, _cfr.CfrBot)
    return _cfr.opening_position(game, bot._search.deal_actions(game))


def test_opening_positions_and_letters() -> None:
    # P1 deals first: P0 leads, and may still ask for a redeal (tree 1).
    game = view([("7C 7D 8S", [])], seat=P0)
    assert _position(game) == ((0, 0), LEADER, 1, "")
    # After the leader's nine, the dealer decides at node "0".
    game = view([("7C 7D 8S", ["play 9C"])], seat=P1)
    assert _position(game) == ((0, 0), DEALER, 1, "0")
    # After a declined redeal request, the opening is looked up without one.
    game = view([("7C 7D 8S", ["redeal", "decline-redeal"])], seat=P0)
    assert _position(game) == ((0, 0), LEADER, 0, "")
    # Past the opening: no position.
    game = view([("7C 7D 8S", ["play 9C", "play 7C"])], seat=P1)
    assert _position(game) is None
    assert _cfr.opening_letter(Action.REST, LEADER) == REST
    assert _cfr.opening_letter(Action.ACCEPT_REDEAL, DEALER) == "a"
    assert _cfr.opening_letter(Action.DECLINE_REDEAL, DEALER) == REFUSE


def test_decisions_are_counted_at_their_node_and_unknown_ones_set_aside() -> None:
    policy = OpeningPolicy.from_decisions(
        [
            (LEADER, 1, "", (7, 7, 7), REST),
            (LEADER, 1, "", (0, 0, 1), FOLD),
            (LEADER, 1, "", (0, 0, 2), FOLD),
            (DEALER, 1, "q", (0, 1, 2), FOLD),  # a fold the model has no action for
            (DEALER, 1, "q", (0, 1, 3), ACCEPT),
            (DEALER, 1, "q", (0, 1, 3), RAISE),  # not an answer to a redeal request
            (DEALER, 1, "", (0, 1, 2), FOLD),  # not the dealer's node
        ]
    )
    assert policy.decisions == 5
    assert policy.outside == {("q", RAISE): 1}
    first = policy.frequencies(LEADER, 1, "")
    assert first[REST] == pytest.approx(1 / 3) and first[FOLD] == pytest.approx(2 / 3)
    assert policy.frequencies(DEALER, 1, "q") == {ACCEPT: 0.5, REFUSE: 0.0, FOLD: 0.5}
    assert policy.frequencies(DEALER, 0, "") == {}


def test_hands_never_seen_at_a_node_play_the_table_even_without_smoothing() -> None:
    # One hand measured at the leader's first decision, the other 119 unseen.
    one = OpeningPolicy.from_decisions([(LEADER, 1, "", (7, 7, 7), REST)])
    values = game_values(one, best=False, smoothing=0.0).values
    assert np.isfinite(values).all()
    table = game_values(None, best=False).values
    assert np.abs(values - table).max() < 0.01


def _always(first: str, second: str) -> Any:
    """An opponent taking ``first`` wherever it may, else ``second``."""
    decisions = []
    for tree in (0, 1):
        for node in _cfr._TREES[tree]:
            letter = first if first in node.actions else second
            if node.player >= 0 and letter in node.actions:
                decisions += [(node.player, tree, node.path, hand, letter) for hand in HANDS]
    return OpeningPolicy.from_decisions(decisions)


def test_the_best_response_wins_every_game_against_an_opponent_who_gives_up() -> None:
    # It folds wherever it may and refuses every request: every round is the
    # bot's, or the game is (a refused rest).
    best = game_values(_always(FOLD, REFUSE), best=True, smoothing=0.0)
    assert best.start(LEADER) == pytest.approx(1.0)
    assert best.start(DEALER) == pytest.approx(1.0)


def test_the_best_response_gains_on_the_table_against_a_staker() -> None:
    # It stakes the game wherever it may and accepts every request.
    staker = _always(REST, ACCEPT)
    best = game_values(staker, best=True, smoothing=0.0)
    table = game_values(staker, best=False, smoothing=0.0)
    assert (best.values >= table.values - 1e-9).all()
    assert best.first_game() > table.first_game() + 0.01


def test_the_best_response_to_the_table_is_never_worse_than_the_table() -> None:
    table = game_values(None, best=False)
    best = game_values(None, best=True)
    assert (best.values >= table.values - 1e-9).all()
    # The table is an equilibrium of rounds valued with a skill edge, not of
    # the game itself: a best response gains, but little (its exploitability).
    gain = best.first_game() - table.first_game()
    assert 0.0 < gain < 0.05
    assert 0.4 < table.first_game() < 0.6


def test_a_fold_in_answer_to_a_redeal_request_is_a_point_for_the_bot() -> None:
    # The model's dealer may only accept or decline a redeal request; an
    # opponent who folds instead gives the leader the round (a point), which
    # the best response takes by asking: at 11 points it wins the game so.
    folds = OpeningPolicy.from_decisions((DEALER, 1, REDEAL, h, FOLD) for h in HANDS)
    declines = OpeningPolicy.from_decisions((DEALER, 1, REDEAL, h, REFUSE) for h in HANDS)
    against_folds = game_values(folds, best=True, smoothing=0.0).values[LEADER]
    against_declines = game_values(declines, best=True, smoothing=0.0).values[LEADER]
    assert against_folds[11][11] == pytest.approx(1.0)
    assert against_declines[11][11] < 0.95
    assert (against_folds >= against_declines - 1e-9).all()
    assert against_folds[0][0] > against_declines[0][0]


def test_the_benchmark_records_the_opponents_opening_decisions() -> None:
    path = Path(__file__).parents[2] / "benchmarks" / "bot_best_response.py"
    spec = importlib.util.spec_from_file_location("bot_best_response", path)
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    won, decisions = script.play_one(("strongest", "always-rest", 3, 0))
    assert isinstance(won, bool) and decisions
    for role, tree, path_, hand, letter in decisions:
        node = _cfr._TREES[tree][_cfr._PATHS[tree][path_]]
        assert node.player == role and len(hand) == 3
        assert letter in node.actions or letter == FOLD
    # always-rest stakes the game at every first decision of a round it leads.
    firsts = {letter for role, _, path_, _, letter in decisions if role == LEADER and path_ == ""}
    assert firsts == {REST}
