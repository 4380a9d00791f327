"""Per-hand state of a session: one object per hand, owned by the session.

Everything that belongs to one hand and not to the game as a whole lives
here: this player's side of the deck, the signed deck envelopes of the hand
(evidence for the audit), the dealer's D4 while it waits for the first
action to ride on it, who still owes redeal keys, and the opponent's
revealed seed once the audit reaches the hand.  The session keeps one
:class:`HandState` per hand dealt; a pipelined deal is two of them alive at
once, not more session fields.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from truc_p2p.deck import DeckSide, Role

__all__ = ["HandState"]


@dataclass(eq=False)
class HandState:
    """One hand's deck side and bookkeeping (see the module docstring)."""

    index: int
    deck: DeckSide
    #: Raw deck envelopes of this hand by message type (``deck1`` .. ``deck4``).
    envelopes: dict[str, bytes] = field(default_factory=dict)
    #: The dealer's D4 deck and keys, sent with its first action of the hand.
    pending_d4: tuple[tuple[bytes, ...], list[bytes]] | None = None
    #: We owe the opponent its redeal keys (on our next action).
    owe_redeal_keys: bool = False
    #: The opponent owes us our redeal keys (on its next action).
    peer_owes_redeal_keys: bool = False
    #: The opponent's seed for this hand, once revealed for the audit.
    peer_seed: bytes | None = None

    @property
    def role(self) -> Role:
        return self.deck.role

    def __repr__(self) -> str:  # never show deck secrets
        return f"HandState(index={self.index}, role={self.role.value})"
