"""The host's accept loop: many connections at once, none can jam the others.

Theory of operation
-------------------
Every accepted connection gets its own task.  It must deliver one whole
frame within ``hello_timeout`` seconds.  At most ``max_pending`` connections
may be waiting for that at once, and at most ``max_pending_per_address``
from one address (an IPv6 /56 counts as one, :func:`address_key`): a
newcomer from an address at its limit takes the place of that address's oldest waiting connection,
and when all places are taken, of the oldest one of the address that holds
the most (more than the newcomer's).  So idle sockets, port scanners,
garbage and oversize length prefixes cost one task for a few seconds each,
and one address re-opening silent connections as fast as they drop cannot
keep a joiner from another address out: a honest joiner needs its place for
a few milliseconds only.  The first frame routes the connection:

* a ``hello`` starts a new game (unless the host is full: a signed
  ``refuse`` ``busy``; or the key is not on the ``--allow`` list: ``refuse``
  ``not-allowed``).  When the host is full, a hello may take the place of a
  game whose handshake has not reached the coin, if that game's hello came
  under the same key (the same player starting over), or from an address
  group that sent more hellos lately than the newcomer's (:class:`HelloCounts`:
  a flood), or more than ``hello_timeout`` seconds ago (a handshake that died).
  So a flood of hellos from one address cannot take an honest joiner's place
  in the few round trips before its coin, and cannot keep one out either;
* a ``resume`` naming a running game and signed by its opponent is handed
  to that game's :class:`ChannelReconnector`, which also replaces the link
  the game still holds (the peer gave it up: a half-open connection); the
  game's session checks the freshness, and a bad one only costs that
  connection; a ``resume`` for no running game, or not signed by its
  opponent, gets ``refuse`` ``unknown-game``; one its game cannot queue (the
  opponent's resumes come faster than the resume throttle takes them, wire.md
  13.4) is closed without an answer;
* anything else is closed.

A game whose connection dropped stays registered for its grace period, so
the joiner's redial finds it.  The loop never ends because of what a peer
sends: only the caller stops it.
"""

from __future__ import annotations

import contextlib
import ipaddress
import math
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import trio

from truc_p2p import crypto
from truc_p2p.crypto import SigningKey, VerifyKey
from truc_p2p.net._notice import Notice
from truc_p2p.protocol import (
    MAX_ENVELOPE,
    MessageType,
    RemoteProtocolError,
    Session,
    decode_envelope,
    fingerprint,
    refusal,
)

__all__ = [
    "DEFAULT_MAX_PENDING",
    "DEFAULT_MAX_PENDING_PER_ADDRESS",
    "Admission",
    "ChannelReconnector",
    "GameSlot",
    "HostLoop",
    "PendingLimits",
    "StreamSource",
    "address_block",
    "address_key",
    "read_first_frame",
]


class StreamSource(Protocol):
    """Where connections come from: a :class:`~._tcp.GameListener`, or a
    :class:`~._reach.Reach` (listener, relay, punched paths)."""

    async def accept(self) -> trio.SocketStream: ...


#: Connections that may be waiting for their first frame at once.
DEFAULT_MAX_PENDING = 64
#: Of those, how many may come from one address (an IPv6 /56).
DEFAULT_MAX_PENDING_PER_ADDRESS = 8


@dataclass(frozen=True, kw_only=True)
class PendingLimits:
    """How many connections may wait for their first frame at once: in all
    (``total``), and from one address (``per_address``)."""

    total: int = DEFAULT_MAX_PENDING
    per_address: int = DEFAULT_MAX_PENDING_PER_ADDRESS


@dataclass(frozen=True, kw_only=True)
class Admission:
    """Whom and how many a :class:`HostLoop` lets in: ``capacity`` games at once,
    only the fingerprints in ``allow`` (``None``: anyone), and ``pending`` limits on
    the connections waiting for their first frame."""

    capacity: int = 1
    allow: frozenset[str] | None = None
    pending: PendingLimits = PendingLimits()


#: The IPv6 prefix that counts as one address group (see :func:`address_key`).
GROUP_PREFIX = 56
#: The wider IPv6 prefix the relay's lobby ranks and evicts by (:func:`address_block`).
BLOCK_PREFIX = 48


def _grouped(peer: str, prefix: int) -> str:
    try:
        ip = ipaddress.ip_address(peer.split("%")[0])
    except ValueError:
        return peer
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is None:
        return str(ipaddress.ip_network(f"{ip}/{prefix}", strict=False))
    return str(ip.ipv4_mapped or ip) if isinstance(ip, ipaddress.IPv6Address) else str(ip)


def address_key(peer: str) -> str:
    """Who counts as one address for every per-address limit (the host's pending
    connections, the relay's connections, registrations, listings and meetings):
    an IPv4 address, or the /56 prefix of an IPv6 one.

    Why /56: an ISP delegates a /56 (256 /64s) to a home as a rule, and the home
    may use any address in any of its /64s, so a /64 would let one household count
    as 256 addresses and fill the relay's lobby.  Not /48: ISPs carve their
    customers' /56s out of shared /48s, so a /48 is typically 256 neighbouring
    homes, who would then share one household's quota.  The relay's lobby ranks
    and evicts by the wider :func:`address_block` instead (connect.md 2.2)."""
    return _grouped(peer, GROUP_PREFIX)


def address_block(peer: str) -> str:
    """The wider group the relay's lobby ranks answers and evicts listings by: an
    IPv4 address, or the /48 prefix of an IPv6 one (a business or a tunnel user
    holds a whole /48, 256 groups of :func:`address_key`, and must not fill the
    lobby nor take 256 places of an answer)."""
    return _grouped(peer, BLOCK_PREFIX)


class HelloCounts:
    """How many hellos each address group sent lately: a count that decays by a
    factor *e* every ``window`` seconds, for at most :data:`MAX_GROUPS` groups (the
    lowest are forgotten first)."""

    MAX_GROUPS = 1024

    def __init__(self, window: float) -> None:
        self.window = max(window, 1.0)
        self._counts: dict[str, tuple[float, float]] = {}

    def score(self, group: str, now: float) -> float:
        count, at = self._counts.get(group, (0.0, now))
        return count * math.exp(-(now - at) / self.window)

    def count(self, group: str, now: float) -> None:
        if group not in self._counts and len(self._counts) >= self.MAX_GROUPS:
            del self._counts[min(self._counts, key=lambda g: self.score(g, now))]
        self._counts[group] = (self.score(group, now) + 1.0, now)


@dataclass(eq=False)
class _Pending:
    """A connection waiting for its first frame."""

    address: str
    since: float
    scope: trio.CancelScope = field(default_factory=trio.CancelScope)


class ChannelReconnector:
    """A game's source of new connections on the host: the accept loop sends them."""

    def __init__(self) -> None:
        self.tx, self.rx = trio.open_memory_channel[tuple[trio.abc.Stream, bytes]](4)
        self._offer = trio.Event()

    def offer(self, stream: trio.abc.Stream, first: bytes) -> bool:
        """Queue a new connection for the game (False: too many are waiting)."""
        try:
            self.tx.send_nowait((stream, first))
        except trio.WouldBlock:
            return False
        self._offer.set()
        return True

    async def offered(self) -> None:
        """Return once a connection is waiting (the game's link keeper takes it over)."""
        while self.rx.statistics().current_buffer_used == 0:
            await self._offer.wait()
            self._offer = trio.Event()

    async def next_stream(self) -> tuple[trio.abc.Stream, bytes, bool]:
        stream, prefix = await self.rx.receive()
        return stream, prefix, False

    async def aclose(self) -> None:
        """Close connections routed here that the game did not take (it ended)."""
        while True:
            try:
                stream, _ = self.rx.receive_nowait()
            except (trio.WouldBlock, trio.EndOfChannel, trio.ClosedResourceError):
                return
            with trio.CancelScope(shield=True):
                await trio.aclose_forcefully(stream)


@dataclass(eq=False)
class GameSlot:
    """A game the host runs: its session and where its reconnections go."""

    session: Session
    reconnector: ChannelReconnector = field(default_factory=ChannelReconnector)
    peer: str = "?"
    #: Cancelled when a new joiner takes the place of a game that never started.
    scope: trio.CancelScope = field(default_factory=trio.CancelScope)
    #: ``trio.current_time()`` of its hello.
    since: float = field(default_factory=trio.current_time)
    #: The game's links, its first and each one a resume brought, as the host
    #: records them (``{"path", "tries"}``, connect.md §4.1).
    links: list[dict[str, Any]] = field(default_factory=list)


async def read_first_frame(stream: trio.abc.Stream, timeout: float) -> bytes | None:
    """One whole frame (header and envelope) from ``stream``, or ``None`` on EOF,
    timeout, an announced length out of range, or a transport error."""
    buf = bytearray()
    need = 4
    with trio.move_on_after(timeout):
        try:
            while len(buf) < need:
                chunk = await stream.receive_some(max(need - len(buf), 4096))
                if not chunk:
                    return None
                buf += chunk
                if need == 4 and len(buf) >= 4:
                    size = int.from_bytes(buf[:4], "big")
                    if not 64 < size <= MAX_ENVELOPE:
                        return None
                    need = 4 + size
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            return None
        return bytes(buf)
    return None


#: Starts a game on a connection: ``(stream, first frame, peer address)``.
StartGame = Callable[[trio.abc.Stream, bytes, str], Awaitable[None]]


class HostLoop:
    """Accepts connections and routes them (see the module docstring)."""

    def __init__(
        self,
        listener: StreamSource,
        identity: SigningKey,
        start_game: StartGame,
        *,
        hello_timeout: float,
        admission: Admission = Admission(),
        on_notice: Callable[[str], None] | None = None,
        on_resumed: Callable[[GameSlot, trio.abc.Stream, str], None] | None = None,
    ) -> None:
        self.listener = listener
        #: Hears each new link a running game took (a resume handed to it): the
        #: game's slot, the stream and its peer.
        self.on_resumed = on_resumed
        self.identity = identity
        self.start_game = start_game
        self.hello_timeout = hello_timeout
        allow, limits = admission.allow, admission.pending
        self.capacity = admission.capacity
        self.allow = None if allow is None else frozenset(a.lower() for a in allow)
        self.max_pending = limits.total
        self.max_pending_per_address = limits.per_address
        self.on_notice = on_notice
        self._waiting: list[_Pending] = []  # oldest first
        #: Hellos lately per address group: whose unstarted game a hello may replace.
        self._hellos = HelloCounts(hello_timeout)
        self._by_address: Counter[str] = Counter()
        #: Waiting connections closed to make room for a newcomer, since the start.
        self.evicted = 0
        self.games: list[GameSlot] = []
        #: Games starting or running (a game counts from its hello on).
        self.running = 0
        self.pending = 0
        self.accepting = True

    def notice(self, text: str) -> None:
        if self.on_notice is not None:
            self.on_notice(text)

    async def serve(self) -> None:
        """Accept forever (cancel to stop)."""
        async with trio.open_nursery() as nursery:
            while True:
                stream = await self.listener.accept()
                waiting = self._admit(self._peer(stream))
                if waiting is None:
                    with contextlib.suppress(Exception):
                        await stream.aclose()
                    continue
                self.pending += 1
                nursery.start_soon(self._handle, stream, waiting)

    def _peer(self, stream: trio.abc.Stream) -> str:
        peer_of = getattr(self.listener, "peer_of", None)
        if peer_of is not None:  # a relayed stream: the joiner's address, not the relay's
            return str(peer_of(stream, _socket_peer(stream)))
        return _socket_peer(stream)

    def _admit(self, peer: str) -> _Pending | None:
        """A place for a new connection from ``peer``, making room if its address may
        have one (see the module docstring); ``None``: close it."""
        address = address_key(peer)
        victim: _Pending | None = None
        if self._by_address[address] >= self.max_pending_per_address:
            victim = next(w for w in self._waiting if w.address == address)
        elif len(self._waiting) >= self.max_pending:
            top, held = self._by_address.most_common(1)[0]
            if held <= self._by_address[address] + 1:
                return None  # every address holds its fair share: the newcomer waits
            victim = next(w for w in self._waiting if w.address == top)
        if victim is not None:
            self._forget(victim)
            victim.scope.cancel()
            self.evicted += 1
        waiting = _Pending(address, trio.current_time())
        self._waiting.append(waiting)
        self._by_address[address] += 1
        return waiting

    def _forget(self, waiting: _Pending) -> None:
        if waiting in self._waiting:
            self._waiting.remove(waiting)
            self._by_address[waiting.address] -= 1
            if not self._by_address[waiting.address]:
                del self._by_address[waiting.address]

    async def refuse(self, stream: trio.abc.Stream, reason: str, detail: str) -> None:
        """Answer ``stream`` with a signed ``refuse`` and close it."""
        with trio.move_on_after(2), contextlib.suppress(Exception):
            await stream.send_all(refusal(self.identity, reason, detail))
            with contextlib.suppress(Exception):
                if isinstance(stream, trio.abc.HalfCloseableStream):
                    await stream.send_eof()
            with trio.move_on_after(1):
                while await stream.receive_some(4096):
                    pass
        with contextlib.suppress(Exception):
            await stream.aclose()

    async def _handle(self, stream: trio.abc.Stream, waiting: _Pending) -> None:
        handed = [False]
        try:
            await self._route(stream, handed, waiting)
        finally:
            if not handed[0]:
                with trio.CancelScope(shield=True), contextlib.suppress(Exception):
                    await trio.aclose_forcefully(stream)

    async def _route(self, stream: trio.abc.Stream, handed: list[bool], waiting: _Pending) -> None:
        peer = self._peer(stream)
        first: bytes | None = None
        try:
            with waiting.scope:
                first = await read_first_frame(stream, self.hello_timeout)
        finally:
            self.pending -= 1
            self._forget(waiting)
        if waiting.scope.cancelled_caught:
            with contextlib.suppress(Exception):
                await stream.aclose()
            return
        if first is None:
            self.notice(Notice("dropped-no-first", peer=peer))
            with contextlib.suppress(Exception):
                await stream.aclose()
            return
        try:
            env = decode_envelope(_first_envelope(first))
        except RemoteProtocolError as exc:
            self.notice(Notice("dropped-bad-first", peer=peer, error=str(exc)))
            with contextlib.suppress(Exception):
                await stream.aclose()
            return
        if env.type == MessageType.RESUME:
            handed[0] = await self._route_resume(stream, first, env.game_id, peer)
            return
        if env.type != MessageType.HELLO:
            self.notice(Notice("dropped-began-with", peer=peer, type=repr(env.type)))
            with contextlib.suppress(Exception):
                await stream.aclose()
            return
        key = env.payload.get("key")
        fp = fingerprint(key) if isinstance(key, bytes) and len(key) == 32 else "?"
        if self.allow is not None and fp not in self.allow:
            self.notice(Notice("not-allowed", peer=peer, key=fp[:16]))
            await self.refuse(stream, "not-allowed", "this host admits only the keys it allows")
            return
        group = address_key(peer)
        self._hellos.count(group, trio.current_time())
        room = self.running < self.capacity
        if self.accepting and not room:
            victim = self._unstarted_to_replace(group, fp, first)
            if victim is not None:
                victim.scope.cancel()
                room = True
        if not self.accepting or not room:
            self.notice(Notice("busy", peer=peer))
            await self.refuse(stream, "busy", "a game is in progress")
            return
        self.running += 1
        handed[0] = True  # the game closes it
        try:
            await self.start_game(stream, first, peer)
        finally:
            self.running -= 1

    def _unstarted_to_replace(self, group: str, fp: str, first: bytes) -> GameSlot | None:
        """A game not started yet (no coin) whose place the new hello ``first`` from
        ``group`` under the key of fingerprint ``fp`` may take, or ``None`` (see the
        module docstring)."""
        now = trio.current_time()
        for slot in self.games:
            if slot.session.started or slot.scope.cancel_called:
                continue
            theirs = slot.session.peer_key
            if (
                (theirs is not None and fingerprint(theirs) == fp and _signed_by(first, theirs))
                or now - slot.since >= self.hello_timeout
                or self._hellos.score(address_key(slot.peer), now) > self._hellos.score(group, now)
            ):
                return slot
        return None

    async def _route_resume(
        self, stream: trio.abc.Stream, first: bytes, game_id: bytes, peer: str
    ) -> bool:
        """Hand a resume to its game (True: the game owns the stream now)."""
        for slot in self.games:
            if slot.session.game_id == game_id and slot.session.resumable:
                if not _signed_by_peer(first, slot.session):
                    break
                # False: the peer's own resumes queue up faster than the throttle
                # answers them (wire.md 13.4): closed quietly, no refusal to sign and
                # no line on the screen for each
                taken = slot.reconnector.offer(stream, first)
                if taken and self.on_resumed is not None:
                    self.on_resumed(slot, stream, peer)
                return taken
        self.notice(Notice("unknown-game", peer=peer))
        await self.refuse(stream, "unknown-game", "this host has no such game running")
        return False


def _signed_by_peer(first: bytes, session: Session) -> bool:
    """Whether the frame ``first`` carries the opponent's signature (a stranger's or a
    damaged ``resume`` must not take a running game's link away)."""
    key = session.peer_key
    return key is not None and _signed_by(first, key)


def _signed_by(first: bytes, key: VerifyKey) -> bool:
    """Whether the frame ``first`` carries ``key``'s signature (a hello that merely
    names a joiner's key must not take that joiner's place)."""
    raw = _first_envelope(first)
    try:
        key.verify(raw[-64:], raw[:-64])
    except crypto.BadSignatureError:
        return False
    return True


def _first_envelope(first: bytes) -> bytes:
    """The envelope of the first frame (a heartbeat may follow it in the same read)."""
    return first[4 : 4 + int.from_bytes(first[:4], "big")]


def _socket_peer(stream: trio.abc.Stream) -> str:
    try:
        return str(stream.socket.getpeername()[0])  # type: ignore[attr-defined]
    except (OSError, AttributeError):
        return "?"
