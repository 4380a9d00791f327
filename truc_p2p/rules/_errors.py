"""Error types of the rules engine.

Every error is a :class:`ValueError` (through :class:`RulesError`) so callers
that only care about "bad input" can catch one thing.  Each error carries a
short machine-readable ``rule`` slug naming the rule that was broken; the
slugs are listed in ``protocol_spec/rules.md``.
"""

from __future__ import annotations

__all__ = [
    "ActionError",
    "AnswerMismatchError",
    "CardError",
    "CardNotHeldError",
    "DealError",
    "GameOverError",
    "IllegalActionError",
    "NoRequestAfterRestError",
    "NoRequestPendingError",
    "NotDealtError",
    "NotYourTurnError",
    "OneRequestPerTrickError",
    "PlayerError",
    "RedealNotAllowedError",
    "RequestPendingError",
    "RulesError",
    "RulesetError",
    "WrongPhaseError",
]


class RulesError(ValueError):
    """Base class of every error raised by :mod:`truc_p2p.rules`."""

    #: Short slug naming the rule that was broken.
    rule: str = "rules"

    def __init__(self, message: str, *, rule: str | None = None) -> None:
        super().__init__(message)
        if rule is not None:
            self.rule = rule


class CardError(RulesError):
    """A card could not be built or parsed (bad index, text, rank or suit)."""

    rule = "card-syntax"


class ActionError(RulesError):
    """An action could not be built or parsed (bad text, card missing or extra)."""

    rule = "action-syntax"


class PlayerError(RulesError):
    """A seat is not a :class:`Player` nor the plain int 0 or 1."""

    rule = "player"


class RulesetError(RulesError):
    """A ruleset value or its dictionary form is invalid."""

    rule = "ruleset"


class DealError(RulesError):
    """The hands given to :meth:`Game.deal` are not acceptable now."""

    rule = "deal"


class IllegalActionError(RulesError):
    """The action may not be applied in the current state."""

    rule = "legal-action"


class WrongPhaseError(IllegalActionError):
    """No action can be applied in the current phase."""

    rule = "phase"


class NotDealtError(WrongPhaseError):
    """The cards of the current deal have not been dealt yet."""

    rule = "deal-first"


class GameOverError(WrongPhaseError):
    """The game is over; nothing more can be played."""

    rule = "game-over"


class NotYourTurnError(IllegalActionError):
    """The stated player is not the one to act."""

    rule = "turn"


class RequestPendingError(IllegalActionError):
    """A request is pending: it must be answered (or the answerer folds) first."""

    rule = "answer-first"


class AnswerMismatchError(IllegalActionError):
    """The answer does not fit the pending request (e.g. accept-redeal to a raise)."""

    rule = "answer-kind"


class NoRequestPendingError(IllegalActionError):
    """An answer was given while no request is pending."""

    rule = "nothing-to-answer"


class OneRequestPerTrickError(IllegalActionError):
    """The player has already made its one request of this trick."""

    rule = "one-request-per-trick"


class NoRequestAfterRestError(IllegalActionError):
    """After "my rest" was answered, no more requests in this round."""

    rule = "no-request-after-rest"


class CardNotHeldError(IllegalActionError):
    """The card cannot be in the player's hand."""

    rule = "card-held"


class RedealNotAllowedError(IllegalActionError):
    """A redeal may only be asked by the non-dealer, as its first action, once a round."""

    rule = "redeal"
