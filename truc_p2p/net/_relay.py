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
bounded (:class:`~._relay_state.RelayLimits`): connections overall and per IP address,
registrations, sessions per registration, bytes per session, and idle
time at every stage.

Fair to shared addresses, hard on hoarders.  Many homes share one public
address (carrier-grade NAT, a dormitory), so one address may hold many
registrations, but never more than a small share of the relay.  A code is a
secret that can leak: whoever holds it may JOIN, but one joiner address
holds at most ``max_sessions_per_joiner_ip`` meetings of a registration,
and when a registration's meetings are all taken a newcomer takes the place
of the oldest meeting not yet spliced of the address that holds the most
(more than the newcomer's, and an address that lost its place so may not
take another's for a while: :func:`~._relay_state.meeting_to_evict`), so a
leaked code cannot keep the real joiner out.  Spliced sessions are left
alone: the host's own handshake (hello timeout, key pinning, per-address
admission) decides about them.

One address is an address group (:func:`~._host.address_key`): an IPv4
address, or the /56 of an IPv6 one, since a home is delegated a whole /56
and may pick any address in it.  Every per-address limit (connections,
registrations, listings, a joiner's meetings) counts groups; the lobby ranks
its answers and evicts listings by the wider block (:func:`~._host.address_block`,
an IPv6 /48), so one /48 of 256 groups cannot fill it either.

The lobby.  A registered host may **list** its game (``LIST`` on its control
connection, a listing signed by its own key); anyone may ask for the open
games (``LOBBY`` on a new connection, optionally with a filter by name or
fingerprint: one ``GAME`` per listing, then ``END``).  The relay checks a
listing's shape and signature (for the registration's code) before it
stores it, so junk costs a flooder a key and a signature per listing and
can only ever be listings of its own.  A listing lives only as long as its
registration and expires ``listing_ttl`` seconds after its last renewal (a
``PING`` or a new ``LIST``); listings are bounded overall and per address
group, and a full lobby makes room for a newcomer from a block holding
fewer by dropping the oldest listing of the block holding the most.  An
answer takes its games round by round, one listing of every block per
round (the blocks of a round in a fresh random order, a block's listings
oldest first), so the number of games shown per block is fair and neither
the oldest nor the newest listings can crowd a live host out: with at most
``max_lobby_games`` blocks listing, every block's first game is shown.
The joiner checks the signature again and pins the key: the relay can hide
a game, never dress one up.

WebSocket clients.  A connection whose first bytes are ``GET `` or ``HEAD``
speaks HTTP (:mod:`._relay_http`): ``/ws`` upgrades to a WebSocket whose
binary messages carry the very byte stream of a TCP client
(:class:`~._ws_stream.WebSocketStream`), so from the magic on a browser is
served by the same code as any other client; other paths are the static site
of ``relay --site DIR``.  A WebSocket ends with a close code saying why
(``connect.md`` §9.3): 1008 after an ``ERROR`` or at a splice's limit, 1002
for a malformed relay message.

Out of file descriptors (``EMFILE``) the relay keeps going: the accept loop
(:meth:`RelayServer.serve`) waits a moment and says so in one line at most
every :data:`NOTICE_EVERY` seconds, never a traceback.
"""

from __future__ import annotations

import base64
import ipaddress
import random
import secrets
import time
from collections import Counter
from collections.abc import Callable
from functools import partial
from pathlib import Path

import h11
import trio

from truc_p2p.net._host import address_key
from truc_p2p.net._notice import Notice
from truc_p2p.net._relay_http import HTTP_STARTS, WebLimits, serve_http
from truc_p2p.net._relay_lobby import RelayLobby
from truc_p2p.net._relay_state import (
    STAT_KEYS,
    RelayLimits,
    SessionReport,
    _Meeting,
    _Registration,
    meeting_to_evict,
)
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
from truc_p2p.net._tcp import ACCEPT_SHORTAGE
from truc_p2p.net._ws_stream import CloseCode, WebSocketStream

__all__ = ["RelayServer"]

#: Seconds a splice still carries one direction after the other failed.
LINGER = 2.0
#: Seconds between two notices about the same resource shortage.
NOTICE_EVERY = 10.0
_ERRORS = (
    RelayProtocolError,
    trio.BrokenResourceError,
    trio.ClosedResourceError,
    trio.TooSlowError,
    OSError,
)


#: A relay client's stream: a TCP connection or a WebSocket over one.
Stream = trio.abc.HalfCloseableStream


def _observed(stream: trio.abc.Stream) -> Addr:
    """The address a client's connection comes from (for a WebSocket: its TCP one)."""
    while isinstance(stream, WebSocketStream):
        if stream.forwarded is not None:
            return stream.forwarded
        stream = stream.transport_stream
    assert isinstance(stream, trio.SocketStream)
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
        rng: random.Random | None = None,
        site: Path | None = None,
        web: WebLimits | None = None,
        trusted_proxies: frozenset[str] = frozenset(),
    ) -> None:
        self.limits = limits or RelayLimits()
        #: The static site served over HTTP (``relay --site DIR``), if any.
        self.site = site
        self.web = web or WebLimits()
        #: Addresses of reverse proxies whose ``X-Forwarded-For`` names a WebSocket's client.
        self.trusted_proxies = frozenset(str(ipaddress.ip_address(a)) for a in trusted_proxies)
        self.on_report = on_report
        self._registrations: dict[str, _Registration] = {}
        self._meetings: dict[bytes, _Meeting] = {}
        self._per_ip: Counter[str] = Counter()
        self._regs_per_ip: Counter[str] = Counter()
        self.connections = 0
        #: Totals since start, for ``--json`` stats and the tests.
        self.stats: Counter[str] = Counter({key: 0 for key in STAT_KEYS})
        #: The listed games (``rng`` orders the address groups of each round of an answer).
        self.lobby = RelayLobby(
            self.limits,
            self._registrations,
            self.stats,
            rng or random.Random(secrets.randbits(64)),
        )
        self._last_notice = -NOTICE_EVERY
        self._quiet = 0

    async def serve(
        self,
        listeners: list[trio.SocketListener],
        *,
        on_notice: Callable[[str], None] | None = None,
    ) -> None:
        """Accept on every listener and :meth:`handle` each connection, forever.

        Unlike :func:`trio.serve_listeners`, running out of file descriptors or
        buffers is one line to ``on_notice`` (at most every :data:`NOTICE_EVERY`
        seconds, with the count of those left unsaid), never a traceback."""
        async with trio.open_nursery() as nursery:
            for listener in listeners:
                nursery.start_soon(self._accept_loop, listener, nursery, on_notice)

    async def _accept_loop(
        self,
        listener: trio.SocketListener,
        nursery: trio.Nursery,
        on_notice: Callable[[str], None] | None,
    ) -> None:
        while True:
            try:
                stream = await listener.accept()
            except OSError as exc:
                if exc.errno not in ACCEPT_SHORTAGE:
                    raise
                self.stats["accept_shortages"] += 1
                now = trio.current_time()
                if now - self._last_notice >= NOTICE_EVERY:
                    if on_notice is not None:
                        error = str(exc.strerror or exc)
                        on_notice(
                            Notice("accept-shortage-more", error=error, n=self._quiet)
                            if self._quiet
                            else Notice("accept-shortage", error=error)
                        )
                    self._last_notice, self._quiet = now, 0
                else:
                    self._quiet += 1
                await trio.sleep(0.1)
                continue
            nursery.start_soon(self.handle, stream)

    async def handle(self, stream: trio.SocketStream) -> None:
        """One client connection, from the magic to its end; never raises."""
        try:
            ip = address_key(_observed(stream)[0])
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
        deadline = trio.current_time() + self.limits.first_message_timeout
        with trio.fail_at(deadline):
            head = await read_exactly(stream, len(HTTP_STARTS[0]))
        if head not in HTTP_STARTS:
            await self._serve_relay(stream, ip, head, deadline)
            return
        try:
            await serve_http(
                stream,
                head,
                site=self.site,
                limits=self.web,
                on_websocket=partial(self._serve_websocket, ip=ip),
                served=self._served,
                trusted=self.trusted_proxies,
            )
        except h11.ProtocolError:
            self.stats["dropped"] += 1

    def _served(self, kind: str) -> None:
        self.stats["websockets" if kind == "websocket" else "http_requests"] += 1

    async def _serve_websocket(self, ws: WebSocketStream, ip: str) -> None:
        """A WebSocket client: the relay protocol from its magic on, as over TCP; on
        the way out, the close code says why it ended (connect.md §9.3)."""
        try:
            if ws.forwarded is not None:
                await self._serve_forwarded(ws, ip, address_key(ws.forwarded[0]))
            else:
                deadline = trio.current_time() + self.limits.first_message_timeout
                await self._serve_relay(ws, ip, b"", deadline)
        except RelayProtocolError:
            if ws.close_code == CloseCode.NORMAL:
                ws.close_code = CloseCode.PROTOCOL_ERROR
            raise
        except trio.TooSlowError:
            ws.close_code = CloseCode.POLICY
            raise
        except _ERRORS:
            raise
        except Exception:  # a bug here must not take the relay down: 1011, no traceback
            ws.close_code = CloseCode.RELAY_ERROR
            self.stats["dropped"] += 1

    async def _serve_forwarded(self, ws: WebSocketStream, proxy: str, ip: str) -> None:
        """A WebSocket a trusted proxy forwarded: counted as a connection of its client's
        address group (not the proxy's) while it lasts."""
        if self._per_ip[ip] >= self.limits.max_per_ip:
            self.stats["refused_connections"] += 1
            ws.close_code = CloseCode.POLICY
            return
        self._per_ip[ip] += 1
        self._per_ip[proxy] -= 1
        try:
            deadline = trio.current_time() + self.limits.first_message_timeout
            await self._serve_relay(ws, ip, b"", deadline)
        finally:
            self._per_ip[proxy] += 1
            self._per_ip[ip] -= 1
            if not self._per_ip[ip]:
                del self._per_ip[ip]

    async def _serve_relay(self, stream: Stream, ip: str, head: bytes, deadline: float) -> None:
        """A relay client from its magic (``head``: the bytes of it read already)."""
        with trio.fail_at(deadline):
            if head + await read_exactly(stream, len(MAGIC) - len(head)) != MAGIC:
                raise RelayProtocolError("not a relay client")
            kind, body = await read_message(stream)
        if kind == Msg.REGISTER:
            await self._host(stream, ip, body)
        elif kind == Msg.JOIN:
            await self._join(stream, ip, body)
        elif kind == Msg.ATTACH:
            await self._attach(stream, body)
        elif kind == Msg.PING:
            await stream.send_all(encode(Msg.PONG))
        elif kind == Msg.LOBBY:
            await self._lobby(stream, body)
        else:
            await _error(stream, "unexpected message")

    async def _host(self, stream: Stream, ip: str, body: bytes) -> None:
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
            self.lobby.unlist(reg)
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
                kind, body = await read_message(stream)
            if idle.cancelled_caught:
                return
            if kind == Msg.LIST:
                answer = encode(Msg.LISTED, self._list(reg, body).encode())
            elif kind == Msg.PING:
                if reg.listing is not None:
                    reg.renewed = trio.current_time()
                answer = encode(Msg.PONG)
            else:
                raise RelayProtocolError("a host may only send PING or LIST")
            async with reg.send_lock:
                await stream.send_all(answer)

    def _list(self, reg: _Registration, listing: bytes) -> str:
        """A host's ``LIST``: why its game is not listed, or ``""``."""
        return self.lobby.list_game(reg, listing)

    async def _lobby(self, stream: Stream, body: bytes) -> None:
        """A ``LOBBY``: the listed games that match its filter, then ``END``."""
        await self.lobby.answer(stream, body)

    def _make_room(self, reg: _Registration, ip: str) -> bool:
        """Whether a joiner from ``ip`` may meet ``reg``, evicting the waiting meeting
        :func:`~._relay_state.meeting_to_evict` names (see above)."""
        room, victim = meeting_to_evict(reg, ip, self.limits, trio.current_time())
        if victim is not None:
            victim.scope.cancel()
            self.stats["evicted_meetings"] += 1
        return room

    async def _join(self, stream: Stream, ip: str, body: bytes) -> None:
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
        if not self._make_room(reg, ip):
            await _error(stream, "the host has too many joiners at once")
            return
        meeting = _Meeting(secrets.token_bytes(SESSION_LEN), reg, time.monotonic(), joiner_ip=ip)
        self._meetings[meeting.session] = meeting
        reg.meetings.append(meeting)
        reg.sessions += 1
        self.stats["meetings"] += 1
        joiner = _observed(stream)
        counted = [0]
        spliced = False
        end_reason = "closed"
        try:
            with meeting.scope:
                spliced, end_reason = await self._meet(stream, meeting, joiner, lan, counted)
            if meeting.scope.cancelled_caught:
                end_reason = "evicted"
                await _error(stream, "another joiner took this place (too many from one address)")
        except RelayProtocolError:
            end_reason = "direct"  # the joiner closed: a direct path won
        finally:
            reg.sessions -= 1
            reg.meetings.remove(meeting)
            del self._meetings[meeting.session]
            meeting.done.set()
            self.stats["bytes"] += counted[0]
            if self.on_report is not None:
                self.on_report(
                    SessionReport(
                        session=meeting.session.hex()[:12],
                        spliced=spliced or meeting.spliced,
                        bytes=counted[0],
                        connections=meeting.connections + 1,
                        seconds=time.monotonic() - meeting.started,
                        end=end_reason,
                    )
                )

    async def _meet(
        self,
        stream: Stream,
        meeting: _Meeting,
        joiner: Addr,
        lan: list[Addr],
        counted: list[int],
    ) -> tuple[bool, str]:
        """MEET both sides, wait for SPLICE and the host's ATTACH, then copy bytes;
        returns (spliced, end reason)."""
        reg = meeting.registration
        spliced = False
        end_reason = "closed"
        async with reg.send_lock:
            with trio.fail_after(10):
                await reg.stream.send_all(Meet(meeting.session, reg.observed, joiner, lan).encode())
        await stream.send_all(Meet(meeting.session, joiner, reg.observed, reg.lan).encode())
        with trio.move_on_after(self.limits.meeting_timeout) as waiting:
            kind, _ = await read_message(stream)
            if kind != Msg.SPLICE:
                raise RelayProtocolError("a joiner may only send SPLICE")
            await meeting.attach_event.wait()
        if waiting.cancelled_caught or meeting.attached is None:
            await _error(stream, "the host did not attach in time")
            return spliced, "timeout"
        spliced = meeting.spliced = True
        self.stats["splices"] += 1
        host = meeting.attached
        await host.send_all(encode(Msg.SPLICED))
        await stream.send_all(encode(Msg.SPLICED))
        end_reason = await self._pipe(stream, host, counted)
        return spliced, end_reason

    async def _attach(self, stream: Stream, body: bytes) -> None:
        meeting = self._meetings.get(body) if len(body) == SESSION_LEN else None
        if meeting is None or meeting.attached is not None:
            await _error(stream, "no such meeting")
            return
        meeting.attached = stream
        meeting.connections += 1
        meeting.attach_event.set()
        # The joiner's task owns the copying; this task only keeps the stream open.
        await meeting.done.wait()

    async def _pipe(self, a: Stream, b: Stream, counted: list[int]) -> str:
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

            async def copy(src: Stream, dst: Stream) -> None:
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
        if reason[0] in ("idle", "byte limit"):
            for stream in (a, b):
                _policy(stream)
        return reason[0]


def _policy(stream: trio.abc.Stream) -> None:
    """A WebSocket the relay ends for one of its rules closes with 1008."""
    if isinstance(stream, WebSocketStream):
        stream.close_code = CloseCode.POLICY


async def _error(stream: trio.abc.Stream, text: str) -> None:
    _policy(stream)
    try:
        with trio.move_on_after(5):
            await stream.send_all(encode(Msg.ERROR, text.encode()[:200]))
    except _ERRORS:
        pass
