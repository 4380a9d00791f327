"""The host's side of reaching through NAT: its control connection to a relay
(:func:`open_rendezvous`, :class:`Rendezvous`), registered again with backoff
under the same code when it drops, and its half of the probes and punches.

The theory of operation is in :mod:`._connect` (``protocol_spec/connect.md``).
"""

from __future__ import annotations

import random
import secrets
import socket
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field

import trio

from truc_p2p.net._connect import (
    _NET_ERRORS,
    DIRECT_WINDOW,
    MAX_PROBES,
    MEETING_TIME,
    PATHS,
    PROBE_TIMEOUT,
    PUNCH_TIME,
    ConnectError,
    Incoming,
    _connect_from,
    _expect,
    _family_of,
    _open_relay,
)
from truc_p2p.net._invite import Invite, host_port
from truc_p2p.net._notice import Notice
from truc_p2p.net._register import OtherCode, Registration, register, register_patiently
from truc_p2p.net._relay_wire import (
    CLAIM_LEN,
    MAGIC,
    PROBE_MAGIC,
    REPLACED,
    SESSION_LEN,
    Addr,
    Meet,
    Msg,
    RelayProtocolError,
    code_for_claim,
    encode,
    read_exactly,
    read_message,
    relay_text,
)
from truc_p2p.net._turn import Allocation, TurnAuthError, TurnError, TurnServer, allocate

__all__ = ["Rendezvous", "open_rendezvous"]

#: Seconds between PINGs on the host's control connection (keeps NAT mappings too).
PING_INTERVAL = 25.0
#: Seconds past a PING interval without a word from the relay that end a control connection.
PONG_TIMEOUT = 15.0
#: The first delay (at most; jittered) before registering again after a lost control
#: connection; it doubles up to :data:`REREGISTER_MAX`.
REREGISTER_FIRST = 1.0
REREGISTER_MAX = 60.0
#: Addresses of a JOIN (the joiner's own TURN relayed address) the host connects to.
MAX_OFFERED = 2
#: Seconds a host waits for its TURN allocation before registering without it.
TURN_TIMEOUT = 5.0


# --------------------------------------------------------------------------- host


@dataclass(eq=False)
class _Pending:
    meet: Meet
    resolved: trio.CancelScope = field(default_factory=trio.CancelScope)


class Rendezvous:
    """A host's registration with a relay; :meth:`accept` yields game connections.

    When the control connection drops (the relay restarted, a NAT forgot the
    mapping, no ``PONG`` for :data:`PONG_TIMEOUT` seconds after a ``PING``), the
    host registers again with the same claim, so the same code and the printed
    invite stay valid: first after up to :data:`REREGISTER_FIRST` seconds, then
    with the delay doubling up to :data:`REREGISTER_MAX` (each delay jittered
    down to half, so the hosts of a restarted relay do not all come back at
    once).  It stops only when the relay says another registration with the
    same claim replaced this one.  ``on_notice`` hears the loss and the return.
    """

    def __init__(
        self,
        relay: tuple[str, int],
        claim: bytes,
        *,
        on_notice: Callable[[str], None] | None = None,
        turn: TurnServer | None = None,
    ) -> None:
        self.relay = relay
        self.claim = claim
        #: The TURN server a joiner may reach us through (connect.md §11), its live
        #: allocation (``None``: none now) and why there is none (one line).
        self.turn_server = turn
        self.turn: Allocation | None = None
        self.turn_failed: str | None = None
        self.turn_refused = False
        #: True while the control connection is closed to announce a new relayed address.
        self._moving = False
        #: Set when no TURN allocation is under way (:meth:`_run` waits for it to register).
        self._turn_ready = trio.Event()
        self._turn_ready.set()
        #: The extra addresses of the current registration.
        self._registered_extra: list[Addr] = []
        #: The code in the invite (derived from the claim, the same for every registration).
        self.code = code_for_claim(claim)
        #: The host's address and port as the relay sees them (``None`` before registering).
        self.observed: Addr | None = None
        self.on_notice = on_notice
        self.local_port = 0
        self.family = socket.AF_INET
        self._pending: dict[bytes, _Pending] = {}
        self._tx, self._rx = trio.open_memory_channel[Incoming](0)
        #: Why the control connection to the relay ended (``None`` while it is up).
        self.lost: str | None = None
        #: Set when the control connection ended (see :attr:`lost`).
        self.lost_event = trio.Event()
        #: Successful registrations so far (the first one included).
        self.registrations = 0
        #: Set (and replaced by a fresh event) each time a registration succeeds.
        self.registered_event = trio.Event()
        #: True once the relay said a newer registration took the code: no more tries.
        self.replaced = False
        self._probes = 0
        #: The signed lobby listing (``LIST`` body) sent after each registration, if any.
        self.listing: bytes | None = None
        #: Why the relay last refused the listing (``None``: listed or not asked).
        self.unlisted_because: str | None = None
        #: True once a relay closed the control connection on our LIST (no lobby there).
        self.no_lobby = False
        self._list_unanswered = False
        self._control: trio.SocketStream | None = None
        self._send_lock = trio.Lock()

    async def set_listing(self, listing: bytes | None) -> None:
        """List the game in the relay's lobby (``listing``: a signed ``LIST`` body) or
        take it off (``None``); kept across registrations, renewed by each ``PING``."""
        if listing == self.listing or self.no_lobby:
            return
        self.listing = listing
        if self._control is not None:
            with suppress(*_NET_ERRORS):  # a lost control connection lists it again later
                await self._send_list(self._control)

    async def _send_list(self, stream: trio.SocketStream) -> None:
        self._list_unanswered = True
        await self._send(stream, encode(Msg.LIST, self.listing or b""))

    async def _send(self, stream: trio.SocketStream, data: bytes) -> None:
        async with self._send_lock:
            await stream.send_all(data)

    def _extra(self) -> list[Addr]:
        """The TURN relayed address, announced at the end of REGISTER's addresses."""
        turn = self.turn
        return [turn.relayed] if turn is not None and turn.lost is None else []

    async def _allocate(self, server: TurnServer) -> Allocation | None:
        try:
            allocation = await allocate(server, timeout=TURN_TIMEOUT)
        except TurnError as exc:
            self.turn_failed = exc.words
            self.turn_refused = isinstance(exc, TurnAuthError)
            return None
        self.turn_failed = None
        return allocation

    async def _keep_turn(self, nursery: trio.Nursery, server: TurnServer) -> None:
        """Serve the allocation's connection attempts; when it is lost, allocate
        again with backoff and register again, so the next MEET names the new
        relayed address.  A refused credential is not tried again."""
        delay = REREGISTER_FIRST
        try:
            while True:
                allocation = self.turn
                if allocation is not None:
                    async with trio.open_nursery() as inner:
                        inner.start_soon(self._turn_attempts, nursery, allocation)
                        await allocation.run()
                        inner.cancel_scope.cancel()
                    self.turn = None
                    # Leave the relay until the new allocation is known: a joiner
                    # redialling meanwhile is told the code is unknown and tries again,
                    # rather than meeting the old relayed address.
                    self._turn_ready = trio.Event()
                    await self._move()
                    await allocation.aclose()
                    self._notice(
                        Notice("turn-lost", server=str(server), error=allocation.lost or "")
                    )
                    delay = 0.0  # the first try at once: a joiner is redialling now
                if self.turn_refused:
                    return
                await trio.sleep(delay * random.uniform(0.5, 1.0))
                delay = min(max(delay * 2, REREGISTER_FIRST), REREGISTER_MAX)
                self.turn = await self._allocate(server)
                self._turn_ready.set()
                if self.turn is None:
                    continue
                self._notice(
                    Notice(
                        "turn-allocated", server=str(server), address=host_port(*self.turn.relayed)
                    )
                )
                if self._registered_extra != self._extra():
                    await self._move()  # announce the new relayed address (same code)
        finally:
            self._turn_ready.set()
            if self.turn is not None:
                await self.turn.aclose()

    async def _move(self) -> None:
        """Close the control connection so that :meth:`_run` registers again at
        once (after the TURN allocation is settled), with no loss to tell."""
        if self._control is not None:
            self._moving = True
            await trio.aclose_forcefully(self._control)

    async def _turn_attempts(self, nursery: trio.Nursery, allocation: Allocation) -> None:
        async for connection_id, _peer in allocation.attempts:
            nursery.start_soon(self._bind_turn, allocation, connection_id)

    async def _bind_turn(self, allocation: Allocation, connection_id: bytes) -> None:
        if self._probes >= MAX_PROBES:  # the TURN server is untrusted too: bounded
            return
        try:
            stream = await allocation.bind(connection_id)
        except TurnError:
            return
        await self._answer_probe(stream, via_turn=True)

    def invite(self, base: Invite) -> Invite:
        """``base`` (the direct address) with this relay and code added."""
        return Invite(base.host, base.port, base.fingerprint, relay=self.relay, code=self.code)

    async def accept(self) -> Incoming:
        """The next connection whose probe was committed (its path is known)."""
        return await self._rx.receive()

    def _notice(self, text: str) -> None:
        if self.on_notice is not None:
            self.on_notice(text)

    def _use(self, registration: Registration) -> None:
        self._registered_extra = registration.extra
        self.observed = registration.observed
        self.local_port = registration.port
        self.family = registration.control.socket.family
        self.lost = None
        self.lost_event = trio.Event()
        self.registrations += 1
        self.registered_event.set()
        self.registered_event = trio.Event()

    async def _run(self, nursery: trio.Nursery, first: Registration | None) -> None:
        """Serve MEETs, registering again whenever the control connection drops.
        Games already connected (direct, punched, relayed) do not depend on it."""
        registration = first  # already in use (open_rendezvous)
        delay = REREGISTER_FIRST
        while True:
            if registration is None:
                got = await self._register_again(delay)
                if got is None:
                    return
                registration, delay = got
                self._use(registration)
            since = trio.current_time()
            await self._serve(nursery, registration)
            registration = None
            if trio.current_time() - since >= REREGISTER_MAX:
                delay = REREGISTER_FIRST  # a flapping relay keeps the grown delay
            if self._moving:  # closed by us for a new TURN address: no loss to tell
                self._moving, self.lost, delay = False, None, 0.0
                with trio.move_on_after(TURN_TIMEOUT + 1):
                    await self._turn_ready.wait()
                continue
            self.lost = self.lost or Notice("relay-closed")
            self.lost_event.set()
            if self._list_unanswered and self.listing is not None:
                # A relay without a lobby closes the connection on LIST: not again.
                self._list_unanswered = False
                self.listing, self.no_lobby = None, True
                self._notice(Notice("relay-no-lobby"))
            if self.replaced:
                self._notice(Notice("relay-replaced", relay=host_port(*self.relay)))
                return
            self._notice(Notice("relay-lost", error=self.lost))

    async def _register_again(self, delay: float) -> tuple[Registration, float] | None:
        """Register with backoff from ``delay`` until it works; returns the registration
        and the next delay (``None``: the code is gone for good)."""
        started = trio.current_time()
        told = ""
        while True:
            await trio.sleep(delay * random.uniform(0.5, 1.0))
            delay = min(max(delay * 2, REREGISTER_FIRST), REREGISTER_MAX)
            try:
                registration = await register(self.relay, self.claim, 10.0, self._extra())
            except OSError as exc:  # ConnectError and the like
                reason = str(exc)
                if isinstance(exc, OtherCode):
                    self._notice(Notice("relay-codes-gone", error=reason))
                    return None
                if reason.startswith("the relay says") and reason != told:
                    told = reason  # a refusal (e.g. relay full): say it once, keep trying
                    self._notice(Notice("relay-refused-again", error=reason))
                continue
            self._notice(
                Notice(
                    "relay-registered-again",
                    seconds=f"{trio.current_time() - started:.1f}",
                    code=self.code,
                )
            )
            return registration, delay

    async def _serve(self, nursery: trio.Nursery, registration: Registration) -> None:
        async with (
            registration.control,
            registration.listener,
            trio.open_nursery() as control,
        ):
            control.start_soon(self._listen, nursery, registration.listener)
            control.start_soon(self._ping, registration.control, control.cancel_scope)
            try:
                self._control = registration.control
                if self.listing is not None:
                    await self._send_list(registration.control)
                await self._read_control(nursery, registration.control)
            except (*_NET_ERRORS, trio.TooSlowError) as exc:
                if isinstance(exc, trio.TooSlowError):
                    self.lost = Notice("relay-silent", seconds=f"{PING_INTERVAL + PONG_TIMEOUT:g}")
                else:
                    self.lost = str(exc) or type(exc).__name__
            finally:
                self._control = None
            control.cancel_scope.cancel()

    async def _read_control(self, nursery: trio.Nursery, stream: trio.SocketStream) -> None:
        while True:
            # The relay answers every PING: silence past one PING and its answer is a
            # dead connection (a NAT that dropped the mapping sends no RST).
            with trio.fail_after(PING_INTERVAL + PONG_TIMEOUT):
                kind, body = await read_message(stream)
            if kind == Msg.MEET:
                meet = Meet.decode(body)
                pending = _Pending(meet)
                self._pending[meet.session] = pending
                nursery.start_soon(self._meeting, nursery, pending)
            elif kind == Msg.ERROR:
                reason = relay_text(body)
                self.replaced = reason == REPLACED
                raise ConnectError("the relay says: " + reason)
            elif kind == Msg.LISTED:
                self._list_unanswered = False
                refusal = relay_text(body) or None
                if refusal is not None and refusal != self.unlisted_because:
                    self._notice(Notice("relay-unlisted", reason=refusal))
                self.unlisted_because = refusal
            elif kind != Msg.PONG:
                raise RelayProtocolError(f"unexpected message {kind:#x} from the relay")

    async def _ping(self, stream: trio.SocketStream, scope: trio.CancelScope) -> None:
        while True:
            await trio.sleep(PING_INTERVAL)
            try:
                await self._send(stream, encode(Msg.PING))
            except _NET_ERRORS as exc:
                self.lost = str(exc) or type(exc).__name__
                scope.cancel()
                return

    async def _listen(self, nursery: trio.Nursery, listener: trio.SocketListener) -> None:
        while True:
            try:
                stream = await listener.accept()
            except OSError:  # out of file descriptors and the like: try again later
                await trio.sleep(0.5)
                continue
            if self._probes >= MAX_PROBES:
                await trio.aclose_forcefully(stream)
                continue
            nursery.start_soon(self._answer_probe, stream)

    async def _meeting(self, nursery: trio.Nursery, pending: _Pending) -> None:
        """Punch towards the joiner and attach to the relay, until one path commits."""
        try:
            # The session stays open for probes until one commits or the joiner must
            # have given up, even when punching and attaching are over.
            with pending.resolved, trio.move_on_after(MEETING_TIME):
                async with trio.open_nursery() as inner:
                    inner.start_soon(self._punch, nursery, pending.meet.peer)
                    for offered in pending.meet.peer_lan[:MAX_OFFERED]:
                        inner.start_soon(self._reach_out, nursery, offered)
                    if self.turn is not None:
                        inner.start_soon(self._permit, self.turn, pending.meet.peer[0])
                    inner.start_soon(self._attach, nursery, pending.meet.session)
                    inner.start_soon(trio.sleep_forever)
        finally:
            self._pending.pop(pending.meet.session, None)

    async def _reach_out(self, nursery: trio.Nursery, addr: Addr) -> None:
        """Connect to an address the joiner offered in JOIN (its own TURN relayed
        address, connect.md §11.1), again every 0.25 s while it is refused (the
        joiner's permission may come a moment later), and answer its probe."""
        with trio.move_on_after(DIRECT_WINDOW + 2):
            while True:
                try:
                    with trio.fail_after(3):
                        stream = await _connect_from(None, addr, _family_of(addr))
                except (OSError, trio.TooSlowError):
                    await trio.sleep(0.25)
                    continue
                # coturn may accept and close at once, before the permission is in.
                # The answer runs in the host's nursery: a commit ends this meeting.
                answered: list[bool] = []
                done = trio.Event()
                nursery.start_soon(self._answer_and_tell, stream, answered, done)
                await done.wait()
                if answered and answered[0]:
                    return
                await trio.sleep(0.25)

    async def _answer_and_tell(
        self, stream: trio.SocketStream, answered: list[bool], done: trio.Event
    ) -> None:
        try:
            answered.append(await self._answer_probe(stream))
        finally:
            done.set()

    async def _permit(self, allocation: Allocation, ip: str) -> None:
        with suppress(TurnError):
            await allocation.permit(ip)

    async def _punch(self, nursery: trio.Nursery, peer: Addr) -> None:
        with trio.move_on_after(PUNCH_TIME):
            while True:
                try:
                    with trio.fail_after(1.5):
                        stream = await _connect_from(self.local_port, peer, self.family)
                except (OSError, trio.TooSlowError):
                    await trio.sleep(0.1)
                    continue
                nursery.start_soon(self._answer_probe, stream)
                return

    async def _attach(self, nursery: trio.Nursery, session: bytes) -> None:
        try:
            stream = await _open_relay(self.relay, 5)
        except _NET_ERRORS:
            return
        try:
            await stream.send_all(MAGIC + encode(Msg.ATTACH, session))
            await _expect(stream, Msg.SPLICED, DIRECT_WINDOW + 30)
        except BaseException as exc:
            await trio.aclose_forcefully(stream)
            if isinstance(exc, (*_NET_ERRORS, trio.TooSlowError)):
                return
            raise
        nursery.start_soon(self._answer_probe, stream)

    async def _answer_probe(self, stream: trio.SocketStream, via_turn: bool = False) -> bool:
        """Echo a valid probe, wait for the commit, hand the stream to :meth:`accept`
        (``True``; ``False``: no valid probe and commit came, the stream is closed).
        A stream that came through our TURN allocation (``via_turn``) is answered
        ``T`` rather than ``A``, so the joiner knows its path too (connect.md §3)."""
        handed = False
        self._probes += 1
        try:
            peer = (str(stream.socket.getpeername()[0]), int(stream.socket.getpeername()[1]))
            with trio.fail_after(PROBE_TIMEOUT):
                probe = await read_exactly(stream, len(PROBE_MAGIC) + SESSION_LEN + 1)
            session = probe[len(PROBE_MAGIC) : -1]
            path = PATHS.get(probe[-1:])
            pending = self._pending.get(session)
            if not probe.startswith(PROBE_MAGIC) or path is None or pending is None:
                raise RelayProtocolError("bad probe")
            if path in ("relayed", "turn") or via_turn:
                peer = pending.meet.peer  # the joiner, not the relay or the TURN server
            if via_turn:
                path = "turn"
            await stream.send_all(probe[:-1] + (b"T" if via_turn else b"A"))
            with trio.fail_after(PROBE_TIMEOUT):
                commit = await read_exactly(stream, 1)
            if commit != b"C" or session not in self._pending:
                raise RelayProtocolError("bad commit")
            pending.resolved.cancel()
            self._pending.pop(session, None)
            await self._tx.send(Incoming(stream, path, peer))
            handed = True
        except (*_NET_ERRORS, trio.TooSlowError):
            return False
        finally:
            self._probes -= 1
            if not handed:
                await trio.aclose_forcefully(stream)
        return True


@asynccontextmanager
async def open_rendezvous(
    relay: tuple[str, int],
    *,
    timeout: float = 10.0,
    claim: bytes | None = None,
    on_notice: Callable[[str], None] | None = None,
    required: bool = True,
    turn: TurnServer | None = None,
) -> AsyncIterator[Rendezvous]:
    """Register with ``relay`` (host, port) and listen on the same local port.

    ``claim`` (:data:`CLAIM_LEN` bytes, fresh random by default) fixes the
    code (:func:`~._relay_wire.code_for_claim`); the same claim registers the
    same code again, after a dropped control connection or in a resumed host.
    Raises :class:`ConnectError` (an ``OSError``) when the relay cannot be
    reached or refuses for :data:`FIRST_REGISTRATION_PATIENCE` seconds (tried
    again with backoff meanwhile), unless not ``required``: then the first
    registration is retried in the background like a lost one.  ``turn`` allocates a
    TCP relayed address there first (connect.md §11): one that cannot be had says
    why in one notice, and the host goes on without it.  Leaving the block closes
    everything.
    """
    claim = secrets.token_bytes(CLAIM_LEN) if claim is None else claim
    rendezvous = Rendezvous(relay, claim, on_notice=on_notice, turn=turn)
    if turn is not None:
        rendezvous.turn = await rendezvous._allocate(turn)
        if rendezvous.turn is not None:
            rendezvous._notice(
                Notice(
                    "turn-allocated", server=str(turn), address=host_port(*rendezvous.turn.relayed)
                )
            )
        else:
            rendezvous._notice(Notice("turn-failed", error=rendezvous.turn_failed or ""))
    first: Registration | None
    try:
        first = await register_patiently(
            relay, claim, timeout, rendezvous._extra(), rendezvous._notice, required=required
        )
    except OSError as exc:
        if required:
            if rendezvous.turn is not None:
                await rendezvous.turn.aclose()
            raise
        first = None
        rendezvous.lost = str(exc)
        if isinstance(exc, OtherCode):
            rendezvous.replaced = True  # nothing to come back to
            rendezvous._notice(Notice("relay-no-codes", error=str(exc)))
        else:
            rendezvous._notice(Notice("relay-background", error=str(exc)))
    if first is not None:
        rendezvous._use(first)
    try:
        async with trio.open_nursery() as nursery:
            if not rendezvous.replaced:
                nursery.start_soon(rendezvous._run, nursery, first)
            if turn is not None:
                nursery.start_soon(rendezvous._keep_turn, nursery, turn)
            first = None  # _run owns it now
            try:
                yield rendezvous
            finally:
                nursery.cancel_scope.cancel()
                rendezvous._tx.close()
                while True:
                    try:
                        leftover = rendezvous._rx.receive_nowait()
                    except (trio.WouldBlock, trio.EndOfChannel):
                        break
                    with suppress(*_NET_ERRORS):
                        await leftover.stream.aclose()
    finally:
        if rendezvous.turn is not None:
            await rendezvous.turn.aclose()
        if first is not None:
            await trio.aclose_forcefully(first.listener)
            await trio.aclose_forcefully(first.control)
