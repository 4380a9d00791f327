"""Helpers for the bot tests: views built from a script of public play."""

from __future__ import annotations

from collections.abc import Sequence

from truc_p2p.rules import DEFAULT_RULESET, Action, Card, Game, Player, Ruleset

P0, P1 = Player.P0, Player.P1


def cards(text: str) -> list[Card]:
    """``"9C KC 7C"`` -> the cards."""
    return [Card.from_str(t) for t in text.split()]


def view(
    rounds: Sequence[tuple[str, Sequence[str]]],
    *,
    ruleset: Ruleset = DEFAULT_RULESET,
    seat: Player = P0,
    first_dealer: Player = P1,
) -> Game:
    """``seat``'s view after each ``(its hand, the actions of the round)`` in turn."""
    game = Game(ruleset, first_dealer=first_dealer, view=seat)
    for hand, actions in rounds:
        game.deal({seat: cards(hand)})
        for action in actions:
            game.push(Action.from_str(action))
    return game
