"""Per-hand state of a session: one object per hand, owned by the session.

Everything that belongs to one hand and not to the game as a whole lives
here: this player's side of the deck, the signed deck envelopes of the hand
(evidence for the audit), the dealer's D4 while it waits for the first
action to ride on it, who still owes redeal keys, and the opponent's
revealed seed once the audit reaches the hand (the hand audits itself).  The session keeps one
:class:`HandState` per hand dealt; a pipelined deal is two of them alive at
once, not more session fields.  Deck v2 hands use
:class:`~truc_p2p.protocol.v2._hand.HandStateV2`; both offer the small
interface of :class:`PlayedHand` that the session's action handling runs on
(own cards, showing a card, the redeal material), so actions are
version-agnostic and only the deal differs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar, Protocol

from truc_p2p.deck import CheatError, DeckSide, HandRecord, Role, audit_hand, positions
from truc_p2p.protocol._errors import AuditFailedError
from truc_p2p.protocol._wire import Envelope

__all__ = ["HandState", "PlayedHand"]


class PlayedHand(Protocol):
    """What the session's action handling needs from a hand, whatever the deck."""

    index: int
    envelopes: dict[str, bytes]
    owe_redeal: bool
    peer_owes_redeal: bool
    #: payload field of a played card's opening material (``key`` / ``share``)
    card_field: ClassVar[str]
    #: payload field of the redeal material (``keys`` / ``shares``)
    redeal_field: ClassVar[str]

    @property
    def role(self) -> Role: ...

    def my_cards(self, redeal: bool) -> dict[int, int]:
        """Position -> card index of the own hand."""
        ...

    def redeal_material(self) -> list[bytes]:
        """What opens the opponent's redeal cards, in its position order."""
        ...

    def receive_redeal(self, values: Sequence[bytes]) -> None:
        """Check the opponent's redeal material and open the own redeal cards."""
        ...

    def show(self, position: int) -> bytes:
        """The opening material that shows the own card at ``position``."""
        ...

    def receive_show(self, position: int, value: bytes) -> int:
        """Check a card the opponent shows; its index."""
        ...


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
    owe_redeal: bool = False
    #: The opponent owes us our redeal keys (on its next action).
    peer_owes_redeal: bool = False
    #: The opponent's seed for this hand, once revealed for the audit.
    peer_seed: bytes | None = None

    card_field: ClassVar[str] = "key"
    redeal_field: ClassVar[str] = "keys"

    @property
    def role(self) -> Role:
        return self.deck.role

    def my_cards(self, redeal: bool) -> dict[int, int]:
        return self.deck.my_cards(redeal=redeal)

    def redeal_material(self) -> list[bytes]:
        keys = self.deck.redeal_keys()
        return [keys[i] for i in positions(self.role.other, True)]

    def receive_redeal(self, values: Sequence[bytes]) -> None:
        self.deck.receive_redeal_keys(dict(zip(positions(self.role, True), values, strict=True)))

    def show(self, position: int) -> bytes:
        return self.deck.show(position)

    def receive_show(self, position: int, value: bytes) -> int:
        return self.deck.receive_show(position, value)

    def audit(self, reveal: Envelope) -> None:
        """Recompute the opponent's deck steps from both seeds (deck v1's audit).

        Raises :class:`AuditFailedError` naming the step that does not match,
        with ``reveal`` and the step's envelope as evidence.
        """
        deck = self.deck
        record: HandRecord = deck.record()
        mine, theirs = deck.seed, self.peer_seed
        assert theirs is not None
        dealer_seed, nondealer_seed = (mine, theirs) if deck.role is Role.DEALER else (theirs, mine)
        try:
            audit_hand(
                record,
                dealer_seed=dealer_seed,
                nondealer_seed=nondealer_seed,
                trusted=deck.role,  # our own messages need no recomputation
            )
        except CheatError as exc:
            step = str(exc.step)
            step_env = self.envelopes.get(f"deck{step[1:]}" if step[:1] == "D" else step)
            evidence = (reveal.raw,) + ((step_env,) if step_env else ())
            raise AuditFailedError(
                f"audit of hand {self.index} failed at {exc.step}: {exc}",
                step=exc.step,
                position=exc.position,
                evidence=evidence,
                message_no=reveal.seq,
            ) from exc

    def __repr__(self) -> str:  # never show deck secrets
        return f"HandState(index={self.index}, role={self.role.value})"
