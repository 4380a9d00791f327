"""Per-hand state of a deck v2 hand (protocol_spec/deck_v2.md, wire.md section 6).

One :class:`HandStateV2` per hand: this player's :class:`~truc_p2p.deck.DeckSideV2`,
the context the hand's proofs are bound to (the hash of the last envelope
before the hand's ``v2deck1``), the hand's deal envelopes, the non-dealer's
D3 shares while they wait for its first action, and who still owes redeal
shares.  There is no seed to reveal and nothing to audit afterwards.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from truc_p2p.deck import DeckSideV2, Role
from truc_p2p.protocol._wire import Envelope

__all__ = ["HandStateV2"]


@dataclass(eq=False)
class HandStateV2:
    """One v2 hand's deck side and bookkeeping (see the module docstring)."""

    index: int
    deck: DeckSideV2
    #: 32 bytes every proof of the hand is bound to (deck_v2.md section 3).
    context: bytes
    #: Raw deal envelopes of this hand by message type (``v2deck1`` .. ``v2deck3``).
    envelopes: dict[str, bytes] = field(default_factory=dict)
    #: The non-dealer's D3 shares, sent with its first action of the hand.
    pending_d3: list[bytes] | None = None
    #: Pipelined deal, dealer: the pre-dealt v2deck2 payload (no shares) until it is
    #: due, and its shares for the non-dealer's cards until the previous hand ends.
    pending_d2: dict[str, Any] | None = None
    pending_open: list[bytes] | None = None
    #: Pipelined deal: the peer's pre-deal message (``v2deck1`` or ``v2deck2``) whose
    #: deck work -- checking its proofs and computing our answer -- is put off until
    #: the player thinks or a message needs it (wire.md section 6b).
    deferred: Envelope | None = None
    #: We owe the opponent its redeal shares (on our next action).
    owe_redeal: bool = False
    #: The opponent owes us our redeal shares (on its next action).
    peer_owes_redeal: bool = False

    card_field: ClassVar[str] = "share"
    redeal_field: ClassVar[str] = "shares"

    @property
    def role(self) -> Role:
        return self.deck.role

    def my_cards(self, redeal: bool) -> dict[int, int]:
        return self.deck.my_cards(redeal=redeal)

    def redeal_material(self) -> list[bytes]:
        return self.deck.redeal_shares()

    def receive_redeal(self, values: Sequence[bytes]) -> None:
        self.deck.receive_redeal_shares(values)

    def show(self, position: int) -> bytes:
        return self.deck.show(position)

    def receive_show(self, position: int, value: bytes) -> int:
        return self.deck.receive_show(position, value)

    def __repr__(self) -> str:  # never show deck secrets
        return f"HandStateV2(index={self.index}, role={self.role.value})"
