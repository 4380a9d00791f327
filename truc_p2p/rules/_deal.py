"""Which deck positions go to whom: pure bookkeeping shared with the deck layer."""

from __future__ import annotations

from collections.abc import Sequence

from truc_p2p.rules._cards import Card, Player
from truc_p2p.rules._errors import DealError

__all__ = ["deal_positions", "hands_from_deck"]


def deal_positions(dealer: Player, *, redeal: bool = False) -> dict[Player, tuple[int, int, int]]:
    """Deck positions of each player's three cards.

    One card at a time starting with the non-dealer: positions 0, 2, 4 go to
    the non-dealer and 1, 3, 5 to the dealer; a redeal uses 6..11 the same way.
    """
    base = 6 if redeal else 0
    dealer = Player.coerce(dealer)
    return {
        dealer.other: (base, base + 2, base + 4),
        dealer: (base + 1, base + 3, base + 5),
    }


def hands_from_deck(
    deck: Sequence[Card], dealer: Player, *, redeal: bool = False
) -> dict[Player, tuple[Card, Card, Card]]:
    """Both hands dealt from a shuffled ``deck`` (at least 12 cards)."""
    if isinstance(deck, str | bytes) or not isinstance(deck, Sequence):
        raise DealError(f"a deck must be a sequence of cards, not {type(deck).__name__}")
    if len(deck) < 12:
        raise DealError(f"a deck needs at least 12 cards, got {len(deck)}")
    if not all(isinstance(card, Card) for card in deck):
        raise DealError("a deck must hold Card values only")
    return {
        player: (deck[a], deck[b], deck[c])
        for player, (a, b, c) in deal_positions(dealer, redeal=redeal).items()
    }
