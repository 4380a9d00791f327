"""The mental-poker deck: a dealerless shuffle of 32 cards.

Deck v2 (:class:`DeckSideV2`, :class:`HandVerifierV2`, :func:`verify_hand_v2`),
the default, deals in three messages on secp256k1 with two-layer ElGamal, a
verifiable shuffle and Chaum-Pedersen decryption shares: every message carries
proofs the receiver checks at once, and no seed is ever revealed.  See
``protocol_spec/deck_v2.md``.

Deck v1 (:class:`DeckSide`, :func:`audit_hand`), kept to play and verify older
games: two peers encrypt, shuffle and re-key the deck in four messages (D1-D4)
with a commutative cipher on P-256 x-coordinates; each player opens its own
cards with the other's per-card keys, shows a played card with its own key, and
after the game both reveal the seeds they committed to so the whole hand can be
recomputed byte for byte.  See ``protocol_spec/deck.md``.

Both work on card indices ``0..31``; of the rules they know only which deck
positions the deal gives each seat (:func:`positions`, the rules'
``deal_positions``).  They do no I/O and take their randomness from the caller.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from truc_p2p.deck._errors import (
    AuditMismatchError,
    CardAlreadySeenError,
    CheatError,
    CommitmentMismatchError,
    DeckError,
    DeckUsageError,
    DuplicateEntryError,
    InvalidKeyError,
    InvalidKeyProofError,
    InvalidPointError,
    InvalidProofError,
    InvalidShareError,
    InvalidShuffleProofError,
    MalformedDeckError,
    MalformedMessageError,
    MalformedProofError,
    NotACardError,
    PositionAlreadyShownError,
    UnchangedEntryError,
    WrongPositionError,
)
from truc_p2p.deck._schedule import HAND_SIZE, N_CARDS, Role, positions
from truc_p2p.deck.legacy_v1._group import canonical_key
from truc_p2p.deck.v2._record import DeckReportV2, HandRecordV2
from truc_p2p.deck.v2._verify import HandVerifierV2, verify_hand_v2

if TYPE_CHECKING:
    from truc_p2p.deck.legacy_v1._audit import AuditReport, audit_hand
    from truc_p2p.deck.legacy_v1._encoding import card_encodings
    from truc_p2p.deck.legacy_v1._record import HandRecord
    from truc_p2p.deck.legacy_v1._secrets import commitment, new_seed
    from truc_p2p.deck.legacy_v1._steps import DeckSide, OpCounts
    from truc_p2p.deck.v2._side import DeckSideV2

#: The two sides of a deal and deck v1 load on first use: verifying a transcript
#: needs only the public checks (the v2 hand verifier; deck v1's audit for a v1 game).
_LAZY = {
    "AuditReport": "truc_p2p.deck.legacy_v1._audit",
    "audit_hand": "truc_p2p.deck.legacy_v1._audit",
    "card_encodings": "truc_p2p.deck.legacy_v1._encoding",
    "HandRecord": "truc_p2p.deck.legacy_v1._record",
    "commitment": "truc_p2p.deck.legacy_v1._secrets",
    "new_seed": "truc_p2p.deck.legacy_v1._secrets",
    "DeckSide": "truc_p2p.deck.legacy_v1._steps",
    "OpCounts": "truc_p2p.deck.legacy_v1._steps",
    "DeckSideV2": "truc_p2p.deck.v2._side",
}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "HAND_SIZE",
    "N_CARDS",
    "AuditMismatchError",
    "AuditReport",
    "CardAlreadySeenError",
    "CheatError",
    "CommitmentMismatchError",
    "DeckError",
    "DeckReportV2",
    "DeckSide",
    "DeckSideV2",
    "DeckUsageError",
    "DuplicateEntryError",
    "HandRecord",
    "HandRecordV2",
    "HandVerifierV2",
    "InvalidKeyError",
    "InvalidKeyProofError",
    "InvalidPointError",
    "InvalidProofError",
    "InvalidShareError",
    "InvalidShuffleProofError",
    "MalformedDeckError",
    "MalformedMessageError",
    "MalformedProofError",
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
    "verify_hand_v2",
]
