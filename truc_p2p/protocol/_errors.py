"""The two error families of the session, after h11.

* :class:`LocalProtocolError` -- the embedding program misused the session
  (sent out of turn, illegal action, called a method in the wrong state).
  Nothing was sent; the session is unchanged unless stated otherwise.
* :class:`RemoteProtocolError` -- the peer misbehaved.  It carries the
  offending signed envelope(s) as ``evidence`` and the session is left in a
  terminal error state -- except :class:`ResumeRefusedError`, which condemns
  one reconnection attempt, not the game.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, ClassVar

from truc_p2p.deck import CheatError, DeckError

if TYPE_CHECKING:
    from truc_p2p.protocol._wire import Envelope

__all__ = [
    "AuditFailedError",
    "AuditRefusedError",
    "BadSignatureError",
    "ChainError",
    "CheatDetectedError",
    "EquivocationError",
    "IllegalMoveError",
    "LocalProtocolError",
    "MalformedMessageError",
    "OutOfTurnError",
    "OversizeMessageError",
    "PeerKeyMismatchError",
    "ProtocolError",
    "RemoteProtocolError",
    "ResultMismatchError",
    "ResumeChainError",
    "ResumeLieError",
    "ResumeRefusedError",
    "ResumeSequenceError",
    "RulesetMismatchError",
    "SequenceError",
    "UnexpectedMessageError",
    "VersionMismatchError",
    "WrongGameError",
    "blame",
]


class ProtocolError(Exception):
    """Base class of every error raised by a session."""


class LocalProtocolError(ProtocolError):
    """The local program used the session wrongly; nothing was sent."""


class RemoteProtocolError(ProtocolError):
    """The peer broke the protocol.

    ``code`` is a short stable identifier (also used in transcripts and JSON
    output), ``message_no`` the sequence number of the offending message when
    known, and ``evidence`` the raw signed envelopes that prove the fault.
    """

    code = "remote-error"
    #: The reason of the ``abort`` a player signs for this error (wire.md section 12):
    #: ``cheat`` for a fault that proves the peer cheated, ``incompatible`` for terms
    #: the two players cannot agree on, ``error`` for any other broken rule.
    abort_reason: ClassVar[str] = "error"

    def __init__(
        self,
        message: str,
        *,
        evidence: tuple[bytes, ...] = (),
        message_no: int | None = None,
    ) -> None:
        super().__init__(message)
        self.evidence = evidence
        self.message_no = message_no

    def __str__(self) -> str:
        where = f" (message {self.message_no})" if self.message_no is not None else ""
        return f"{self.args[0]}{where}"


class MalformedMessageError(RemoteProtocolError):
    """Bytes that do not decode as a well-formed envelope or payload."""

    code = "malformed"


class OversizeMessageError(MalformedMessageError):
    """A frame announces more bytes than the protocol allows."""

    code = "oversize"


class VersionMismatchError(RemoteProtocolError):
    """The peer speaks another protocol version."""

    code = "version-mismatch"
    abort_reason = "incompatible"


class RulesetMismatchError(RemoteProtocolError):
    """The peer proposed another ruleset or session option."""

    code = "ruleset-mismatch"
    abort_reason = "incompatible"


class BadSignatureError(RemoteProtocolError):
    """The Ed25519 signature does not verify under the sender's key."""

    code = "bad-signature"
    abort_reason = "cheat"


class WrongGameError(RemoteProtocolError):
    """The envelope names another game id."""

    code = "wrong-game"


class SequenceError(RemoteProtocolError):
    """The sequence number is not the next one."""

    code = "bad-sequence"


class ChainError(RemoteProtocolError):
    """The envelope does not chain to the previous envelope's hash."""

    code = "broken-chain"


class ResumeLieError(RemoteProtocolError):
    """A fresh, signed ``resume`` whose claim contradicts the chain (wire.md 13.8):
    a signed lie, answered with ``abort`` ``cheat``; its evidence is the resume."""

    abort_reason = "cheat"


class ResumeChainError(ResumeLieError, ChainError):
    """The peer's resume names another message *have* - 1 than ours."""

    code = "broken-chain"


class ResumeSequenceError(ResumeLieError, SequenceError):
    """The peer's fresh resume says it lacks a message it signed itself."""

    code = "bad-sequence"


class OutOfTurnError(RemoteProtocolError):
    """The peer sent while it was not its turn to send."""

    code = "out-of-turn"


class UnexpectedMessageError(RemoteProtocolError):
    """A message type that is not allowed in the current protocol state."""

    code = "unexpected-message"


class IllegalMoveError(RemoteProtocolError):
    """The peer's action is illegal under the agreed rules."""

    code = "illegal-move"
    abort_reason = "cheat"


class CheatDetectedError(RemoteProtocolError):
    """The deck layer caught the peer: bad key, forged card, bad deck, ...

    ``step`` and ``position`` come from the deck layer's error.
    """

    code = "cheat"
    abort_reason = "cheat"

    def __init__(
        self,
        message: str,
        *,
        step: str | None = None,
        position: int | None = None,
        evidence: tuple[bytes, ...] = (),
        message_no: int | None = None,
    ) -> None:
        super().__init__(message, evidence=evidence, message_no=message_no)
        self.step = step
        self.position = position


class AuditFailedError(CheatDetectedError):
    """A revealed seed does not match its commitment or the deck it produced."""

    code = "audit-failed"


class AuditRefusedError(AuditFailedError):
    """The peer did not reveal its seeds when the audit was due (abort or silence)."""

    code = "audit-refused"


class PeerKeyMismatchError(RemoteProtocolError):
    """The peer's identity key is not the one the caller expected (pinned fingerprint)."""

    code = "wrong-peer-key"


class ResultMismatchError(RemoteProtocolError):
    """The peer's result message disagrees with the game as played."""

    code = "result-mismatch"
    abort_reason = "cheat"


class EquivocationError(CheatDetectedError):
    """The peer signed two different envelopes for one position of the chain.

    ``evidence`` holds both envelopes: the one held first, then the other.
    """

    code = "equivocation"


class ResumeRefusedError(RemoteProtocolError):
    """A connection's first message is not a valid ``resume`` for this game.

    It condemns the *connection*, not the game: a stranger, a replay or
    garbage on a new connection never ends a session.  The session stays
    waiting for a valid resume (call :meth:`Session.reconnect` again for
    the next connection).
    """

    code = "resume-refused"


@contextmanager
def blame(env: Envelope) -> Iterator[None]:
    """Turn a deck-layer error raised while handling ``env`` into a remote error with
    ``env`` as its evidence."""
    try:
        yield
    except CheatError as exc:
        raise CheatDetectedError(
            f"deck check failed at {exc.step}: {exc}",
            step=exc.step,
            position=exc.position,
            evidence=(env.raw,),
            message_no=env.seq,
        ) from exc
    except DeckError as exc:
        raise CheatDetectedError(
            f"deck data rejected: {exc}", evidence=(env.raw,), message_no=env.seq
        ) from exc
