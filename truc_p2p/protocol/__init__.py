"""The sans-IO truc-p2p protocol: signed envelopes, the game session, transcripts.

Drive a :class:`Session` like h11's ``Connection``::

    session = Session(identity=key, role=Player.P0, secret=secrets.token_bytes(32))
    send(session.data_to_send())            # the initiator's hello
    while True:
        event = session.next_event()
        send(session.data_to_send())        # automatic protocol messages
        if event is NEED_DATA:
            session.receive_data(receive())
        elif isinstance(event, YourTurn):
            send(session.send(choose(event.legal_actions)))
        elif event is CLOSED:
            break

No sockets, clock or global randomness inside; see ``protocol_spec/wire.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from truc_p2p.protocol._errors import (
    AuditFailedError,
    AuditRefusedError,
    BadSignatureError,
    ChainError,
    CheatDetectedError,
    EquivocationError,
    IllegalMoveError,
    LocalProtocolError,
    MalformedMessageError,
    OutOfTurnError,
    OversizeMessageError,
    PeerKeyMismatchError,
    ProtocolError,
    RemoteProtocolError,
    ResultMismatchError,
    ResumeChainError,
    ResumeLieError,
    ResumeRefusedError,
    ResumeSequenceError,
    RulesetMismatchError,
    SequenceError,
    UnexpectedMessageError,
    VersionMismatchError,
    WrongGameError,
)
from truc_p2p.protocol._messages import (
    ABORT_REASONS,
    CATALOGUE,
    CONTROL,
    DECK_VERSIONS,
    MAX_CLOCK_MS,
    MessageType,
)
from truc_p2p.protocol._options import SessionOptions
from truc_p2p.protocol._state import (
    INTERJECTIONS,
    INTERJECTIONS_WAIVED,
    STAGES,
    TRANSITIONS,
    Stage,
)
from truc_p2p.protocol._transcript import (
    TRANSCRIPT_MAGIC,
    TranscriptFormatError,
    TranscriptScan,
    encode_transcript,
    parse_transcript,
    scan_transcript,
)
from truc_p2p.protocol._values import AUDIT_MODES, Series, nonce_is_from, refusal, series_of
from truc_p2p.protocol._verify import VerifyReport, verify_transcript
from truc_p2p.protocol._verify_evidence import EvidenceFinding, judge_evidence
from truc_p2p.protocol._wire import (
    FRAME_HEADER,
    GENESIS,
    MAX_ENVELOPE,
    PROTOCOL_VERSION,
    FrameBuffer,
    decode_envelope,
    envelope_hash,
    fingerprint,
    frame,
    sign_envelope,
    verify_signature,
)

if TYPE_CHECKING:
    from truc_p2p.protocol._control import ResumeClock
    from truc_p2p.protocol._events import (
        CLOSED,
        NEED_DATA,
        AnyEvent,
        AuditPassed,
        CardsDealt,
        GameFinished,
        GameResult,
        GameStarted,
        PeerAborted,
        PeerResigned,
        Refused,
        Resignation,
        Resumed,
        SessionEvent,
        YourTurn,
    )
    from truc_p2p.protocol._restore import own_options
    from truc_p2p.protocol._session import Session

#: The session's names load on first use: the verifier (``truc-p2p verify``) needs
#: neither the session nor its events, and starts faster without them.
_LAZY = {
    "ResumeClock": "truc_p2p.protocol._control",
    "CLOSED": "truc_p2p.protocol._events",
    "NEED_DATA": "truc_p2p.protocol._events",
    "AnyEvent": "truc_p2p.protocol._events",
    "AuditPassed": "truc_p2p.protocol._events",
    "CardsDealt": "truc_p2p.protocol._events",
    "GameFinished": "truc_p2p.protocol._events",
    "GameResult": "truc_p2p.protocol._events",
    "GameStarted": "truc_p2p.protocol._events",
    "PeerAborted": "truc_p2p.protocol._events",
    "PeerResigned": "truc_p2p.protocol._events",
    "Refused": "truc_p2p.protocol._events",
    "Resignation": "truc_p2p.protocol._events",
    "Resumed": "truc_p2p.protocol._events",
    "SessionEvent": "truc_p2p.protocol._events",
    "YourTurn": "truc_p2p.protocol._events",
    "Session": "truc_p2p.protocol._session",
    "own_options": "truc_p2p.protocol._restore",
}


def __getattr__(name: str) -> object:
    """The names of :data:`_LAZY` load on first use: reading and verifying transcripts
    (``truc-p2p verify``) needs neither the session, nor its events, nor the deck
    sides it drives, and starts faster without them."""
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "ABORT_REASONS",
    "AUDIT_MODES",
    "CATALOGUE",
    "CLOSED",
    "CONTROL",
    "DECK_VERSIONS",
    "FRAME_HEADER",
    "GENESIS",
    "INTERJECTIONS",
    "INTERJECTIONS_WAIVED",
    "MAX_CLOCK_MS",
    "MAX_ENVELOPE",
    "NEED_DATA",
    "PROTOCOL_VERSION",
    "STAGES",
    "TRANSCRIPT_MAGIC",
    "TRANSITIONS",
    "AnyEvent",
    "AuditFailedError",
    "AuditPassed",
    "AuditRefusedError",
    "BadSignatureError",
    "CardsDealt",
    "ChainError",
    "CheatDetectedError",
    "EquivocationError",
    "EvidenceFinding",
    "FrameBuffer",
    "GameFinished",
    "GameResult",
    "GameStarted",
    "IllegalMoveError",
    "LocalProtocolError",
    "MalformedMessageError",
    "MessageType",
    "OutOfTurnError",
    "OversizeMessageError",
    "PeerAborted",
    "PeerKeyMismatchError",
    "PeerResigned",
    "ProtocolError",
    "Refused",
    "RemoteProtocolError",
    "Resignation",
    "ResultMismatchError",
    "ResumeChainError",
    "ResumeClock",
    "ResumeLieError",
    "ResumeRefusedError",
    "ResumeSequenceError",
    "Resumed",
    "RulesetMismatchError",
    "SequenceError",
    "Series",
    "Session",
    "SessionEvent",
    "SessionOptions",
    "Stage",
    "TranscriptFormatError",
    "TranscriptScan",
    "UnexpectedMessageError",
    "VerifyReport",
    "VersionMismatchError",
    "WrongGameError",
    "YourTurn",
    "decode_envelope",
    "encode_transcript",
    "envelope_hash",
    "fingerprint",
    "frame",
    "judge_evidence",
    "nonce_is_from",
    "own_options",
    "parse_transcript",
    "refusal",
    "scan_transcript",
    "series_of",
    "sign_envelope",
    "verify_signature",
    "verify_transcript",
]
