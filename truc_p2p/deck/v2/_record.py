"""Deck v2: the public record of a hand and the verifier's report."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from truc_p2p.deck._schedule import Role

__all__ = ["DeckReportV2", "HandRecordV2"]


def _empty_shown() -> dict[int, bytes]:
    return {}


@dataclass(frozen=True, kw_only=True)
class HandRecordV2:
    """Everything public about one v2 hand, as signed by its senders.

    ``d1``/``d2``/``d3`` are the deck payloads as sent (``None`` if never
    sent); ``dealer_redeal``/``nondealer_redeal`` the redeal share arrays;
    ``dealer_shown``/``nondealer_shown`` position -> 97-byte share, in the
    order shown.  Nothing in it opens a card that was not shown.
    """

    game_id: bytes
    hand: int
    context: bytes
    d1: Mapping[str, Any] | None = None
    d2: Mapping[str, Any] | None = None
    d3: Mapping[str, Any] | None = None
    dealer_redeal: Sequence[bytes] | None = None
    nondealer_redeal: Sequence[bytes] | None = None
    dealer_shown: Mapping[int, bytes] = field(default_factory=_empty_shown)
    nondealer_shown: Mapping[int, bytes] = field(default_factory=_empty_shown)


@dataclass(frozen=True)
class DeckReportV2:
    """What a verified v2 hand discloses: only the cards that were shown."""

    shown: Mapping[Role, Mapping[int, int]]
    redeal: bool
    checked: tuple[str, ...]
    deck: str = "v2"
    hidden_cards_revealed: int = 0

    @property
    def opened(self) -> dict[int, int]:
        """Position -> card of every card anyone can open from the messages."""
        return {**self.shown[Role.DEALER], **self.shown[Role.NONDEALER]}

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form (for ``truc-p2p verify --json``)."""
        return {
            "deck": self.deck,
            "hidden_cards_revealed": self.hidden_cards_revealed,
            "redeal": self.redeal,
            "shown": {r.value: dict(sorted(s.items())) for r, s in self.shown.items()},
            "checked": list(self.checked),
        }
