"""The public data of one hand, as exchanged: what the audit checks."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ["HandRecord"]


def _empty() -> Mapping[int, bytes]:
    return {}


@dataclass(frozen=True, kw_only=True)
class HandRecord:
    """Everything public about one hand, message by message.

    Build it with :meth:`DeckSide.record` or directly from a transcript (the
    offline verifier does).  A message that was never sent is left empty; the
    audit checks every message present.  Fields:

    * ``game_id`` (32 bytes), ``hand`` (the game's hand counter);
    * ``dealer_commitment`` (sent with D1), ``nondealer_commitment`` (with D2);
    * ``d1`` .. ``d4``: the four decks, 32 entries of 32 bytes each;
    * ``d3_keys``: the dealer's per-card keys sent with D3 (positions 0, 2, 4);
    * ``d4_keys``: the non-dealer's per-card keys sent with D4 (positions 1, 3, 5);
    * ``dealer_redeal_keys`` (positions 6, 8, 10) and ``nondealer_redeal_keys``
      (7, 9, 11): sent only if the hand was redealt;
    * ``dealer_shown``, ``nondealer_shown``: position -> own per-card key sent
      to show a played card.

    Keys are 32-byte big-endian scalars.  Sequences are stored as tuples and
    mappings copied into plain dicts; the record is immutable but not hashable.
    """

    game_id: bytes
    hand: int
    dealer_commitment: bytes = b""
    nondealer_commitment: bytes = b""
    d1: tuple[bytes, ...] = ()
    d2: tuple[bytes, ...] = ()
    d3: tuple[bytes, ...] = ()
    d4: tuple[bytes, ...] = ()
    d3_keys: Mapping[int, bytes] = field(default_factory=_empty)
    d4_keys: Mapping[int, bytes] = field(default_factory=_empty)
    dealer_redeal_keys: Mapping[int, bytes] = field(default_factory=_empty)
    nondealer_redeal_keys: Mapping[int, bytes] = field(default_factory=_empty)
    dealer_shown: Mapping[int, bytes] = field(default_factory=_empty)
    nondealer_shown: Mapping[int, bytes] = field(default_factory=_empty)

    def __post_init__(self) -> None:
        for name in ("d1", "d2", "d3", "d4"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        for name in (
            "d3_keys",
            "d4_keys",
            "dealer_redeal_keys",
            "nondealer_redeal_keys",
            "dealer_shown",
            "nondealer_shown",
        ):
            object.__setattr__(self, name, dict(getattr(self, name)))

    @property
    def redeal(self) -> bool:
        """Whether any redeal keys were exchanged."""
        return bool(self.dealer_redeal_keys or self.nondealer_redeal_keys)
