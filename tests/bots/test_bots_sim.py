"""The search's round simulator agrees with the rules engine on every step of random games."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from helpers.examples import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from truc_p2p.bots import _sim
from truc_p2p.rules import (
    ALL_CARDS,
    Action,
    Card,
    Game,
    GameEnded,
    Ladder,
    Phase,
    Player,
    RestRefused,
    RoundEnded,
    RoundEndReason,
    Ruleset,
    hands_from_deck,
)

RULESETS = st.builds(
    Ruleset,
    target=st.integers(1, 20),
    ladder=st.sampled_from(Ladder),
    rest_refused=st.sampled_from(RestRefused),
)


def _sim_of(game: Game, deck: list[Card]) -> _sim.RoundSim:
    """The simulator of an omniscient game's round, its redeal taken from ``deck``."""
    me = game.to_act
    assert me is not None
    opp = game.hand(me.other)
    assert opp is not None
    redeal = hands_from_deck(deck, game.dealer, redeal=True)
    return _sim.from_view(
        game,
        _sim.strengths(opp),
        (_sim.strengths(redeal[Player.P0]), _sim.strengths(redeal[Player.P1])),
    )


def _engine_codes(game: Game) -> set[int]:
    return {_sim.code_of(a) for a in game.legal_actions()}


def _mirror(deck: list[Card]) -> None:
    """Give the dealer the non-dealer's ranks (positions 0-5 and 6-11), so tricks can spoil."""
    for i in range(0, 12, 2):
        twin = next(j for j in range(i + 1, 32) if deck[j].rank is deck[i].rank)
        deck[i + 1], deck[twin] = deck[twin], deck[i + 1]


def _choose(game: Game, rng: random.Random, request_bias: float) -> Action:
    """A random action: requests/answers with ``request_bias``, rarely a fold, often a spoil."""
    actions = list(game.legal_actions())
    others = [a for a in actions if a.card is None and a != Action.FOLD]
    if others and rng.random() < request_bias:
        return rng.choice(others)
    if Action.FOLD in actions and rng.random() < 0.03:
        return Action.FOLD
    plays = [a for a in actions if a.card is not None]
    if not plays:
        return rng.choice(actions)
    if game.table and rng.random() < 0.5:
        lead = game.table[0][1]
        spoils = [a for a in plays if a.card is not None and a.card.rank is lead.rank]
        plays = spoils or plays
    return rng.choice(plays)


def _crosscheck(
    seed: int, ruleset: Ruleset, request_bias: float, *, mirror: bool = False
) -> Counter[str]:
    """Play a random game through both; return what happened (round ends, redeals)."""
    seen: Counter[str] = Counter()
    rng = random.Random(seed)
    game = Game(ruleset, first_dealer=Player(rng.randrange(2)))
    deck: list[Card] = []
    sim: _sim.RoundSim | None = None
    while not game.is_over():
        if game.phase is Phase.DEAL:
            if not game.redealt:
                deck = list(ALL_CARDS)
                rng.shuffle(deck)
                if mirror:
                    _mirror(deck)
            game.deal(hands_from_deck(deck, game.dealer, redeal=game.redealt))
            if sim is None:
                sim = _sim_of(game, deck)
            else:  # the redeal: the simulator dealt the same hands itself
                seen["redeal"] += 1
                for p in Player:
                    hand = game.hand(p)
                    assert hand is not None
                    assert sorted(sim.hands[p]) == _sim.strengths(hand)
            continue
        assert sim is not None and not sim.done
        assert sim.to_act == game.to_act
        assert set(sim.legal()) == _engine_codes(game)
        action = _choose(game, rng, request_bias)
        events = game.push(action)
        sim.apply(_sim.code_of(action))
        ended = [e for e in events if isinstance(e, RoundEnded)]
        if not ended:
            assert not sim.done
            continue
        (end,) = ended
        seen[end.reason.value] += 1
        assert sim.done
        assert sim.winner == (-1 if end.winner is None else int(end.winner))
        assert tuple(sim.scores) == end.scores
        over = [e for e in events if isinstance(e, GameEnded)]
        assert sim.game_winner == (int(over[0].outcome.winner) if over else -1)
        sim = None
    return seen


@settings(max_examples=examples(150), deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    ruleset=RULESETS,
    request_bias=st.floats(0, 0.8),
    mirror=st.booleans(),
)
def test_simulator_matches_engine(
    seed: int, ruleset: Ruleset, request_bias: float, mirror: bool
) -> None:
    assert sum(_crosscheck(seed, ruleset, request_bias, mirror=mirror).values()) >= 1


def test_crosscheck_covers_every_round_ending_and_the_redeal() -> None:
    seen: Counter[str] = Counter()
    for seed in range(200):
        ruleset = Ruleset(rest_refused=RestRefused.VALUE) if seed % 2 else Ruleset()
        seen += _crosscheck(seed, ruleset, 0.1, mirror=seed % 3 == 0)
    assert set(seen) == {r.value for r in RoundEndReason} | {"redeal"}
    assert seen["tricks"] > 100


def test_simulator_copy_is_independent() -> None:
    sim = _sim.RoundSim(hands=([0, 3, 7], [1, 2, 6]), dealer=1, leader=0, scores=(0, 0), target=12)
    twin = sim.copy()
    sim.apply(7)
    sim.apply(_sim.RAISE)
    assert twin.hands == ([0, 3, 7], [1, 2, 6]) and twin.table == -1 and twin.pending == 0
    assert sim.table == 7 and sim.pending == _sim.RAISE and sim.to_act == 0


def test_simulator_rejects_a_view_that_is_not_to_act() -> None:
    game = Game(first_dealer=Player.P1, view=Player.P1)
    game.deal({Player.P1: [ALL_CARDS[0], ALL_CARDS[1], ALL_CARDS[2]]})
    with pytest.raises(ValueError, match="cannot see P0's hand"):
        _sim.from_view(game, [0, 1, 2])
