"""Cards, ranks, suits and players.

The 32-card pack has the ranks 7, 8, 9, 10, J, Q, K, A in four suits.  A
:class:`Rank`'s integer value *is* its trick strength (9 lowest, 7 highest);
suits never matter for strength.

Every card also has a **canonical index** 0..31 used on the wire and by the
deck layer: ``index = suit_order * 8 + text_order`` where the suit order is
C, D, H, S and the text order of ranks is 7, 8, 9, 10, J, Q, K, A.  Index 0 is
``7C``, index 31 is ``AS``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, IntEnum
from typing import Final

from truc_p2p.rules._errors import CardError, PlayerError

__all__ = ["ALL_CARDS", "Card", "Player", "Rank", "Suit"]


class Player(IntEnum):
    """One of the two players.  ``P0`` and ``P1`` are seats, not roles."""

    P0 = 0
    P1 = 1

    @classmethod
    def _missing_(cls, value: object) -> Player:
        raise PlayerError(f"not a player (Player.P0, Player.P1, 0 or 1): {value!r}")

    @property
    def other(self) -> Player:
        """The opponent."""
        return Player.P1 if self is Player.P0 else Player.P0

    @classmethod
    def coerce(cls, value: object) -> Player:
        """``value`` as a :class:`Player`: a Player, or a plain int seat 0 or 1.

        Every public entry point of the rules engine normalises its seats with
        this, so ``game.push(action, player=1)`` works like ``player=Player.P1``.
        Anything else (``2``, ``-1``, ``True``, ``"0"``, ``1.0``) raises
        :class:`PlayerError`.
        """
        if isinstance(value, Player):
            return value
        if isinstance(value, int) and not isinstance(value, bool) and value in (0, 1):
            return cls(value)
        raise PlayerError(f"a player is Player.P0, Player.P1, 0 or 1, not {value!r}")

    def __str__(self) -> str:
        return self.name


class Rank(IntEnum):
    """A card rank; the value is the trick strength (higher wins)."""

    NINE = 0
    TEN = 1
    JACK = 2
    QUEEN = 3
    KING = 4
    ACE = 5
    EIGHT = 6
    SEVEN = 7

    @classmethod
    def _missing_(cls, value: object) -> Rank:
        raise CardError(f"not a rank: {value!r}")

    @property
    def symbol(self) -> str:
        """Text symbol: ``"9"``, ``"10"``, ``"J"``, ``"Q"``, ``"K"``, ``"A"``, ``"8"``, ``"7"``."""
        return _RANK_SYMBOLS[self]

    @property
    def text_order(self) -> int:
        """Position of the rank in the index order 7, 8, 9, 10, J, Q, K, A."""
        return _RANK_TEXT_ORDER.index(self)

    @classmethod
    def from_str(cls, text: str) -> Rank:
        """Parse a rank symbol (case-insensitive; ``"T"`` is accepted for ten)."""
        try:
            return _RANK_BY_TEXT[text.strip().upper()]
        except (KeyError, AttributeError):
            raise CardError(f"not a rank: {text!r}") from None

    def __str__(self) -> str:
        return self.symbol


class Suit(Enum):
    """A card suit; it never matters for strength."""

    CLUBS = "C"
    DIAMONDS = "D"
    HEARTS = "H"
    SPADES = "S"

    @classmethod
    def _missing_(cls, value: object) -> Suit:
        raise CardError(f"not a suit: {value!r}")

    @property
    def symbol(self) -> str:
        """Pretty symbol: ♣ ♦ ♥ ♠."""
        return _SUIT_SYMBOLS[self]

    @property
    def order(self) -> int:
        """Position of the suit in the index order C, D, H, S."""
        return _SUIT_ORDER.index(self)

    @classmethod
    def from_str(cls, text: str) -> Suit:
        """Parse a suit letter (case-insensitive) or pretty symbol."""
        try:
            return _SUIT_BY_TEXT[text.strip().upper()]
        except (KeyError, AttributeError):
            raise CardError(f"not a suit: {text!r}") from None

    def __str__(self) -> str:
        return self.value


_RANK_SYMBOLS: Final[dict[Rank, str]] = {
    Rank.NINE: "9",
    Rank.TEN: "10",
    Rank.JACK: "J",
    Rank.QUEEN: "Q",
    Rank.KING: "K",
    Rank.ACE: "A",
    Rank.EIGHT: "8",
    Rank.SEVEN: "7",
}
_RANK_TEXT_ORDER: Final[tuple[Rank, ...]] = (
    Rank.SEVEN,
    Rank.EIGHT,
    Rank.NINE,
    Rank.TEN,
    Rank.JACK,
    Rank.QUEEN,
    Rank.KING,
    Rank.ACE,
)
_RANK_BY_TEXT: Final[dict[str, Rank]] = {s: r for r, s in _RANK_SYMBOLS.items()} | {"T": Rank.TEN}
_SUIT_ORDER: Final[tuple[Suit, ...]] = (Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES)
_SUIT_SYMBOLS: Final[dict[Suit, str]] = {
    Suit.CLUBS: "♣",
    Suit.DIAMONDS: "♦",
    Suit.HEARTS: "♥",
    Suit.SPADES: "♠",
}
_SUIT_BY_TEXT: Final[dict[str, Suit]] = (
    {s.value: s for s in Suit}
    | {sym: s for s, sym in _SUIT_SYMBOLS.items()}
    | {"♧": Suit.CLUBS, "♢": Suit.DIAMONDS, "♡": Suit.HEARTS, "♤": Suit.SPADES}
)


@dataclass(frozen=True, slots=True)
class Card:
    """One of the 32 cards.  Text form ``"10H"``, pretty form ``"10♥"``."""

    rank: Rank
    suit: Suit

    def __post_init__(self) -> None:
        if not isinstance(self.rank, Rank) or not isinstance(self.suit, Suit):
            raise CardError(f"not a card: rank={self.rank!r} suit={self.suit!r}")

    @property
    def index(self) -> int:
        """Canonical index 0..31 (``suit_order * 8 + rank text order``)."""
        return self.suit.order * 8 + self.rank.text_order

    @property
    def strength(self) -> int:
        """Trick strength 0 (a nine) .. 7 (a seven); equal strengths spoil a trick."""
        return int(self.rank)

    @classmethod
    def from_index(cls, index: int) -> Card:
        """The card with canonical index ``index`` (0..31)."""
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < 32:
            raise CardError(f"card index must be an int in 0..31, not {index!r}")
        return ALL_CARDS[index]

    @classmethod
    def from_str(cls, text: str) -> Card:
        """Parse ``"7S"``, ``"10h"``, ``"TH"`` or ``"10♥"`` (case-insensitive)."""
        if not isinstance(text, str):
            raise CardError(f"card text must be a str, not {type(text).__name__}")
        stripped = text.strip()
        if len(stripped) < 2 or any(ch.isspace() for ch in stripped):
            raise CardError(f"not a card: {text!r}")
        try:
            return cls(Rank.from_str(stripped[:-1]), Suit.from_str(stripped[-1]))
        except CardError:
            raise CardError(f"not a card: {text!r}") from None

    def pretty(self, ascii: bool = False) -> str:
        """``"10♥"``, or ``"10H"`` with ``ascii=True``."""
        return f"{self.rank.symbol}{self.suit.value if ascii else self.suit.symbol}"

    def __str__(self) -> str:
        return f"{self.rank.symbol}{self.suit.value}"

    def __repr__(self) -> str:
        return f"Card.from_str({str(self)!r})"


#: The 32 cards in canonical index order.
ALL_CARDS: Final[tuple[Card, ...]] = tuple(
    Card(rank, suit) for suit in _SUIT_ORDER for rank in _RANK_TEXT_ORDER
)
