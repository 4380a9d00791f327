"""The spectator's view: no hand known, only the cards played (the deck v2 verifier's view)."""

from __future__ import annotations

import random

import pytest

from truc_p2p.rules import Action, DealError, Game, Player, Ruleset, RulesetError
from truc_p2p.rules._cards import ALL_CARDS


def test_a_spectator_follows_a_game_without_any_hand() -> None:
    rng = random.Random(3)
    for _ in range(20):
        cards = rng.sample(list(ALL_CARDS), 6)
        hands = {Player.P0: tuple(cards[:3]), Player.P1: tuple(cards[3:])}
        full = Game(Ruleset(target=1), first_dealer=Player.P1)
        watcher = Game(Ruleset(target=1), first_dealer=Player.P1, spectator=True)
        assert watcher.spectator and not full.spectator
        full.deal(hands)
        watcher.deal({})
        assert watcher.hand(Player.P0) is None and not watcher.knows_hand(Player.P1)
        while not full.is_over():
            action = rng.choice(list(full.legal_actions()))
            assert watcher.is_legal(action)
            events = full.push(action)
            assert watcher.push(action) == events
            if full.phase.value == "deal" and not full.is_over():
                break  # a redeal or the next round: the spectator needs the deck again
        assert watcher.scores == full.scores


def test_a_spectator_is_dealt_nothing_and_is_no_player() -> None:
    watcher = Game(first_dealer=Player.P0, spectator=True)
    with pytest.raises(DealError):
        watcher.deal({Player.P0: tuple(ALL_CARDS[:3])})
    with pytest.raises(RulesetError):
        Game(first_dealer=Player.P0, view=Player.P0, spectator=True)
    watcher.deal({})
    card = ALL_CARDS[0]
    # the non-dealer leads; any card not yet played may be its
    assert watcher.is_legal(Action.play(card))
    watcher.push(Action.play(card))
    assert not watcher.is_legal(Action.play(card))
    assert "spectator" in repr(watcher)
