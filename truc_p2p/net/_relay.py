"""The rendezvous and relay server behind ``truc-p2p relay``.

Theory of operation.  A host keeps one **control connection** open
(``REGISTER``, then ``PING`` now and then) and gets a one-time code for its
invite.  A joiner connects with ``JOIN code``; the relay answers both sides
with a ``MEET`` naming the session and each side's observed address, so they
can try direct paths and hole punching.  The host also opens an **attach
connection** for the session (``ATTACH session``).  If the joiner then sends
``SPLICE``, the relay answers ``SPLICED`` on both connections and copies
bytes between them until either side closes; if the joiner closes instead, a
direct path won and the attach connection is dropped.

A ``REGISTER`` may carry a 16-byte **claim**: the code is then derived from
it, so a host registers the same code again after its control connection or
the relay itself went away; a newer registration with the same claim
replaces one that still holds the code (``ERROR replaced`` on the old one).

Untrusted by design: the relay only moves bytes that are signed end to end,
so it can drop or delay a game, never forge one.  Everything it holds is
bounded (:class:`RelayLimits`): connections overall and per IP address,
registrations, sessions per registration, bytes per session, and idle
time at every stage.
"""

from __future__ import annotations

import base64
import secrets
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import trio

from truc_p2p.net._relay_wire import (
    CLAIM_LEN,
    MAGIC,
    REPLACED,
    SESSION_LEN,
    Addr,
    Meet,
    Msg,
    RelayProtocolError,
    code_for_claim,
    decode_addrs,
    encode,
    encode_addr,
    read_exactly,
    read_message,
)

__all__ = ["DEFAULT_RELAY_PORT", "RelayLimits", "RelayServer", "SessionReport"]

DEFAULT_RELAY_PORT = 4456
#: Seconds a splice still carries one direction after the other failed.
LINGER = 2.0
#: The counters in :attr:`RelayServer.stats`.
STAT_KEYS = (
    "connections",
    "refused_connections",
    "dropped",
    "registrations",
    "replaced_registrations",
    "refused_registrations",
    "unknown_codes",
    "meetings",
    "splices",
    "bytes",
)
_ERRORS = (
    RelayProtocolError,
    trio.BrokenResourceError,
    trio.ClosedResourceError,
    trio.TooSlowError,
    OSError,
)


@dataclass(frozen=True)
class RelayLimits:
    """What one relay will hold at most, and how long it waits at each stage."""

    max_connections: int = 1024
    max_per_ip: int = 32
    max_registrations: int = 512
    max_registrations_per_ip: int = 4
    max_sessions_per_registration: int = 4
    #: The magic and first message must arrive within this many seconds.
    first_message_timeout: float = 10.0
    #: A host that sends nothing (no ``PING``) for this long is dropped.
    registration_idle: float = 120.0
    #: A meeting waits this long for ``SPLICE`` and for the host's ``ATTACH``.
    meeting_timeout: float = 30.0
    #: A spliced session in which nobody sends a byte for this long is closed.
    splice_idle: float = 900.0
    #: Bytes a spliced session may carry (both directions); a game needs ~100 kB.
    max_session_bytes: int = 8 << 20


@dataclass
class SessionReport:
    """What one meeting cost the relay."""

    session: str
    spliced: bool
    bytes: int
    connections: int
    seconds: float
    end: str

    def to_json(self) -> dict[str, Any]:
        return {
            "event": "session",
            "session": self.session,
            "spliced": self.spliced,
            "bytes": self.bytes,
            "connections": self.connections,
            "seconds": round(self.seconds, 3),
            "end": self.end,
        }


@dataclass(eq=False)
class _Registration:
    code: str
    stream: trio.SocketStream
    observed: Addr
    lan: list[Addr]
    ip: str
    send_lock: trio.Lock = field(default_factory=trio.Lock)
    sessions: int = 0
    #: Cancelled when a newer ``REGISTER`` with the same claim takes the code over.
    scope: trio.CancelScope = field(default_factory=trio.CancelScope)


@dataclass(eq=False)
class _Meeting:
    session: bytes
    registration: _Registration
    started: float
    attached: trio.SocketStream | None = None
    attach_event: trio.Event = field(default_factory=trio.Event)
    done: trio.Event = field(default_factory=trio.Event)
    connections: int = 1


def _observed(stream: trio.SocketStream) -> Addr:
    name = stream.socket.getpeername()
    return (str(name[0]).split("%")[0], int(name[1]))


def new_code() -> str:
    """A one-time code: 80 random bits as 16 lowercase base32 letters and digits."""
    return base64.b32encode(secrets.token_bytes(10)).decode().lower()


class RelayServer:
    """Serve the relay protocol on listeners: ``await trio.serve_listeners(server.handle, ls)``."""

    def __init__(
        self,
        limits: RelayLimits | None = None,
        *,
        on_report: Callable[[SessionReport], None] | None = None,
    ) -> None:
        self.limits = limits or RelayLimits()
        self.on_report = on_report
        self._registrations: dict[str, _Registration] = {}
        self._meetings: dict[bytes, _Meeting] = {}
        self._per_ip: Counter[str] = Counter()
        self._regs_per_ip: Counter[str] = Counter()
        self.connections = 0
        #: Totals since start, for ``--json`` stats and the tests.
        self.stats: Counter[str] = Counter({key: 0 for key in STAT_KEYS})

    async def handle(self, stream: trio.SocketStream) -> None:
        """One client connection, from the magic to its end; never raises."""
        try:
            ip = _observed(stream)[0]
        except OSError:
            await stream.aclose()
            return
        self.stats["connections"] += 1
        if (
            self.connections >= self.limits.max_connections
            or self._per_ip[ip] >= self.limits.max_per_ip
        ):
            self.stats["refused_connections"] += 1
            await stream.aclose()
            return
        self.connections += 1
        self._per_ip[ip] += 1
        try:
            async with stream:
                await self._serve(stream, ip)
        except _ERRORS:
            self.stats["dropped"] += 1
        finally:
            self.connections -= 1
            self._per_ip[ip] -= 1
            if not self._per_ip[ip]:
                del self._per_ip[ip]

    async def _serve(self, stream: trio.SocketStream, ip: str) -> None:
        with trio.fail_after(self.limits.first_message_timeout):
            if await read_exactly(stream, len(MAGIC)) != MAGIC:
                raise RelayProtocolError("not a relay client")
            kind, body = await read_message(stream)
        if kind == Msg.REGISTER:
            await self._host(stream, ip, body)
        elif kind == Msg.JOIN:
            await self._join(stream, body)
        elif kind == Msg.ATTACH:
            await self._attach(stream, body)
        elif kind == Msg.PING:
            await stream.send_all(encode(Msg.PONG))
        else:
            await _error(stream, "unexpected message")

    async def _host(self, stream: trio.SocketStream, ip: str, body: bytes) -> None:
        lan, end = decode_addrs(body)
        claim = body[end:]
        if claim and len(claim) != CLAIM_LEN:
            raise RelayProtocolError("trailing bytes in REGISTER")
        code = code_for_claim(claim) if claim else new_code()
        old = self._registrations.get(code)
        if (
            len(self._registrations) - (old is not None) >= self.limits.max_registrations
            or self._regs_per_ip[ip] - (old is not None and old.ip == ip)
            >= self.limits.max_registrations_per_ip
        ):
            self.stats["refused_registrations"] += 1
            await _error(stream, "relay full: too many registrations")
            return
        reg = _Registration(code, stream, _observed(stream), lan, ip)
        self._registrations[code] = reg
        self._regs_per_ip[ip] += 1
        self.stats["registrations"] += 1
        if old is not None:  # the same claim again: the host came back, the old one is stale
            self.stats["replaced_registrations"] += 1
            old.scope.cancel()
        try:
            with reg.scope:
                await self._serve_host(reg)
        finally:
            if self._registrations.get(code) is reg:
                del self._registrations[code]
            self._regs_per_ip[ip] -= 1
            if not self._regs_per_ip[ip]:
                del self._regs_per_ip[ip]
            if reg.scope.cancelled_caught:
                await _error(stream, REPLACED)

    async def _serve_host(self, reg: _Registration) -> None:
        stream = reg.stream
        async with reg.send_lock:
            await stream.send_all(
                encode(
                    Msg.REGISTERED,
                    bytes([len(reg.code)]) + reg.code.encode() + encode_addr(reg.observed),
                )
            )
        while True:
            with trio.move_on_after(self.limits.registration_idle) as idle:
                kind, _ = await read_message(stream)
            if idle.cancelled_caught:
                return
            if kind != Msg.PING:
                raise RelayProtocolError("a host may only send PING")
            async with reg.send_lock:
                await stream.send_all(encode(Msg.PONG))

    async def _join(self, stream: trio.SocketStream, body: bytes) -> None:
        if not body or len(body) < 1 + body[0]:
            raise RelayProtocolError("bad JOIN")
        code = body[1 : 1 + body[0]].decode("ascii", "replace")
        lan, end = decode_addrs(body, 1 + body[0])
        if end != len(body):
            raise RelayProtocolError("trailing bytes in JOIN")
        reg = self._registrations.get(code)
        if reg is None:
            self.stats["unknown_codes"] += 1
            await _error(stream, "no host is registered with this code")
            return
        if reg.sessions >= self.limits.max_sessions_per_registration:
            await _error(stream, "the host has too many joiners at once")
            return
        meeting = _Meeting(secrets.token_bytes(SESSION_LEN), reg, time.monotonic())
        self._meetings[meeting.session] = meeting
        reg.sessions += 1
        self.stats["meetings"] += 1
        joiner = _observed(stream)
        counted = [0]
        spliced = False
        end_reason = "closed"
        try:
            async with reg.send_lock:
                with trio.fail_after(10):
                    await reg.stream.send_all(
                        Meet(meeting.session, reg.observed, joiner, lan).encode()
                    )
            await stream.send_all(Meet(meeting.session, joiner, reg.observed, reg.lan).encode())
            with trio.move_on_after(self.limits.meeting_timeout) as waiting:
                kind, _ = await read_message(stream)
                if kind != Msg.SPLICE:
                    raise RelayProtocolError("a joiner may only send SPLICE")
                await meeting.attach_event.wait()
            if waiting.cancelled_caught or meeting.attached is None:
                end_reason = "timeout"
                await _error(stream, "the host did not attach in time")
                return
            spliced = True
            self.stats["splices"] += 1
            host = meeting.attached
            await host.send_all(encode(Msg.SPLICED))
            await stream.send_all(encode(Msg.SPLICED))
            end_reason = await self._pipe(stream, host, counted)
        except RelayProtocolError:
            end_reason = "direct"  # the joiner closed: a direct path won
        finally:
            reg.sessions -= 1
            del self._meetings[meeting.session]
            meeting.done.set()
            self.stats["bytes"] += counted[0]
            if self.on_report is not None:
                self.on_report(
                    SessionReport(
                        session=meeting.session.hex()[:12],
                        spliced=spliced,
                        bytes=counted[0],
                        connections=meeting.connections + 1,
                        seconds=time.monotonic() - meeting.started,
                        end=end_reason,
                    )
                )

    async def _attach(self, stream: trio.SocketStream, body: bytes) -> None:
        meeting = self._meetings.get(body) if len(body) == SESSION_LEN else None
        if meeting is None or meeting.attached is not None:
            await _error(stream, "no such meeting")
            return
        meeting.attached = stream
        meeting.connections += 1
        meeting.attach_event.set()
        # The joiner's task owns the copying; this task only keeps the stream open.
        await meeting.done.wait()

    async def _pipe(self, a: trio.SocketStream, b: trio.SocketStream, counted: list[int]) -> str:
        """Copy both ways until both sides are done, the byte budget runs out or
        nobody sends for ``splice_idle`` seconds.

        An EOF is passed on as a half-close.  When one direction fails (its
        receiver reset the connection), the other still has :data:`LINGER`
        seconds to deliver what is in flight, e.g. a last message and the
        sender's EOF, so a peer's farewell is not lost to the other's reset.
        """
        limits = self.limits
        reason = ["closed"]
        closing = [False]
        async with trio.open_nursery() as nursery:
            deadline = [trio.current_time() + limits.splice_idle]

            async def watchdog() -> None:
                while trio.current_time() < deadline[0]:
                    await trio.sleep_until(deadline[0])
                if not closing[0]:
                    reason[0] = "idle"
                nursery.cancel_scope.cancel()

            async def copy(src: trio.SocketStream, dst: trio.SocketStream) -> None:
                try:
                    while data := await src.receive_some(16384):
                        counted[0] += len(data)
                        if counted[0] > limits.max_session_bytes:
                            reason[0] = "byte limit"
                            nursery.cancel_scope.cancel()
                            return
                        if not closing[0]:
                            deadline[0] = trio.current_time() + limits.splice_idle
                        await dst.send_all(data)
                    await dst.send_eof()  # half-close: the other direction may still finish
                except _ERRORS:
                    closing[0] = True
                    deadline[0] = min(deadline[0], trio.current_time() + LINGER)

            nursery.start_soon(watchdog)
            async with trio.open_nursery() as copies:
                copies.start_soon(copy, a, b)
                copies.start_soon(copy, b, a)
            nursery.cancel_scope.cancel()
        return reason[0]


async def _error(stream: trio.SocketStream, text: str) -> None:
    try:
        with trio.move_on_after(5):
            await stream.send_all(encode(Msg.ERROR, text.encode()[:200]))
    except _ERRORS:
        pass
