"""Actions a player can take, with a text round-trip (``"play 7S"``, ``"raise"``…)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import ClassVar

from truc_p2p.rules._cards import Card
from truc_p2p.rules._errors import ActionError, CardError

__all__ = ["Action", "ActionKind"]


class ActionKind(Enum):
    """The kinds of action; the value is the text form."""

    #: Play a card to the current trick.
    PLAY = "play"
    #: Request "2 more?": raise the round value one ladder step.
    RAISE = "raise"
    #: Request "my rest": the round decides the game.
    REST = "rest"
    #: Accept a pending raise, or answer "my rest" too to a pending rest.
    ACCEPT = "accept"
    #: Refuse a pending raise or rest: the round ends at once.
    REFUSE = "refuse"
    #: Give up the round (at any turn of the round).
    FOLD = "fold"
    #: Non-dealer's first action of a round: ask for a redeal.
    ASK_REDEAL = "redeal"
    #: Dealer accepts the redeal: both hands are discarded and three more cards are dealt.
    ACCEPT_REDEAL = "accept-redeal"
    #: Dealer declines the redeal: play goes on with the cards held.
    DECLINE_REDEAL = "decline-redeal"

    @classmethod
    def _missing_(cls, value: object) -> ActionKind:
        raise ActionError(f"not a kind of action: {value!r}")

    @property
    def is_request(self) -> bool:
        """Whether this kind is one of the two stake requests (raise, rest)."""
        return self in (ActionKind.RAISE, ActionKind.REST)

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True, slots=True)
class Action:
    """One action: a kind, plus the card for :attr:`ActionKind.PLAY` only.

    Constants exist for the card-less actions (``Action.RAISE``,
    ``Action.ACCEPT``…); ``Action.play(card)`` builds a play.
    """

    kind: ActionKind
    card: Card | None = None

    RAISE: ClassVar[Action]
    REST: ClassVar[Action]
    ACCEPT: ClassVar[Action]
    REFUSE: ClassVar[Action]
    FOLD: ClassVar[Action]
    ASK_REDEAL: ClassVar[Action]
    ACCEPT_REDEAL: ClassVar[Action]
    DECLINE_REDEAL: ClassVar[Action]

    def __post_init__(self) -> None:
        if not isinstance(self.kind, ActionKind):
            raise ActionError(f"not an action kind: {self.kind!r}")
        if self.kind is ActionKind.PLAY:
            if not isinstance(self.card, Card):
                raise ActionError("a play action needs a card")
        elif self.card is not None:
            raise ActionError(f"a {self.kind.value} action takes no card")

    @classmethod
    def play(cls, card: Card | str) -> Action:
        """Play ``card`` (a :class:`Card` or its text)."""
        if isinstance(card, str):
            card = Card.from_str(card)
        return cls(ActionKind.PLAY, card)

    @classmethod
    def from_str(cls, text: str) -> Action:
        """Parse the text form: ``"play 7S"``, ``"raise"``, ``"accept-redeal"``…"""
        if not isinstance(text, str):
            raise ActionError(f"action text must be a str, not {type(text).__name__}")
        words = text.strip().lower().split()
        try:
            kind = ActionKind(words[0]) if words else None
        except ValueError:
            kind = None
        if kind is None:
            raise ActionError(f"not an action: {text!r}")
        if kind is ActionKind.PLAY:
            if len(words) != 2:
                raise ActionError(f"expected 'play <card>', got {text!r}")
            try:
                return cls(kind, Card.from_str(words[1]))
            except CardError as exc:
                raise ActionError(f"not an action: {text!r} ({exc})") from None
        if len(words) != 1:
            raise ActionError(f"{kind.value!r} takes no argument: {text!r}")
        return cls(kind)

    def pretty(self, ascii: bool = False) -> str:
        """Like ``str()`` but with a pretty card (``"play 7♠"``)."""
        if self.card is None:
            return self.kind.value
        return f"{self.kind.value} {self.card.pretty(ascii)}"

    def __str__(self) -> str:
        if self.card is None:
            return self.kind.value
        return f"{self.kind.value} {self.card}"

    def __repr__(self) -> str:
        return f"Action.from_str({str(self)!r})"


Action.RAISE = Action(ActionKind.RAISE)
Action.REST = Action(ActionKind.REST)
Action.ACCEPT = Action(ActionKind.ACCEPT)
Action.REFUSE = Action(ActionKind.REFUSE)
Action.FOLD = Action(ActionKind.FOLD)
Action.ASK_REDEAL = Action(ActionKind.ASK_REDEAL)
Action.ACCEPT_REDEAL = Action(ActionKind.ACCEPT_REDEAL)
Action.DECLINE_REDEAL = Action(ActionKind.DECLINE_REDEAL)
