"""Events produced by :meth:`Game.deal` and :meth:`Game.push`, and the outcome.

Events are frozen, keyword-only dataclasses; dispatch on their type.  A push
always yields :class:`Acted` first, then possibly :class:`TrickEnded`,
:class:`RoundEnded` and :class:`GameEnded`, in that order.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from truc_p2p.rules._actions import Action
from truc_p2p.rules._cards import Card, Player
from truc_p2p.rules._errors import RulesError

__all__ = [
    "Acted",
    "Dealt",
    "Event",
    "GameEndReason",
    "GameEnded",
    "Outcome",
    "RoundEndReason",
    "RoundEnded",
    "Trick",
    "TrickEnded",
]


class RoundEndReason(Enum):
    """Why a round ended."""

    #: Decided by the tricks (possibly early, once the winner was certain).
    TRICKS = "tricks"
    #: All three tricks spoiled: nobody scores (a rest stake lapses).
    SPOILED = "spoiled"
    #: A raise was refused: the requester scores the value before the request.
    REFUSED = "refused"
    #: "My rest" was refused (or folded on).
    REST_REFUSED = "rest-refused"
    #: A player folded.
    FOLDED = "folded"
    #: Won by tricks after "my rest" was answered: the winner wins the game.
    REST_WON = "rest-won"

    @classmethod
    def _missing_(cls, value: object) -> RoundEndReason:
        raise RulesError(f"not a round end reason: {value!r}")


class GameEndReason(Enum):
    """Why the game ended."""

    #: A player reached the target score.
    TARGET = "target"
    #: Won the round after "my rest" was answered (or the opponent folded then).
    REST_WON = "rest-won"
    #: The opponent refused (or folded on) "my rest" (default variant).
    REST_REFUSED = "rest-refused"

    @classmethod
    def _missing_(cls, value: object) -> GameEndReason:
        raise RulesError(f"not a game end reason: {value!r}")


@dataclass(frozen=True, slots=True)
class Outcome:
    """The result of a finished game.  ``scores`` are the final scores."""

    winner: Player
    reason: GameEndReason
    scores: tuple[int, int]


@dataclass(frozen=True, slots=True, kw_only=True)
class Trick:
    """A finished trick: who led, the cards (leader's, follower's), who won it."""

    leader: Player
    cards: tuple[Card, Card]
    #: ``None`` when the trick was spoiled (equal ranks).
    winner: Player | None

    @property
    def follower(self) -> Player:
        """The player who played second."""
        return self.leader.other

    @property
    def spoiled(self) -> bool:
        """Whether nobody won the trick."""
        return self.winner is None


@dataclass(frozen=True, slots=True, kw_only=True)
class Event:
    """Base class of every engine event."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Dealt(Event):
    """The cards of a deal were given to the engine (``redeal``: positions 6–11)."""

    round_no: int
    dealer: Player
    redeal: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class Acted(Event):
    """``player`` took ``action``; always the first event of a push."""

    player: Player
    action: Action


@dataclass(frozen=True, slots=True, kw_only=True)
class TrickEnded(Event):
    """Trick ``trick_no`` (0-based) ended; ``winner`` is ``None`` if spoiled."""

    trick_no: int
    leader: Player
    cards: tuple[Card, Card]
    winner: Player | None


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundEnded(Event):
    """Round ``round_no`` ended.

    ``points`` were added to ``winner``'s score (0 when nobody scored, and when
    the round ends the game through "my rest": the scores then stay as they
    were).  ``scores`` are the scores after the round.
    """

    round_no: int
    winner: Player | None
    points: int
    reason: RoundEndReason
    scores: tuple[int, int]


@dataclass(frozen=True, slots=True, kw_only=True)
class GameEnded(Event):
    """The game ended with ``outcome``."""

    outcome: Outcome
