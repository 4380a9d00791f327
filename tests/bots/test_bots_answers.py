"""Answers that make sense: positions where the right answer is clear.

Each answer is checked for the expert bot and the CFR bot (one of them is
`strongest`) over several seeds (they play mixed strategies, so every seed
must give a right answer, not only most).
"""

from __future__ import annotations

import random

import pytest
from helpers.bots import P0, P1, view

from truc_p2p.bots import SearchBot, SearchOptions, make_bot
from truc_p2p.rules import Action, Card, Game, RestRefused, Ruleset

SEEDS = range(4)
WEAK = "9C 9D 10S"


@pytest.fixture(params=["expert", "cfr"])
def bot(request: pytest.FixtureRequest) -> str:
    """The bots whose answers must make sense."""
    name: str = request.param
    return name


def _answers(game: Game, name: str) -> set[Action]:
    return {make_bot(name, seed).choose(game) for seed in SEEDS}


@pytest.mark.parametrize("hand", ["7C 7D 8S", "AC KD 8S", "QC KD JS", "9C JD AS"])
def test_a_redeal_request_is_never_answered_by_folding(hand: str, bot: str) -> None:
    # Declining a redeal costs nothing now and keeps every later choice open.
    game = view([(hand, ["redeal"])], seat=P1)
    assert Action.FOLD not in _answers(game, bot)


def test_a_strong_hand_declines_a_redeal(bot: str) -> None:
    assert _answers(view([("7C 7D 8S", ["redeal"])], seat=P1), bot) == {Action.DECLINE_REDEAL}


def test_random_hands_never_fold_to_a_redeal_request(bot: str) -> None:
    rng = random.Random(5)
    pack = [Card.from_index(i) for i in range(32)]
    for i in range(12):
        hand = " ".join(str(c) for c in rng.sample(pack, 3))
        game = view([(hand, ["redeal"])], seat=P1)
        assert make_bot(bot, i).choose(game) != Action.FOLD, hand


def test_a_round_won_for_sure_accepts_a_raise(bot: str) -> None:
    # P1 won trick 1 with a seven and led its other seven: at worst trick 2 is
    # spoiled, and the round is P1's either way.
    game = view([("7C 7D 9S", ["play KH", "play 7C", "play 7D", "raise"])], seat=P1)
    assert _answers(game, bot) == {Action.ACCEPT}


def test_a_round_won_for_sure_stakes_more(bot: str) -> None:
    game = view([("7C 7D 9S", ["play KH", "play 7C"])], seat=P1)
    assert _answers(game, bot) <= {Action.RAISE, Action.REST}


def test_an_even_hand_accepts_a_first_trick_raise(bot: str) -> None:
    # Refusing gives a point away for sure; accepting an even round risks one more
    # point for a chance at two.
    game = view([("8C AD QS", ["raise"])], seat=P1)
    assert _answers(game, bot) == {Action.ACCEPT}


def test_a_weak_hand_refuses_a_raise(bot: str) -> None:
    assert _answers(view([(WEAK, ["raise"])], seat=P1), bot) <= {Action.REFUSE, Action.FOLD}


def test_my_rest_is_accepted_when_refusing_hands_over_the_game(bot: str) -> None:
    # Default rules: a refused "my rest" loses the game, accepting keeps a chance.
    assert _answers(view([(WEAK, ["rest"])], seat=P1), bot) == {Action.ACCEPT}


#: Rounds where P0 gains 2 points: as the leader (P1 deals), then as the dealer.
GAIN_LEADING = ("7C 7D 9S", ["raise", "accept", "play 7C", "fold"])
GAIN_DEALING = ("7C 7D 9S", ["raise", "accept", "fold"])


def test_my_rest_is_refused_only_where_accepting_is_worse(bot: str) -> None:
    value = Ruleset(rest_refused=RestRefused.VALUE)
    # Ten points up with three weak cards: a refused rest costs one point, an
    # accepted one stakes the game on a round that is nearly lost.
    history = [GAIN_LEADING, GAIN_DEALING] * 2 + [GAIN_LEADING]
    game = view([*history, (WEAK, ["rest"])], ruleset=value)
    assert game.scores == (10, 0) and game.to_act is P0
    assert _answers(game, bot) == {Action.REFUSE}
    # With the same rules, a hand that wins the round accepts.
    strong = view([*history, ("7C 7D 8S", ["rest"])], ruleset=value)
    assert _answers(strong, bot) == {Action.ACCEPT}
    even = view([("7C 7D 8S", ["rest"])], seat=P1, ruleset=value)
    assert _answers(even, bot) == {Action.ACCEPT}


def test_my_rest_needs_a_margin_over_the_next_best_action(bot: str) -> None:
    # Three sevens and eights: the round is nearly won, and "my rest" is best by far...
    game = view([("7C 7D 8S", [])])
    assert _answers(game, bot) == {Action.REST}
    # ... but not by more than the whole range of values.
    loose = SearchOptions(game_model=True, rest_margin=1.0)
    assert SearchBot(1, iterations=1000, options=loose).choose(game) != Action.REST
