"""Hypothesis properties over random legal play, omniscient and both views in lockstep.

``Trio`` already checks at every step that the three games emit identical
events and agree on the public state, that every action pushed is in
``legal_actions`` of all three, and that each round awards points to at most
one player: exactly the round value, or nothing (spoiled, or "my rest"
deciding the game).
"""

from __future__ import annotations

import random

from helpers.examples import examples
from helpers.rules import Trio, play_random
from hypothesis import given, settings
from hypothesis import strategies as st

from truc_p2p.rules import (
    ALL_CARDS,
    Action,
    ActionKind,
    Game,
    IllegalActionError,
    Ladder,
    Phase,
    Player,
    RestRefused,
    Ruleset,
    hands_from_deck,
)

CANDIDATES = [Action.play(c) for c in ALL_CARDS] + [
    Action(k) for k in ActionKind if k is not ActionKind.PLAY
]

rulesets = st.builds(
    Ruleset,
    target=st.sampled_from([1, 5, 12]),
    ladder=st.sampled_from(Ladder),
    rest_refused=st.sampled_from(RestRefused),
)
# Some games are full of requests and folds, others mostly play cards, so
# both short and long games (target reached by tricks) are explored.
styles = st.sampled_from(
    [
        {},
        {"rest": 0.0, "fold": 0.0},
        {"rest": 0.02, "fold": 0.05, "raise": 0.3},
        {"raise": 3.0, "accept": 3.0, "redeal": 3.0, "accept-redeal": 3.0},
    ]
)
seeds = st.integers(0, 2**32 - 1)


def replay(game: Game) -> Game:
    """Rebuild ``game`` from its deals and its history."""
    new = Game(game.ruleset, first_dealer=game.first_dealer, view=game.view)
    deals = iter(game.deals)
    for player, action in game.history:
        while new.phase is Phase.DEAL:
            new.deal(next(deals))
        new.push(action, player=player)
    for hands in deals:
        new.deal(hands)
    return new


@settings(max_examples=examples(150), deadline=None)
@given(ruleset=rulesets, style=styles, seed=seeds)
def test_random_games_end_in_sync_and_replay(
    ruleset: Ruleset, style: dict[str, float], seed: int
) -> None:
    rng = random.Random(seed)
    trio = Trio(ruleset, dealer=Player(rng.randrange(2)))
    play_random(trio, rng, weights=style)  # raises unless the game ends
    outcome = trio.omni.outcome()
    assert outcome is not None
    assert outcome.scores == trio.omni.scores
    if outcome.reason.value == "target":
        assert outcome.scores[outcome.winner] >= ruleset.target
        assert outcome.scores[outcome.winner.other] < ruleset.target
    assert max(trio.omni.scores) <= ruleset.target + 30
    for game in trio.games:
        again = replay(game)
        assert again == game
        assert again.history == game.history


def check_every_candidate(game: Game) -> None:
    """``a in legal_actions()`` iff ``push(a)`` succeeds; errors change nothing;
    nothing is legal for the player not to act."""
    legal = game.legal_actions()
    actor = game.to_act
    if actor is not None:
        assert not game.legal_actions(actor.other)
        assert game.legal_actions(actor) == legal
    before = game.copy()
    for action in CANDIDATES:
        if action in legal:
            trial = game.copy()
            events = trial.push(action)
            assert events and events[0].action == action  # type: ignore[attr-defined]
            assert game == before, "pushing on a copy changed the original"
        else:
            try:
                game.push(action)
            except IllegalActionError:
                pass
            else:
                raise AssertionError(f"{action} is not legal yet push accepted it")
            assert game == before, f"state changed after rejecting {action}"
        if actor is not None:
            assert not game.is_legal(action, actor.other)


@settings(max_examples=examples(40), deadline=None)
@given(ruleset=rulesets, style=styles, seed=seeds)
def test_legal_actions_iff_push_succeeds(
    ruleset: Ruleset, style: dict[str, float], seed: int
) -> None:
    rng = random.Random(seed)
    trio = Trio(ruleset, dealer=Player(rng.randrange(2)))
    deck = list(ALL_CARDS)
    for _ in range(400):
        game = trio.omni
        if game.phase is Phase.OVER:
            break
        if game.phase is Phase.DEAL:
            for g in trio.games:
                check_every_candidate(g)
            if not game.redealt:
                rng.shuffle(deck)
            trio.deal_hands(dict(hands_from_deck(deck, game.dealer, redeal=game.redealt)))
            continue
        for g in trio.games:
            check_every_candidate(g)
        legal = list(game.legal_actions())
        weights = [style.get(a.kind.value, 1.0) for a in legal]
        if sum(weights) == 0:
            weights = [1.0] * len(legal)
        actor = game.to_act
        assert actor is not None
        trio.push(actor, rng.choices(legal, weights)[0])
    for g in trio.games:
        check_every_candidate(g)


@settings(max_examples=examples(30), deadline=None)
@given(seed=seeds)
def test_copy_is_independent(seed: int) -> None:
    rng = random.Random(seed)
    trio = Trio(dealer=Player(rng.randrange(2)))
    deck = list(ALL_CARDS)
    rng.shuffle(deck)
    trio.deal_hands(dict(hands_from_deck(deck, trio.omni.dealer)))
    snapshot = trio.omni.copy()
    assert snapshot == trio.omni
    frozen_history = snapshot.history
    play_random(trio, rng, deck=deck)
    assert snapshot.history == frozen_history
    assert snapshot.phase is Phase.PLAY
    assert snapshot != trio.omni
