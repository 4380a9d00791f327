"""The transport's check of every incoming frame: link faults versus signed messages.

Theory of operation
-------------------
Anyone on the path can damage bytes, so a frame that does not carry a valid
signature proves nothing about the peer (wire.md section 13.4).  The
:class:`FrameGate` cuts the received bytes into frames before the session
sees them and sorts each one:

* a **heartbeat** (a frame of length 0, section 13.3) is a sign of life and
  is dropped here: it never reaches the session, the transcript or the chain;
* a frame whose announced length is out of range, whose envelope does not
  decode, or whose signature does not verify under the opponent's key is a
  **link fault** (:class:`LinkFault`): the connection is dropped and the game
  resumes on a new one, where the peer resends what we lack;
* every other frame is signed by the opponent and goes to the session whole,
  which judges it: signed misbehaviour stays a protocol error with evidence.

Before the opponent's key is known (its hello) only a hello or a refusal
signed by the key it carries passes (nothing else can be due, and nothing
unsigned is evidence); a frame announcing another protocol version goes to
the session, which reports the incompatibility.
"""

from __future__ import annotations

from collections.abc import Callable

from truc_p2p import crypto
from truc_p2p.crypto import BadSignatureError, VerifyKey
from truc_p2p.protocol import (
    MAX_ENVELOPE,
    MessageType,
    RemoteProtocolError,
    VersionMismatchError,
    decode_envelope,
)

__all__ = ["HEARTBEAT", "FrameGate", "LinkFault"]

#: A heartbeat: a frame of length zero (wire.md section 13.3).
HEARTBEAT = bytes(4)
_HEADER = 4
_SIGNATURE = 64


class LinkFault(Exception):
    """A frame arrived damaged (framing or signature): the connection is not usable."""


class FrameGate:
    """Cut bytes into frames; drop heartbeats; refuse damaged frames (see module doc).

    ``peer_key`` returns the opponent's key once known (``Session.peer_key``).
    """

    def __init__(self, peer_key: Callable[[], VerifyKey | None]) -> None:
        self._peer_key = peer_key
        self._buf = bytearray()
        #: Whole frames (heartbeats included) that passed so far.
        self.frames = 0
        #: Heartbeats among them (the peer speaks heartbeats once this is non-zero).
        self.heartbeats = 0

    def feed(self, data: bytes | bytearray) -> bytes:
        """The whole, checked frames that ``data`` completes (heartbeats removed);
        raises :class:`LinkFault` on a damaged one.  A partial frame is kept."""
        self._buf += data
        out = bytearray()
        while len(self._buf) >= _HEADER:
            size = int.from_bytes(self._buf[:_HEADER], "big")
            if size == 0:
                del self._buf[:_HEADER]
                self.frames += 1
                self.heartbeats += 1
                continue
            if not _SIGNATURE < size <= MAX_ENVELOPE:
                raise LinkFault(f"a frame announces {size} bytes")
            if len(self._buf) < _HEADER + size:
                break
            raw = bytes(self._buf[_HEADER : _HEADER + size])
            problem = self._check(raw)
            if problem is not None:
                raise LinkFault(problem)
            out += self._buf[: _HEADER + size]
            del self._buf[: _HEADER + size]
            self.frames += 1
        return bytes(out)

    def _check(self, raw: bytes) -> str | None:
        key = self._peer_key()
        if key is not None:
            try:
                key.verify(raw[-_SIGNATURE:], raw[:-_SIGNATURE])
            except crypto.BadSignatureError:
                return "a frame's signature does not verify (damaged in transit)"
            return None
        try:
            env = decode_envelope(raw)
        except VersionMismatchError:
            return None  # the session says the peer is incompatible
        except RemoteProtocolError as exc:
            return f"a frame does not decode: {exc.args[0]}"
        if env.type not in (MessageType.HELLO, MessageType.REFUSE):
            return f"a {env.type!r} frame before the peer's hello"
        key_bytes = env.payload.get("key")
        if not isinstance(key_bytes, bytes) or len(key_bytes) != 32:
            return "a hello without a key"
        try:
            VerifyKey.from_bytes(key_bytes).verify(raw[-_SIGNATURE:], raw[:-_SIGNATURE])
        except (BadSignatureError, ValueError):
            return "a hello's signature does not verify (damaged in transit)"
        return None
