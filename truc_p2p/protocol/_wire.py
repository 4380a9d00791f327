"""Framing, envelopes, signatures and the hash chain.

Theory of operation
-------------------
A *frame* is a 4-byte big-endian length followed by that many bytes of
*envelope*.  An envelope is the msgpack encoding of a fixed-shape *body*
followed by a 64-byte Ed25519 signature over exactly the body bytes::

    body = [version, game_id, seq, prev, sender, type, payload]

Receivers split the raw bytes, verify the signature on the raw body and only
then trust the decoded fields; nothing is re-encoded before verification.
``prev`` is the SHA-256 of the previous envelope (body and signature) in
transcript order, over both players' messages, so the transcript is one hash
chain.  Decoding is strict: no ext types, bounded lengths, exact field types,
no duplicate map keys.  Every failure raises a :class:`RemoteProtocolError`
subclass; nothing else escapes from peer input.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import msgpack

from truc_p2p import crypto
from truc_p2p.crypto import SigningKey, VerifyKey
from truc_p2p.protocol._errors import (
    BadSignatureError,
    MalformedMessageError,
    OversizeMessageError,
    VersionMismatchError,
)

__all__ = [
    "FRAME_HEADER",
    "GENESIS",
    "MAX_ENVELOPE",
    "PROTOCOL_VERSION",
    "Envelope",
    "FrameBuffer",
    "envelope_hash",
    "fingerprint",
    "frame",
    "public_key_bytes",
    "sign_envelope",
]

PROTOCOL_VERSION = 1
#: Largest envelope (body plus signature) a peer may send, in bytes.
MAX_ENVELOPE = 16 * 1024
FRAME_HEADER = 4
SIGNATURE_SIZE = 64
HASH_SIZE = 32
#: ``prev`` of the very first envelope of a game.
GENESIS = bytes(HASH_SIZE)
_MAX_STR = 256
_MAX_ITEMS = 64
#: Deepest nesting of arrays and maps in a body (the catalogue needs 4 levels).
_MAX_DEPTH = 8


def frame(envelope: bytes) -> bytes:
    """Prefix one envelope with its 4-byte big-endian length."""
    return len(envelope).to_bytes(FRAME_HEADER, "big") + envelope


def envelope_hash(envelope: bytes) -> bytes:
    """SHA-256 of a whole envelope: the ``prev`` of the envelope after it."""
    return hashlib.sha256(envelope).digest()


def public_key_bytes(key: VerifyKey) -> bytes:
    """The 32 raw bytes of an Ed25519 public key."""
    return key.to_bytes()


def fingerprint(key: VerifyKey | bytes) -> str:
    """Hex SHA-256 of the raw public key: what an invite pins."""
    raw = key if isinstance(key, bytes) else public_key_bytes(key)
    return hashlib.sha256(b"truc-p2p/v1/fingerprint" + raw).hexdigest()


class FrameBuffer:
    """Accumulates received bytes and cuts them into envelopes.

    Raises :class:`OversizeMessageError` as soon as a header announces an
    empty or oversize frame, before the body arrives.
    """

    def __init__(self, max_envelope: int = MAX_ENVELOPE) -> None:
        self._buf = bytearray()
        self._max = max_envelope

    def feed(self, data: bytes) -> None:
        self._buf += data

    @property
    def pending(self) -> int:
        """Number of buffered bytes not yet returned as an envelope."""
        return len(self._buf)

    def next_envelope(self) -> bytes | None:
        """Return the next complete envelope, or ``None`` if more bytes are needed."""
        if len(self._buf) < FRAME_HEADER:
            return None
        size = int.from_bytes(self._buf[:FRAME_HEADER], "big")
        if size <= SIGNATURE_SIZE or size > self._max:
            raise OversizeMessageError(
                f"frame of {size} bytes (allowed {SIGNATURE_SIZE + 1}..{self._max})"
            )
        if len(self._buf) < FRAME_HEADER + size:
            return None
        envelope = bytes(self._buf[FRAME_HEADER : FRAME_HEADER + size])
        del self._buf[: FRAME_HEADER + size]
        return envelope


@dataclass(frozen=True, kw_only=True)
class Envelope:
    """A decoded, signature-checked envelope.  ``raw`` is the exact bytes received."""

    version: int
    game_id: bytes
    seq: int
    prev: bytes
    sender: int
    type: str
    payload: dict[str, Any]
    raw: bytes

    @property
    def hash(self) -> bytes:
        return envelope_hash(self.raw)


def _reject_ext(code: int, data: bytes) -> Any:
    raise ValueError(f"msgpack ext type {code} is not allowed")


def _no_duplicates(pairs: list[tuple[Any, Any]]) -> dict[Any, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        raise ValueError("duplicate map key")
    return result


def _too_deep(obj: Any) -> bool:
    """Whether arrays and maps nest deeper than :data:`_MAX_DEPTH` (checked iteratively)."""
    stack = [(obj, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, list | dict):
            if depth > _MAX_DEPTH:
                return True
            items = value.values() if isinstance(value, dict) else value
            stack.extend((item, depth + 1) for item in items)
    return False


def unpack_strict(data: bytes) -> Any:
    """Decode exactly one msgpack object with the protocol's strict limits."""
    try:
        obj = msgpack.unpackb(
            data,
            raw=False,
            strict_map_key=True,
            use_list=True,
            ext_hook=_reject_ext,
            object_pairs_hook=_no_duplicates,
            max_str_len=_MAX_STR * 4,
            max_bin_len=MAX_ENVELOPE,
            max_array_len=_MAX_ITEMS,
            max_map_len=_MAX_ITEMS,
            max_ext_len=0,
        )
    except Exception as exc:  # msgpack raises many unrelated types on bad input
        raise MalformedMessageError(f"not a valid msgpack body: {exc}") from None
    # Deep values would reach repr() and == of peer data (error messages, the
    # ruleset and options checks) and raise RecursionError there.
    if _too_deep(obj):
        raise MalformedMessageError(f"msgpack body nests deeper than {_MAX_DEPTH} levels")
    return obj


def pack(obj: Any) -> bytes:
    """Encode with the protocol's canonical msgpack settings."""
    data: bytes = msgpack.packb(obj, use_bin_type=True)
    return data


def decode_envelope(raw: bytes, *, message_no: int | None = None) -> Envelope:
    """Split and decode an envelope **without** checking its signature.

    Checks the shape and exact field types of the body; payload fields are
    checked later against the message catalogue.
    """
    evidence = (raw,)
    if len(raw) <= SIGNATURE_SIZE or len(raw) > MAX_ENVELOPE:
        raise OversizeMessageError(
            f"envelope of {len(raw)} bytes", evidence=evidence, message_no=message_no
        )
    body = raw[:-SIGNATURE_SIZE]
    try:
        obj = unpack_strict(body)
    except MalformedMessageError as exc:
        raise MalformedMessageError(
            str(exc.args[0]), evidence=evidence, message_no=message_no
        ) from None
    if not isinstance(obj, list) or len(obj) != 7:
        raise MalformedMessageError(
            "envelope body is not a 7-element array", evidence=evidence, message_no=message_no
        )
    version, game_id, seq, prev, sender, mtype, payload = obj
    if type(version) is not int:
        raise MalformedMessageError("version is not an integer", evidence=evidence)
    if version != PROTOCOL_VERSION:
        raise VersionMismatchError(
            f"peer speaks protocol version {version}, this program speaks {PROTOCOL_VERSION}",
            evidence=evidence,
            message_no=message_no,
        )
    problems = []
    if not isinstance(game_id, bytes) or len(game_id) not in (0, HASH_SIZE):
        problems.append("game_id")
    if type(seq) is not int or seq < 0:
        problems.append("seq")
    if not isinstance(prev, bytes) or len(prev) != HASH_SIZE:
        problems.append("prev")
    if type(sender) is not int or sender not in (0, 1):
        problems.append("sender")
    if not isinstance(mtype, str) or not mtype:
        problems.append("type")
    if not isinstance(payload, dict):
        problems.append("payload")
    if problems:
        raise MalformedMessageError(
            f"bad envelope field(s): {', '.join(problems)}",
            evidence=evidence,
            message_no=message_no,
        )
    return Envelope(
        version=version,
        game_id=game_id,
        seq=seq,
        prev=prev,
        sender=sender,
        type=mtype,
        payload=payload,
        raw=raw,
    )


def verify_signature(envelope: Envelope, key: VerifyKey) -> None:
    """Raise :class:`BadSignatureError` unless ``key`` signed the raw body."""
    raw = envelope.raw
    try:
        key.verify(raw[-SIGNATURE_SIZE:], raw[:-SIGNATURE_SIZE])
    except crypto.BadSignatureError:
        raise BadSignatureError(
            f"signature of {envelope.type!r} message does not verify",
            evidence=(raw,),
            message_no=envelope.seq,
        ) from None


def sign_envelope(
    key: SigningKey,
    *,
    game_id: bytes,
    seq: int,
    prev: bytes,
    sender: int,
    type: str,
    payload: dict[str, Any],
) -> bytes:
    """Encode and sign one envelope; returns the raw envelope bytes (unframed)."""
    body = pack([PROTOCOL_VERSION, game_id, seq, prev, sender, type, payload])
    return body + key.sign(body)
