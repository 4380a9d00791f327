"""The relay protocol from the page's side, sans-IO (``protocol_spec/connect.md`` §2, §3).

A page cannot listen nor punch, so it always meets its peer spliced through the
relay: a joiner sends ``JOIN code``, waits for ``MEET``, sends ``SPLICE``, and once
``SPLICED`` probes with path ``r`` and commits; a host registers (``REGISTER``
with its claim, §2.1), and for a ``MEET`` on that control connection opens an
attach connection (``ATTACH session``), waits for ``SPLICED``, answers the
joiner's probe and waits for its commit.  The bytes come from
:mod:`truc_p2p.net._relay_wire` (the same codec as the trio side); after the
commit every byte on the connection is the game's.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import TYPE_CHECKING

from truc_p2p.net._relay_wire import (
    MAGIC,
    MAX_BODY,
    PROBE_MAGIC,
    SESSION_LEN,
    Meet,
    Msg,
    RelayProtocolError,
    encode,
    encode_addrs,
)

if TYPE_CHECKING:
    from truc_p2p.net._listing import LobbyAnswer

__all__ = ["Attach", "Control", "Join", "LobbyQuery", "RelayRefused", "Step"]

#: The path letter of a spliced connection (connect.md §3).
RELAYED = b"r"
_PROBE_LEN = len(PROBE_MAGIC) + SESSION_LEN + 1


class RelayRefused(Exception):
    """The relay answered ``ERROR`` (its reason is the message)."""


def _take(buf: bytearray) -> tuple[int, bytes] | None:
    """One whole control message from the front of ``buf``, or ``None`` for more bytes."""
    if len(buf) < 3:
        return None
    kind, size = struct.unpack("!BH", buf[:3])
    if size > MAX_BODY:
        raise RelayProtocolError(f"control message of {size} bytes")
    if len(buf) < 3 + size:
        return None
    body = bytes(buf[3 : 3 + size])
    del buf[: 3 + size]
    if kind == Msg.ERROR:
        raise RelayRefused(body.decode("utf-8", "replace")[:200] or "refused")
    return kind, body


@dataclass
class Step:
    """What a connection's handshake gives after some bytes: bytes to send, and once
    the game may start, ``game`` (the bytes after the handshake, maybe none)."""

    send: bytes = b""
    game: bytes | None = None


class Join:
    """The joiner's one connection: JOIN, MEET, SPLICE, SPLICED, probe, commit."""

    def __init__(self, code: str) -> None:
        raw = code.encode("ascii")
        self.first = MAGIC + encode(Msg.JOIN, bytes([len(raw)]) + raw + encode_addrs([]))
        self._buf = bytearray()
        self._state = "meet"
        self._session = b""

    def feed(self, data: bytes) -> Step:
        self._buf += data
        step = Step()
        while True:
            if self._state == "answer":
                if len(self._buf) < _PROBE_LEN:
                    return step
                answer = bytes(self._buf[:_PROBE_LEN])
                del self._buf[:_PROBE_LEN]
                if answer != PROBE_MAGIC + self._session + b"A":
                    raise RelayProtocolError("the host did not answer the probe")
                step.send += b"C"
                self._state = "game"
                step.game = bytes(self._buf)
                self._buf.clear()
                return step
            if self._state == "game":
                step.game = bytes(self._buf)
                self._buf.clear()
                return step
            got = _take(self._buf)
            if got is None:
                return step
            kind, body = got
            if self._state == "meet" and kind == Msg.MEET:
                self._session = Meet.decode(body).session
                step.send += encode(Msg.SPLICE)
                self._state = "spliced"
            elif self._state == "spliced" and kind == Msg.SPLICED:
                step.send += PROBE_MAGIC + self._session + RELAYED
                self._state = "answer"
            else:
                raise RelayProtocolError(f"unexpected relay message 0x{kind:02x}")


class Control:
    """The host's control connection: REGISTER (with its claim), then MEETs; PING."""

    def __init__(self, claim: bytes) -> None:
        self.first = MAGIC + encode(Msg.REGISTER, encode_addrs([]) + claim)
        self._buf = bytearray()
        #: The code the relay gave, once registered.
        self.code: str | None = None

    @staticmethod
    def ping() -> bytes:
        return encode(Msg.PING)

    def feed(self, data: bytes) -> list[bytes]:
        """The session ids of the meetings that ``data`` completes."""
        self._buf += data
        meets: list[bytes] = []
        while (got := _take(self._buf)) is not None:
            kind, body = got
            if kind == Msg.REGISTERED and self.code is None:
                if not body or len(body) < 1 + body[0]:
                    raise RelayProtocolError("short REGISTERED")
                self.code = body[1 : 1 + body[0]].decode("ascii")
            elif kind == Msg.MEET and self.code is not None:
                meets.append(Meet.decode(body).session)
            elif kind not in (Msg.PONG, Msg.LISTED):
                raise RelayProtocolError(f"unexpected relay message 0x{kind:02x}")
        return meets


class Attach:
    """The host's connection for one meeting: ATTACH, SPLICED, the joiner's probe
    (answered), its commit."""

    def __init__(self, session: bytes) -> None:
        self.session = session
        self.first = MAGIC + encode(Msg.ATTACH, session)
        self._buf = bytearray()
        self._state = "spliced"

    def feed(self, data: bytes) -> Step:
        self._buf += data
        step = Step()
        if self._state == "spliced":
            got = _take(self._buf)
            if got is None:
                return step
            if got[0] != Msg.SPLICED:
                raise RelayProtocolError(f"unexpected relay message 0x{got[0]:02x}")
            self._state = "probe"
        if self._state == "probe":
            if len(self._buf) < _PROBE_LEN:
                return step
            probe = bytes(self._buf[:_PROBE_LEN])
            del self._buf[:_PROBE_LEN]
            if not probe.startswith(PROBE_MAGIC + self.session) or probe[-1:] != RELAYED:
                raise RelayProtocolError("not a probe of this meeting")
            step.send = probe[:-1] + b"A"
            self._state = "commit"
        if self._state == "commit":
            if not self._buf:
                return step
            if self._buf[:1] != b"C":
                raise RelayProtocolError("the joiner did not commit")
            del self._buf[:1]
            self._state = "game"
        step.game = bytes(self._buf)
        self._buf.clear()
        return step


class LobbyQuery:
    """One ``LOBBY`` connection: the question (no filter), then ``GAME``s until
    ``END``, each listing verified by :class:`~truc_p2p.net._listing.LobbyReader`
    (the desktop's own parser and signature check)."""

    def __init__(self, relay: tuple[str, int]) -> None:
        from truc_p2p.net._listing import LobbyReader

        self.first = MAGIC + encode(Msg.LOBBY)
        self._buf = bytearray()
        self._reader = LobbyReader(relay)

    def feed(self, data: bytes) -> LobbyAnswer | None:
        """The answer once ``data`` completes it; :class:`RelayRefused` or
        :class:`RelayProtocolError` for an answer that is no lobby."""
        self._buf += data
        while (got := _take(self._buf)) is not None:
            answer = self._reader.message(*got)
            if answer is not None:
                return answer
        return None
