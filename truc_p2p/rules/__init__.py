"""The pure rules engine of 2-player Le Truc.

No I/O, no clock, no randomness: the caller deals the cards (the deck layer
knows which card sits at which position) and pushes the players' actions::

    from truc_p2p.rules import Action, Card, Game, Player

    game = Game(first_dealer=Player.P1)
    game.deal({Player.P0: [Card.from_str(c) for c in ("7S", "9H", "AD")],
               Player.P1: [Card.from_str(c) for c in ("8C", "10C", "KH")]})
    game.push(Action.RAISE)   # P0 (the non-dealer) asks "2 more?"
    game.push(Action.ACCEPT)  # P1 accepts: the round is now worth 2
    game.push(Action.play(Card.from_str("7S")))

See ``protocol_spec/rules.md`` for the rules in full.
"""

from __future__ import annotations

from truc_p2p.rules._actions import Action, ActionKind
from truc_p2p.rules._cards import ALL_CARDS, Card, Player, Rank, Suit
from truc_p2p.rules._deal import deal_positions, hands_from_deck
from truc_p2p.rules._errors import (
    ActionError,
    AnswerMismatchError,
    CardError,
    CardNotHeldError,
    DealError,
    GameOverError,
    IllegalActionError,
    NoRequestAfterRestError,
    NoRequestPendingError,
    NotDealtError,
    NotYourTurnError,
    OneRequestPerTrickError,
    PlayerError,
    RedealNotAllowedError,
    RequestPendingError,
    RulesError,
    RulesetError,
    WrongPhaseError,
)
from truc_p2p.rules._events import (
    Acted,
    Dealt,
    Event,
    GameEnded,
    GameEndReason,
    Outcome,
    RoundEnded,
    RoundEndReason,
    Trick,
    TrickEnded,
)
from truc_p2p.rules._game import ANSWERS, HAND_SIZE, Game, LegalActions, Phase, round_result
from truc_p2p.rules._ruleset import DEFAULT_RULESET, MAX_TARGET, Ladder, RestRefused, Ruleset
from truc_p2p.rules._sure import SureRound, sure_round

__all__ = [
    "ALL_CARDS",
    "ANSWERS",
    "DEFAULT_RULESET",
    "HAND_SIZE",
    "MAX_TARGET",
    "Acted",
    "Action",
    "ActionError",
    "ActionKind",
    "AnswerMismatchError",
    "Card",
    "CardError",
    "CardNotHeldError",
    "DealError",
    "Dealt",
    "Event",
    "Game",
    "GameEndReason",
    "GameEnded",
    "GameOverError",
    "IllegalActionError",
    "Ladder",
    "LegalActions",
    "NoRequestAfterRestError",
    "NoRequestPendingError",
    "NotDealtError",
    "NotYourTurnError",
    "OneRequestPerTrickError",
    "Outcome",
    "Phase",
    "Player",
    "PlayerError",
    "Rank",
    "RedealNotAllowedError",
    "RequestPendingError",
    "RestRefused",
    "RoundEndReason",
    "RoundEnded",
    "RulesError",
    "Ruleset",
    "RulesetError",
    "Suit",
    "SureRound",
    "Trick",
    "TrickEnded",
    "WrongPhaseError",
    "deal_positions",
    "hands_from_deck",
    "round_result",
    "sure_round",
]
