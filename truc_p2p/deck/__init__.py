"""The mental-poker deck: a dealerless shuffle of 32 cards on P-256.

Two peers encrypt, shuffle and re-key the deck in four messages (D1-D4) with a
commutative cipher on P-256 x-coordinates; each player opens its own cards with
the other's per-card keys, shows a played card with its own key, and after the
game both reveal the seeds they committed to so the whole hand can be
recomputed byte for byte (:func:`audit_hand`).  The layer works on card indices
``0..31`` and knows nothing of the rules; it does no I/O and takes its
randomness from the caller.  See ``protocol_spec/deck.md``.
"""

from __future__ import annotations

from truc_p2p.deck._audit import AuditReport, audit_hand
from truc_p2p.deck._encoding import card_encodings
from truc_p2p.deck._errors import (
    AuditMismatchError,
    CardAlreadySeenError,
    CheatError,
    CommitmentMismatchError,
    DeckError,
    DeckUsageError,
    DuplicateEntryError,
    InvalidKeyError,
    InvalidPointError,
    MalformedDeckError,
    MalformedMessageError,
    NotACardError,
    PositionAlreadyShownError,
    UnchangedEntryError,
    WrongPositionError,
)
from truc_p2p.deck._group import canonical_key
from truc_p2p.deck._record import HandRecord
from truc_p2p.deck._schedule import HAND_SIZE, N_CARDS, Role, positions
from truc_p2p.deck._secrets import commitment, new_seed
from truc_p2p.deck._steps import DeckSide, OpCounts

__all__ = [
    "HAND_SIZE",
    "N_CARDS",
    "AuditMismatchError",
    "AuditReport",
    "CardAlreadySeenError",
    "CheatError",
    "CommitmentMismatchError",
    "DeckError",
    "DeckSide",
    "DeckUsageError",
    "DuplicateEntryError",
    "HandRecord",
    "InvalidKeyError",
    "InvalidPointError",
    "MalformedDeckError",
    "MalformedMessageError",
    "NotACardError",
    "OpCounts",
    "PositionAlreadyShownError",
    "Role",
    "UnchangedEntryError",
    "WrongPositionError",
    "audit_hand",
    "canonical_key",
    "card_encodings",
    "commitment",
    "new_seed",
    "positions",
]
