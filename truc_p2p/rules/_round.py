"""What a round allows, outside the state machine: the answers to each request, the
candidate actions, the game's phases, a round's winner from its tricks and the
set of legal actions :meth:`~truc_p2p.rules.Game.legal_actions` returns."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence
from enum import Enum
from typing import Final

from truc_p2p.rules._actions import Action, ActionKind
from truc_p2p.rules._cards import ALL_CARDS, Card, Player
from truc_p2p.rules._errors import (
    ActionError,
    PlayerError,
    RulesError,
)

__all__ = ["ANSWERS", "HAND_SIZE", "LegalActions", "Phase", "round_result"]

#: Cards per hand (and tricks per round).
HAND_SIZE: Final = 3

#: The answers allowed to each kind of pending request.  Folding is always an
#: answer: on a pending rest it counts as refusing it.
ANSWERS: Final[Mapping[ActionKind, frozenset[ActionKind]]] = {
    ActionKind.RAISE: frozenset({ActionKind.ACCEPT, ActionKind.REFUSE, ActionKind.FOLD}),
    ActionKind.REST: frozenset({ActionKind.ACCEPT, ActionKind.REFUSE, ActionKind.FOLD}),
    ActionKind.ASK_REDEAL: frozenset(
        {ActionKind.ACCEPT_REDEAL, ActionKind.DECLINE_REDEAL, ActionKind.FOLD}
    ),
}

_ANSWER_KINDS: Final = frozenset().union(*ANSWERS.values()) - {ActionKind.FOLD}
_NON_PLAY_ACTIONS: Final[tuple[Action, ...]] = (
    Action.RAISE,
    Action.REST,
    Action.ACCEPT,
    Action.REFUSE,
    Action.FOLD,
    Action.ASK_REDEAL,
    Action.ACCEPT_REDEAL,
    Action.DECLINE_REDEAL,
)
_PLAY_ACTIONS: Final[tuple[Action, ...]] = tuple(Action.play(c) for c in ALL_CARDS)


class Phase(Enum):
    """What the game is waiting for."""

    #: Waiting for the cards of a deal (first deal of a round, or the redeal).
    DEAL = "deal"
    #: A player is to act.
    PLAY = "play"
    #: The game is over.
    OVER = "over"

    @classmethod
    def _missing_(cls, value: object) -> Phase:
        raise RulesError(f"not a phase: {value!r}")


def _final_winner(results: Sequence[Player | None]) -> Player | None:
    """Round winner once all three trick results are known."""
    for player in Player:
        if sum(1 for r in results if r is player) >= 2:
            return player
    # Each won one (other spoiled), or one won and two spoiled: first won trick.
    for r in results:
        if r is not None:
            return r
    return None


def round_result(results: Sequence[Player | None]) -> tuple[bool, Player | None]:
    """``(decided, winner)`` of a round whose finished tricks had ``results``.

    A round is decided as soon as every way the remaining tricks could go
    (won by either player or spoiled) gives the same round winner; ``winner``
    is ``None`` when decided with nobody winning (all three tricks spoiled).
    """
    if isinstance(results, str | bytes) or not isinstance(results, Sequence):
        raise PlayerError(f"results must be a sequence of Player or None, not {results!r}")
    known = [None if r is None else Player.coerce(r) for r in results]
    remaining = HAND_SIZE - len(known)
    if remaining < 0:
        raise RulesError(f"a round has at most three tricks, not {len(known)}", rule="three-tricks")
    outcomes = {
        _final_winner([*known, *rest])
        for rest in itertools.product((Player.P0, Player.P1, None), repeat=remaining)
    }
    if len(outcomes) == 1:
        return True, outcomes.pop()
    return False, None


class LegalActions:
    """The legal actions of the player to act: supports ``in``, ``len``, iteration.

    Actions come in a canonical order: plays by card index, then the other
    kinds in :class:`ActionKind` order.
    """

    __slots__ = ("_actions",)

    def __init__(self, actions: Sequence[Action]) -> None:
        if isinstance(actions, str | bytes) or not isinstance(actions, Sequence):
            raise ActionError(f"legal actions must be a sequence of Action, not {actions!r}")
        if not all(isinstance(a, Action) for a in actions):
            raise ActionError("legal actions must all be Action values")
        self._actions = tuple(actions)

    def __contains__(self, action: object) -> bool:
        return action in self._actions

    def __iter__(self) -> Iterator[Action]:
        return iter(self._actions)

    def __len__(self) -> int:
        return len(self._actions)

    def __bool__(self) -> bool:
        return bool(self._actions)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LegalActions):
            return set(self._actions) == set(other._actions)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def cards(self) -> tuple[Card, ...]:
        """The cards that may be played."""
        return tuple(a.card for a in self._actions if a.card is not None)

    def kinds(self) -> frozenset[ActionKind]:
        """The kinds of the legal actions."""
        return frozenset(a.kind for a in self._actions)

    def __repr__(self) -> str:
        return f"<LegalActions ({', '.join(str(a) for a in self._actions)})>"
