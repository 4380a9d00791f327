"""The deck's two error families: the peer cheated, or the local caller misused the API.

Every :class:`CheatError` says which message (``step``) and which deck position
it is about, and which role is to blame (``culprit``).  Steps are ``"D1"`` to
``"D4"`` (a deck and the keys sent with it), ``"keys"`` (redeal keys),
``"show"`` (a played card's key) and ``"audit"`` (a revealed seed).
"""

from __future__ import annotations

from truc_p2p.deck._schedule import Role

__all__ = [
    "AuditMismatchError",
    "CardAlreadySeenError",
    "CheatError",
    "CommitmentMismatchError",
    "DeckError",
    "DeckUsageError",
    "DuplicateEntryError",
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
    "PositionAlreadyShownError",
    "UnchangedEntryError",
    "WrongPositionError",
]


class DeckError(ValueError):
    """Base class of every error raised by the deck layer."""


class DeckUsageError(DeckError):
    """The local caller misused the API: a step out of order, a bad local argument."""


class CheatError(DeckError):
    """The peer cheated (or sent garbage, which is the same thing).

    ``step`` names the message, ``position`` the deck position or deck index
    concerned (``None`` when the whole message is at fault) and ``culprit`` the
    role that sent it.
    """

    def __init__(
        self,
        message: str,
        *,
        step: str,
        position: int | None = None,
        culprit: Role | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.step = step
        self.position = position
        self.culprit = culprit

    def __str__(self) -> str:
        where = (
            f"{self.step}" if self.position is None else f"{self.step}, position {self.position}"
        )
        who = "" if self.culprit is None else f", culprit {self.culprit.value}"
        return f"{self.message} [{where}{who}]"


class MalformedMessageError(CheatError):
    """A message has the wrong shape: wrong type, wrong length, missing field."""


class MalformedDeckError(MalformedMessageError):
    """A deck is not exactly 32 entries of 32 bytes."""


class DuplicateEntryError(CheatError):
    """Two entries of a deck are equal (a copied ciphertext)."""


class UnchangedEntryError(DuplicateEntryError):
    """A deck entry equals an entry of the previous deck: it was not re-encrypted."""


class InvalidPointError(CheatError):
    """A deck entry is not the x-coordinate of a point of the curve (deck v1: P-256)."""


class InvalidKeyError(CheatError):
    """A key is not 32 big-endian bytes holding a scalar in [1, n-1]."""


class WrongPositionError(CheatError):
    """Keys or a shown card at a position the schedule does not give that player."""


class PositionAlreadyShownError(CheatError):
    """The peer showed the same position twice."""


class NotACardError(CheatError):
    """An opened position does not decrypt to one of the 32 card encodings."""


class CardAlreadySeenError(CheatError):
    """An opened position decrypts to a card that was already seen in this hand."""


class CommitmentMismatchError(CheatError):
    """A revealed seed does not match the commitment sent during the deal."""


class AuditMismatchError(CheatError):
    """A message of the hand differs from what the sender's revealed seed produces."""


# -- deck v2 -----------------------------------------------------------------------------


class MalformedProofError(MalformedMessageError):
    """Deck v2: a proof of the wrong length, with an invalid point or a scalar >= n."""


class InvalidProofError(CheatError):
    """Deck v2: a well-formed zero-knowledge proof does not verify."""


class InvalidKeyProofError(InvalidProofError):
    """Deck v2: the proof of knowledge of a key share fails."""


class InvalidShuffleProofError(InvalidProofError):
    """Deck v2: a deck is not a permutation of the previous deck re-encrypted under the
    sender's key (an entry dropped, duplicated, substituted, scaled or badly re-randomised)."""


class InvalidShareError(InvalidProofError):
    """Deck v2: a decryption share is not the sender's key applied to the position it claims."""
