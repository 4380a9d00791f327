"""Reach a host through NAT: direct paths, TCP hole punching, or a relay splice.

Theory of operation (``protocol_spec/connect.md``).  The host keeps a
control connection to a relay (:func:`~._rendezvous.open_rendezvous`) from a local port
``P`` and listens on ``P`` as well (``SO_REUSEPORT``).  A joiner
(:func:`connect`) sends ``JOIN code`` to the relay from its own port ``Q``;
the relay's ``MEET`` tells each side the other's observed address.  Then, in
parallel:

* the joiner connects to each of the host's LAN addresses and to its
  observed public address (path ``direct``);
* both sides connect, again and again, from the port they used to reach the
  relay to the other's observed address; crossing SYNs open one TCP
  connection through both NATs (path ``punched``);
* after :data:`DIRECT_WINDOW` seconds the joiner asks the relay to splice
  its relay connection to the one the host attached (path ``relayed``).

A host with a TURN server (:mod:`._turn`) allocates a TCP relayed address there
and announces it as the last of its own addresses; the joiner's direct attempt
to it is answered ``T`` by the host (path ``turn``), and held until
:data:`DIRECT_WINDOW` so that a direct or punched path still wins first.
Direct attempts that fail at once are tried again until then (the host's
permission for the joiner's address may come a moment after the MEET).

The host's ``REGISTER`` carries a **claim** from which the relay derives the
code, so when the control connection drops (the relay restarted, a NAT forgot
the mapping) the host registers again with backoff and gets the same code:
the invite it printed stays valid, and a resumed host (``truc-p2p resume``)
gets it back too (:class:`~._rendezvous.Rendezvous`).

Every candidate connection first carries a **probe** (the joiner sends
``TRUCPRB1`` + session + path letter, the host echoes it with ``A``); the
first candidate answered wins, the joiner sends one ``C`` (commit) on it and
closes the others.  Only then does the game's hello flow, so the probe never
consumes a byte of the game.
"""

from __future__ import annotations

import errno
import socket
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any

import ifaddr
import trio

from truc_p2p.net._invite import Invite, host_port
from truc_p2p.net._notice import Notice
from truc_p2p.net._relay_wire import (
    MAGIC,
    PROBE_MAGIC,
    Addr,
    Meet,
    Msg,
    RelayProtocolError,
    encode,
    encode_addrs,
    read_exactly,
    read_message,
    relay_text,
)
from truc_p2p.net._turn import Allocation, TurnError, TurnServer, allocate

__all__ = [
    "DIRECT_WINDOW",
    "PATHS",
    "ConnectError",
    "Incoming",
    "PathTry",
    "connect",
    "lan_addresses",
]


#: Seconds the joiner tries direct paths alone before asking for a relay splice.
DIRECT_WINDOW = 3.0
#: How long each side keeps punching after a MEET.
PUNCH_TIME = 10.0
PROBE_TIMEOUT = 5.0
#: How long the host keeps a meeting open for the joiner's probes.
MEETING_TIME = 60.0
#: Probes the host answers at once on its relay port; more connections are closed.
MAX_PROBES = 64
PATHS = {b"d": "direct", b"p": "punched", b"r": "relayed", b"t": "turn"}
_LETTER = {v: k for k, v in PATHS.items()}
#: Seconds between direct attempts to one address that failed at once.
DIRECT_RETRY = 0.25
#: Seconds a joiner with ``--turn`` waits for its own allocation before joining without.
OWN_TURN_TIMEOUT = 3.0
_NET_ERRORS = (OSError, trio.BrokenResourceError, trio.ClosedResourceError, RelayProtocolError)


class ConnectError(OSError):
    """No path to the host (the relay refused, or every attempt failed)."""


@dataclass(frozen=True)
class PathTry:
    """What became of one kind of path (connect.md §4.1): ``result`` is ``won``,
    ``refused``, ``closed``, ``unreachable``, ``timed-out`` (after ``seconds``),
    ``failed`` or ``no-answer-yet`` (another path won first); ``via`` names the TURN
    relayed address or the relay of a won path."""

    path: str
    result: str
    seconds: float | None = None
    via: str | None = None

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"path": self.path, "result": self.result}
        if self.seconds is not None:
            out["seconds"] = round(self.seconds, 1)
        if self.via is not None:
            out["via"] = self.via
        return out


def _why(exc: BaseException) -> str:
    """A failed attempt in one word of :class:`PathTry`'s ``result``."""
    if isinstance(exc, trio.TooSlowError):
        return "timed-out"
    if isinstance(exc, ConnectionRefusedError) or getattr(exc, "errno", None) == errno.ECONNREFUSED:
        return "refused"
    if isinstance(exc, (RelayProtocolError, trio.BrokenResourceError, ConnectionResetError)):
        return "closed"
    if getattr(exc, "errno", None) in (errno.EHOSTUNREACH, errno.ENETUNREACH):
        return "unreachable"
    return "failed"


@dataclass(frozen=True)
class Incoming:
    """A connection ready for the game, and how it was made."""

    stream: trio.SocketStream
    path: str
    peer: Addr


def lan_addresses(port: int) -> list[Addr]:
    """This machine's IPv4 addresses that are not loopback, with ``port``."""
    out: list[Addr] = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            if isinstance(ip.ip, str) and not ip.ip.startswith("127."):
                out.append((ip.ip, port))
    return out[:8]


def _reusable(family: int) -> trio.socket.SocketType:
    sock = trio.socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if hasattr(socket, "SO_REUSEPORT"):  # not on Windows: no punching from a shared port there
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    return sock


async def _resolve(host: str, port: int) -> tuple[int, Addr]:
    infos = await trio.socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    if not infos:
        raise ConnectError(f"cannot resolve {host}")
    family, _, _, _, sockaddr = infos[0]
    return family, (str(sockaddr[0]), int(sockaddr[1]))


async def _connect_from(local_port: int | None, remote: Addr, family: int) -> trio.SocketStream:
    """Connect to ``remote``, from ``local_port`` shared with other sockets if given."""
    sock = _reusable(family)
    try:
        if local_port is not None:
            await sock.bind(("::" if family == socket.AF_INET6 else "0.0.0.0", local_port))
        await sock.connect(remote)
    except BaseException:
        sock.close()
        raise
    return trio.SocketStream(sock)


def _family_of(addr: Addr) -> int:
    return socket.AF_INET6 if ":" in addr[0] else socket.AF_INET


async def _open_relay(relay: tuple[str, int], timeout: float) -> trio.SocketStream:
    family, addr = await _resolve(*relay)
    with trio.move_on_after(timeout):
        stream = await _connect_from(0, addr, family)
        return stream
    raise ConnectError(f"no answer from the relay {host_port(*relay)} within {timeout:g} s")


async def _expect(stream: trio.SocketStream, want: int, timeout: float) -> bytes:
    with trio.fail_after(timeout):
        kind, body = await read_message(stream)
    if kind == Msg.ERROR:
        raise ConnectError("the relay says: " + relay_text(body))
    if kind != want:
        raise RelayProtocolError(f"expected message {want:#x}, got {kind:#x}")
    return body


# --------------------------------------------------------------------------- joiner


async def _probe(stream: trio.SocketStream, session: bytes, path: str) -> bytes:
    """Send the probe and return the host's answer letter: ``A``, or ``T`` on a
    direct attempt that reached the host through its TURN allocation."""
    probe = PROBE_MAGIC + session + _LETTER[path]
    await stream.send_all(probe)
    with trio.fail_after(PROBE_TIMEOUT):
        echo = await read_exactly(stream, len(probe))
    if echo[:-1] != probe[:-1] or echo[-1:] not in (b"A", b"T" if path == "direct" else b"A"):
        raise RelayProtocolError("bad probe answer")
    return echo[-1:]


async def connect(
    invite: Invite,
    *,
    connect_timeout: float = 15.0,
    direct_window: float = DIRECT_WINDOW,
    paths: frozenset[str] = frozenset(PATHS.values()),
    tries: list[PathTry] | None = None,
    turn: TurnServer | None = None,
    on_notice: Callable[[str], None] | None = None,
) -> tuple[trio.abc.Stream, str]:
    """Connect to the host of ``invite``; returns the stream and its path.

    Without a relay in the invite this is a plain TCP connection (``direct``).
    With one, the paths race as the module docstring says.  Raises
    :class:`ConnectError` (an ``OSError``) when nothing works within
    ``connect_timeout`` seconds.  ``paths`` limits the kinds of path tried
    (tests use it to force one); ``tries``, when given, is filled with what
    became of each kind of path (the winner's included), for "why relayed?".
    ``turn`` allocates a relayed address of the joiner's own on that TURN server
    and offers it to the host in JOIN (connect.md §11.1); a server that cannot be
    had is one ``on_notice`` line and the other paths go on.
    """
    tries = tries if tries is not None else []
    if invite.relay is None or invite.code is None:
        with trio.move_on_after(connect_timeout):
            return await trio.open_tcp_stream(invite.host, invite.port), "direct"
        raise TimeoutError(f"no answer within {connect_timeout:g} s")
    deadline = trio.current_time() + connect_timeout
    try:
        relay_stream = await _open_relay(invite.relay, min(connect_timeout, 10.0))
    except OSError as exc:
        # The relay is down: the invite's own address may still work (a LAN).
        with trio.move_on_after(connect_timeout):
            try:
                return await trio.open_tcp_stream(invite.host, invite.port), "direct"
            except OSError:
                pass
        raise ConnectError(f"cannot reach the relay: {exc}") from None
    own = await _own_allocation(turn, on_notice) if turn is not None else None
    winner: list[tuple[trio.SocketStream, str]] = []
    failures: list[str] = []
    try:
        code = invite.code.encode()
        offered = [own.allocation.relayed] if own is not None else []
        await relay_stream.send_all(
            MAGIC + encode(Msg.JOIN, bytes([len(code)]) + code + encode_addrs(offered))
        )
        meet = Meet.decode(await _expect(relay_stream, Msg.MEET, 10.0))
        relay = host_port(*invite.relay)
        race = _PathRace(relay_stream, meet, paths, direct_window, relay, own, winner, failures)
        await race.run(deadline)
        tries.extend(race.tries())
    except BaseException as exc:
        for stream, _ in winner:
            if stream is not relay_stream:
                await trio.aclose_forcefully(stream)
        await trio.aclose_forcefully(relay_stream)
        if own is not None:
            await own.aclose()
        if isinstance(exc, ConnectError) or not isinstance(exc, (*_NET_ERRORS, trio.TooSlowError)):
            raise
        raise ConnectError(f"no path to the host: {exc or type(exc).__name__}") from None
    if not winner:
        await relay_stream.aclose()
        if own is not None:
            await own.aclose()
        why = f" ({'; '.join(failures)})" if failures else ""
        raise ConnectError(f"no path to the host within {connect_timeout:g} s{why}")
    stream, path = winner[0]
    try:
        await stream.send_all(b"C")
    except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
        await stream.aclose()
        await relay_stream.aclose()
        if own is not None:
            await own.aclose()
        raise ConnectError(f"the {path} path broke right away: {exc}") from None
    if stream is not relay_stream:
        await relay_stream.aclose()
    if own is not None:
        if own.carries(stream):
            return _OwnTurnStream(stream, own), path  # the allocation lives with the game
        await own.aclose()
    return stream, path


class _OwnTurn:
    """The joiner's own TCP allocation, kept by a system task (it must outlive
    :func:`connect`, as long as the game's stream through it)."""

    def __init__(self, allocation: Allocation) -> None:
        self.allocation = allocation
        self.scope = trio.CancelScope()
        self.bound: list[trio.SocketStream] = []

    async def run(self) -> None:
        with self.scope, suppress(Exception):
            await self.allocation.run()

    def carries(self, stream: trio.SocketStream) -> bool:
        return any(stream is bound for bound in self.bound)

    async def aclose(self) -> None:
        self.scope.cancel()
        await self.allocation.aclose()


async def _own_allocation(
    turn: TurnServer, on_notice: Callable[[str], None] | None
) -> _OwnTurn | None:
    try:
        allocation = await allocate(turn, timeout=OWN_TURN_TIMEOUT)
    except TurnError as exc:
        if on_notice is not None:
            on_notice(Notice("turn-failed", error=exc.words))
        return None
    own = _OwnTurn(allocation)
    trio.lowlevel.spawn_system_task(own.run)
    return own


class _OwnTurnStream(trio.abc.HalfCloseableStream):
    """A data connection of the joiner's own allocation: closing it deletes the
    allocation too."""

    def __init__(self, stream: trio.SocketStream, own: _OwnTurn) -> None:
        self.stream = stream
        self._own = own

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await self.stream.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.stream.wait_send_all_might_not_block()

    async def send_eof(self) -> None:
        await self.stream.send_eof()

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        return await self.stream.receive_some(max_bytes)

    async def aclose(self) -> None:
        try:
            await self.stream.aclose()
        finally:
            await self._own.aclose()


@dataclass
class _PathRace:
    """One race of the kinds of path in ``paths`` to the host the relay met us with
    (``meet``): the first stream whose probe is answered goes into ``winner`` (any
    later one is closed); a relayed path that fails says why in ``failures``.  The
    relay path starts after ``direct_window`` seconds.  ``seen`` and ``direct_seen``
    keep the last failure's word of each path and direct address, ``via`` what a
    path went through; :meth:`tries` says what became of each kind of path."""

    relay_stream: trio.SocketStream
    meet: Meet
    paths: frozenset[str]
    direct_window: float
    relay: str
    own: _OwnTurn | None = None
    winner: list[tuple[trio.SocketStream, str]] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    seen: dict[str, str] = field(default_factory=dict)
    direct_seen: dict[Addr, str] = field(default_factory=dict)
    via: dict[str, str] = field(default_factory=dict)
    start: float = 0.0
    took: float = 0.0
    scope: trio.CancelScope = field(default_factory=trio.CancelScope)

    async def run(self, deadline: float) -> None:
        """Race the paths until one wins or ``deadline`` passes."""
        self.start = trio.current_time()
        meet = self.meet
        async with trio.open_nursery() as nursery:
            self.scope = nursery.cancel_scope
            if "direct" in self.paths:
                for addr in meet.peer_lan:
                    nursery.start_soon(self.try_direct, addr)
                if meet.peer not in meet.peer_lan:
                    nursery.start_soon(self.try_direct, meet.peer)
            if "punched" in self.paths:
                nursery.start_soon(self.try_punch)
            if "relayed" in self.paths:
                nursery.start_soon(self.try_relay)
            if self.own is not None and "turn" in self.paths:
                nursery.start_soon(self.try_own_turn, self.own)
            nursery.cancel_scope.deadline = deadline
        self.took = trio.current_time() - self.start

    async def won(self, stream: trio.SocketStream, path: str) -> None:
        if self.winner:
            await trio.aclose_forcefully(stream)
            return
        self.winner.append((stream, path))
        self.scope.cancel()

    async def try_direct(self, addr: Addr) -> None:
        give_up = self.start + self.direct_window
        while True:
            try:
                with trio.fail_after(3):
                    stream = await _connect_from(None, addr, _family_of(addr))
                try:
                    answer = await _probe(stream, self.meet.session, "direct")
                except BaseException:
                    await trio.aclose_forcefully(stream)
                    raise
            except (*_NET_ERRORS, trio.TooSlowError) as exc:
                self.direct_seen[addr] = _why(exc)
                if trio.current_time() + DIRECT_RETRY >= give_up:
                    return
                await trio.sleep(DIRECT_RETRY)
                continue
            break
        if answer == b"T":  # through the host's TURN allocation: after the others
            self.via["turn"] = host_port(*addr)
            self.direct_seen.pop(addr, None)  # its refusals were TURN's, before the permission
            try:
                await trio.sleep_until(give_up)
            except BaseException:
                await trio.aclose_forcefully(stream)
                raise
            await self.won(stream, "turn")
            return
        await self.won(stream, "direct")

    async def try_punch(self) -> None:
        local_port = int(self.relay_stream.socket.getsockname()[1])
        family = self.relay_stream.socket.family
        with trio.move_on_after(PUNCH_TIME):
            while True:
                try:
                    with trio.fail_after(1.5):
                        stream = await _connect_from(local_port, self.meet.peer, family)
                except (OSError, trio.TooSlowError) as exc:
                    self.seen["punched"] = _why(exc)
                    await trio.sleep(0.1)
                    continue
                with suppress(*_NET_ERRORS, trio.TooSlowError):
                    try:
                        await _probe(stream, self.meet.session, "punched")
                    except BaseException:
                        await trio.aclose_forcefully(stream)
                        raise
                    await self.won(stream, "punched")
                return

    async def try_relay(self) -> None:
        await trio.sleep(self.direct_window)
        if "turn" in self.via:
            return  # the host's TURN path answered: it wins now, no splice needed
        relay_stream = self.relay_stream
        try:
            await relay_stream.send_all(encode(Msg.SPLICE))
            await _expect(relay_stream, Msg.SPLICED, 35.0)
            await _probe(relay_stream, self.meet.session, "relayed")
        except (*_NET_ERRORS, trio.TooSlowError) as exc:
            self.failures.append(f"relay: {exc}")
            self.seen["relayed"] = _why(exc)
            return
        self.via["relayed"] = self.relay
        await self.won(relay_stream, "relayed")

    async def try_own_turn(self, own: _OwnTurn) -> None:
        """Our own allocation (connect.md §11.1): let the host's address in, bind
        the connection it makes to our relayed address, probe it with ``t``."""
        give_up, allocation = self.start + self.direct_window, own.allocation
        try:
            await allocation.permit(self.meet.peer[0])
            cid, _ = await allocation.attempts.receive()
            stream = await allocation.bind(cid)
        except (OSError, trio.EndOfChannel, *_NET_ERRORS):  # TurnError is an OSError
            return
        try:
            await _probe(stream, self.meet.session, "turn")
            self.via["turn"] = host_port(*allocation.relayed)
            await trio.sleep_until(give_up)
        except BaseException as exc:
            await trio.aclose_forcefully(stream)
            if isinstance(exc, (*_NET_ERRORS, trio.TooSlowError)):
                return
            raise
        own.bound.append(stream)
        await self.won(stream, "turn")

    def tries(self) -> list[PathTry]:
        """What became of each kind of path, the winner's included."""
        took, seen = self.took, self.seen
        won_path = self.winner[0][1] if self.winner else None
        if self.direct_seen:
            seen["direct"] = list(self.direct_seen.values())[-1]
        tries: list[PathTry] = []
        for path in ("direct", "punched", "turn", "relayed"):
            if path == won_path:
                tries.append(PathTry(path, "won", round(took, 1), self.via.get(path)))
            elif path == "turn":
                continue  # a host without TURN: nothing to say
            elif path in self.paths:
                word = seen.get(path, "timed-out")
                if path == "punched" and word != "timed-out":
                    word = "timed-out"  # punching retries: what counts is that no SYN met
                if word == "timed-out" and won_path is not None and took < self.direct_window:
                    word = "no-answer-yet"  # another path won before this one's time was up
                if path == "relayed" and path not in seen and won_path is not None:
                    continue  # not needed, or cut short: another path won first
                tries.append(PathTry(path, word, round(took, 1) if word == "timed-out" else None))
        return tries
