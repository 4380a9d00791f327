"""A TURN client over TCP with TCP allocations (RFC 6062 on RFC 8656), in trio.

Theory of operation (``protocol_spec/connect.md`` §11).  :func:`open_allocation`
opens the **control connection** to the server and sends Allocate with
REQUESTED-TRANSPORT TCP; the server's 401 gives REALM and NONCE, and every
request after that carries USERNAME, REALM, NONCE and MESSAGE-INTEGRITY keyed by
the long-term key (a 438 stale nonce is retried once with the new nonce).  The
success gives the **relayed address**: a TCP port on the server that peers can
connect to.  :meth:`Allocation.permit` (CreatePermission) lets one peer IP in;
each peer connection the server accepts arrives as a ConnectionAttempt
indication with a CONNECTION-ID, and :meth:`Allocation.bind` opens a **data
connection** to the server and sends ConnectionBind with that id: after its
success the connection carries the peer's bytes unchanged.  :meth:`Allocation.connect`
(Connect) asks the server to dial a peer instead.  A refresh task renews the
allocation at half its lifetime and the permissions every 4 minutes; leaving
the block deletes the allocation (Refresh with LIFETIME 0).

The server is untrusted like the relay: it sees the bytes, and the game is
signed end to end.  Nothing here prints or logs the password.
"""

from __future__ import annotations

import secrets
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field

import trio

from truc_p2p._text import printable
from truc_p2p.net._invite import host_port
from truc_p2p.net._notice import Notice, os_error_facts
from truc_p2p.net._relay_wire import Addr, RelayProtocolError, read_exactly
from truc_p2p.net._saslprep import SaslprepError, saslprep
from truc_p2p.net._stun import (
    ALLOCATE,
    CONNECT,
    CONNECTION_ATTEMPT,
    CONNECTION_BIND,
    CREATE_PERMISSION,
    ERROR,
    HEADER,
    INDICATION,
    REFRESH,
    REQUEST,
    SUCCESS,
    TCP,
    Attr,
    Message,
    StunError,
    long_term_key,
    message_length,
    xor_address,
)

__all__ = [
    "DEFAULT_TURN_PORT",
    "Allocation",
    "TurnAuthError",
    "TurnError",
    "TurnServer",
    "allocate",
    "open_allocation",
    "parse_turn_url",
]

DEFAULT_TURN_PORT = 3478
#: Seconds for one request's answer (TCP: no retransmissions).
REQUEST_TIMEOUT = 5.0
#: The allocation lifetime asked for (RFC 8656's default); refreshed at half of it.
LIFETIME = 600
#: Permissions last 300 s (RFC 8656 §9); renewed this often.
PERMISSION_REFRESH = 240.0
#: Peer IPs kept permitted at most (the most recent ones).
MAX_PERMISSIONS = 16
_NET = (OSError, trio.BrokenResourceError, trio.ClosedResourceError, RelayProtocolError, StunError)


class TurnError(OSError):
    """The TURN server cannot be reached, refused us, or answered nonsense (one line).

    Its argument is a :class:`~truc_p2p.net.Notice` (``turn-auth``, ``turn-refused``,
    ``turn-unreachable``, ``turn-timeout``, ``turn-unresolved``, ``turn-closed``,
    ``turn-broken``): :attr:`words` keeps it, so a screen says it in the player's
    language, where ``str()`` is the English sentence.
    """

    @property
    def words(self) -> str:
        """The error as a notice (a ``str``: its English sentence)."""
        first = self.args[0] if self.args else ""
        return first if isinstance(first, str) else str(self)


class TurnAuthError(TurnError):
    """The TURN server refused the user name or password (401, 441): not tried again."""


@dataclass(frozen=True)
class TurnServer:
    """Where the TURN server is and the long-term credential (never shown).

    The user name and password go through SASLprep (RFC 4013; connect.md §11)
    before they are sent or keyed: one SASLprep refuses is a :class:`SaslprepError`
    (a ``ValueError``) here, whose message never shows the password's characters.
    """

    host: str
    port: int = DEFAULT_TURN_PORT
    username: str = ""
    password: str = field(default="", repr=False)

    def __post_init__(self) -> None:
        self.credential()

    def credential(self) -> tuple[str, str]:
        """The user name and password as SASLprep prepares them."""
        try:
            username = saslprep(self.username)
        except SaslprepError as exc:
            raise SaslprepError(
                exc.reason, f"the TURN user name is refused by SASLprep (RFC 4013): {exc}"
            ) from None
        try:
            password = saslprep(self.password)
        except SaslprepError as exc:
            raise SaslprepError(
                exc.reason, f"the TURN password is refused by SASLprep (RFC 4013): {exc.what}"
            ) from None
        return username, password

    def __str__(self) -> str:
        return host_port(self.host, self.port)


def parse_turn_url(text: str) -> tuple[str, int]:
    """``turn:HOST[:PORT][?transport=tcp]`` (RFC 7065) → (host, port); ValueError."""
    rest = text.strip()
    if not rest.lower().startswith("turn:"):
        raise ValueError(f"{text!r} is not a turn: URL (turn:HOST:PORT)")
    rest, _, query = rest[5:].partition("?")
    if query and query.lower() not in ("transport=tcp",):
        raise ValueError("only ?transport=tcp is supported (RFC 6062 needs TCP)")
    if rest.startswith("["):
        host, _, tail = rest[1:].partition("]")
        port_text = tail[1:] if tail.startswith(":") else ""
    elif rest.count(":") == 1:
        host, port_text = rest.split(":")
    else:
        host, port_text = rest, ""
    if not host:
        raise ValueError(f"{text!r} names no host")
    try:
        port = int(port_text) if port_text else DEFAULT_TURN_PORT
    except ValueError:
        raise ValueError(f"bad port in {text!r}") from None
    if not 0 < port < 65536:
        raise ValueError(f"bad port in {text!r}")
    return host, port


async def _read_stun(stream: trio.abc.ReceiveStream) -> tuple[Message, bytes]:
    header = await read_exactly(stream, HEADER)
    raw = header + await read_exactly(stream, message_length(header) - HEADER)
    return Message.decode(raw), raw


def _txid() -> bytes:
    return secrets.token_bytes(12)


class Allocation:
    """One TCP allocation on a TURN server (made by :func:`open_allocation`)."""

    def __init__(self, server: TurnServer, address: tuple[int, Addr]) -> None:
        self.server = server
        self._family, self._address = address
        #: The relayed transport address (peers connect here), and ours as the server saw it.
        self.relayed: Addr = ("0.0.0.0", 0)
        self.mapped: Addr | None = None
        self.lifetime = LIFETIME
        #: Why the control connection ended (``None`` while it is up), and when.
        self.lost: str | None = None
        self.lost_event = trio.Event()
        self._control: trio.SocketStream | None = None
        self._realm = ""
        self._nonce = b""
        self._key: bytes | None = None
        self._waiting: dict[bytes, trio.MemorySendChannel[tuple[Message, bytes]]] = {}
        self._lock = trio.Lock()
        self._attempts_tx, self.attempts = trio.open_memory_channel[tuple[bytes, Addr]](16)
        self._permitted: dict[str, float] = {}

    def __str__(self) -> str:
        return str(self.server)

    # ------------------------------------------------------------------ requests

    def _auth(self, msg: Message) -> bytes:
        if self._key is None:
            return msg.encode()
        attrs = (
            *msg.attrs,
            (Attr.USERNAME, self.server.credential()[0].encode()),
            (Attr.REALM, self._realm.encode()),
            (Attr.NONCE, self._nonce),
        )
        return Message(msg.method, msg.cls, msg.txid, attrs).encode(self._key)

    def _learn_challenge(self, answer: Message) -> None:
        realm, nonce = answer.text(Attr.REALM), answer.get(Attr.NONCE)
        if nonce is None:
            raise TurnError(Notice("turn-broken", server=str(self.server), detail="no NONCE"))
        if realm is not None:
            self._realm = realm
        self._nonce = nonce
        username, password = self.server.credential()
        self._key = long_term_key(username, self._realm, password)

    async def _exchange(
        self, stream: trio.SocketStream, raw: bytes, txid: bytes, *, direct: bool
    ) -> tuple[Message, bytes]:
        if direct:  # a data connection: nobody else reads it
            await stream.send_all(raw)
            with trio.fail_after(REQUEST_TIMEOUT):
                while True:
                    answer, got = await _read_stun(stream)
                    if answer.txid == txid:
                        return answer, got
        tx, rx = trio.open_memory_channel[tuple[Message, bytes]](1)
        self._waiting[txid] = tx
        try:
            async with self._lock:
                await stream.send_all(raw)
            with trio.fail_after(REQUEST_TIMEOUT):
                return await rx.receive()
        finally:
            self._waiting.pop(txid, None)

    async def request(
        self,
        method: int,
        attrs: tuple[tuple[int, bytes], ...] = (),
        *,
        peer: Addr | None = None,
        stream: trio.SocketStream | None = None,
    ) -> Message:
        """Send a request (authenticated once the realm is known) and return the
        success; :class:`TurnError` for an error answer, with its code and reason.
        ``peer`` adds XOR-PEER-ADDRESS; ``stream`` sends on a connection nobody else
        reads (the Allocate, a ConnectionBind) instead of the control connection."""
        on = stream if stream is not None else self._control
        if on is None:
            raise TurnError(Notice("turn-closed", server=str(self.server)))
        for attempt in range(3):
            txid = _txid()
            extra = () if peer is None else ((Attr.XOR_PEER_ADDRESS, xor_address(*peer, txid)),)
            msg = Message(method, REQUEST, txid, (*attrs, *extra))
            try:
                answer, raw = await self._exchange(
                    on, self._auth(msg), txid, direct=stream is not None
                )
            except trio.TooSlowError:
                raise TurnError(
                    Notice("turn-timeout", server=str(self.server), seconds=f"{REQUEST_TIMEOUT:g}")
                ) from None
            except _NET as exc:
                raise TurnError(_net_notice(str(self.server), exc)) from None
            if answer.method != method or answer.cls not in (SUCCESS, ERROR):
                raise TurnError(
                    Notice("turn-broken", server=str(self.server), detail="an answer out of turn")
                )
            if answer.cls == SUCCESS:
                if self._key is not None and not answer.check_integrity(raw, self._key):
                    raise TurnError(
                        Notice("turn-broken", server=str(self.server), detail="an unsigned answer")
                    )
                return answer
            try:
                code, reason = answer.error()
            except StunError as exc:
                raise TurnError(
                    Notice("turn-broken", server=str(self.server), detail=str(exc))
                ) from None
            if code == 401 and self._key is None and attempt == 0:
                self._learn_challenge(answer)
                continue
            if code == 438 and attempt < 2:
                self._learn_challenge(answer)
                continue
            if code in (401, 441):
                raise TurnAuthError(
                    Notice(
                        "turn-auth", server=str(self.server), code=code, reason=_printable(reason)
                    )
                )
            raise TurnError(
                Notice(
                    "turn-refused", server=str(self.server), code=code, reason=_printable(reason)
                )
            )
        raise TurnAuthError(Notice("turn-auth-again", server=str(self.server)))

    # ------------------------------------------------------------------ the API

    async def permit(self, ip: str) -> None:
        """CreatePermission for ``ip`` (renewed by the refresh task while kept)."""
        self._permitted[ip] = trio.current_time()
        while len(self._permitted) > MAX_PERMISSIONS:
            del self._permitted[min(self._permitted, key=self._permitted.__getitem__)]
        await self.request(CREATE_PERMISSION, peer=(ip, 0))

    async def connect(self, peer: Addr) -> bytes:
        """Connect (RFC 6062 §4.3): the server dials ``peer``; returns the CONNECTION-ID
        to :meth:`bind`."""
        answer = await self.request(CONNECT, peer=peer)
        cid = answer.get(Attr.CONNECTION_ID)
        if cid is None or len(cid) != 4:
            raise TurnError(
                Notice("turn-broken", server=str(self.server), detail="no CONNECTION-ID")
            )
        return cid

    async def bind(self, connection_id: bytes) -> trio.SocketStream:
        """A new data connection bound to ``connection_id``: raw peer bytes from now on."""
        try:
            with trio.fail_after(REQUEST_TIMEOUT):
                stream = await _open(self._family, self._address)
        except (OSError, trio.TooSlowError) as exc:
            raise TurnError(_unreachable(str(self.server), exc, REQUEST_TIMEOUT)) from None
        try:
            await self.request(
                CONNECTION_BIND, ((Attr.CONNECTION_ID, connection_id),), stream=stream
            )
        except BaseException:
            await trio.aclose_forcefully(stream)
            raise
        return stream

    # ------------------------------------------------------------------ tasks

    async def run(self) -> None:
        """Read the control connection and refresh, until it is lost (:attr:`lost`)."""
        control = self._control
        if control is None:
            return
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._refresh)
            await self._read_control(control)
            nursery.cancel_scope.cancel()

    async def aclose(self) -> None:
        """Delete the allocation (Refresh with LIFETIME 0) and close the connection."""
        control, self._control = self._control, None
        if control is None:
            return
        if self.lost is None:
            delete = Message(REFRESH, REQUEST, _txid(), ((Attr.LIFETIME, bytes(4)),))
            with trio.move_on_after(1, shield=True), suppress(*_NET):
                async with self._lock:
                    await control.send_all(self._auth(delete))
        self.lost = self.lost or Notice("turn-closed", server=str(self.server))
        self.lost_event.set()
        await trio.aclose_forcefully(control)

    async def _read_control(self, control: trio.SocketStream) -> None:
        try:
            while True:
                msg, raw = await _read_stun(control)
                if msg.cls == INDICATION and msg.method == CONNECTION_ATTEMPT:
                    cid, peer = msg.get(Attr.CONNECTION_ID), msg.address(Attr.XOR_PEER_ADDRESS)
                    if cid is None or len(cid) != 4 or peer is None:
                        raise StunError("bad ConnectionAttempt")
                    with suppress(trio.WouldBlock):  # a flood of attempts: drop the excess
                        self._attempts_tx.send_nowait((cid, peer))
                    continue
                waiter = self._waiting.get(msg.txid)
                if waiter is not None:
                    with suppress(trio.WouldBlock, trio.BrokenResourceError):
                        waiter.send_nowait((msg, raw))
        except _NET as exc:
            self.lost = _net_notice(str(self.server), exc)
        finally:
            self.lost = self.lost or Notice("turn-closed", server=str(self.server))
            self.lost_event.set()
            self._attempts_tx.close()

    async def _refresh(self) -> None:
        next_allocation = trio.current_time() + self.lifetime / 2
        next_permissions = trio.current_time() + PERMISSION_REFRESH
        while True:
            await trio.sleep_until(min(next_allocation, next_permissions))
            try:
                if trio.current_time() >= next_allocation:
                    answer = await self.request(
                        REFRESH, ((Attr.LIFETIME, LIFETIME.to_bytes(4, "big")),)
                    )
                    self.lifetime = max(60, answer.uint32(Attr.LIFETIME) or LIFETIME)
                    next_allocation = trio.current_time() + self.lifetime / 2
                if trio.current_time() >= next_permissions:
                    for ip in list(self._permitted):
                        await self.request(CREATE_PERMISSION, peer=(ip, 0))
                    next_permissions = trio.current_time() + PERMISSION_REFRESH
            except TurnError as exc:
                self.lost = exc.words
                if self._control is not None:
                    await trio.aclose_forcefully(self._control)
                return


def _printable(text: str) -> str:
    return printable(text, 100)


def _net_notice(server: str, exc: BaseException) -> str:
    """A connection to the TURN server that broke, as a notice."""
    if isinstance(exc, TurnError):
        return exc.words
    if isinstance(exc, OSError):
        return Notice("turn-unreachable", server=server, **os_error_facts(exc))
    if isinstance(exc, trio.BrokenResourceError | trio.ClosedResourceError):
        return Notice("turn-closed", server=server)
    return Notice("turn-broken", server=server, detail=str(exc) or type(exc).__name__)


def _unreachable(server: str, exc: BaseException, seconds: float) -> str:
    """No connection to the TURN server within ``seconds`` (``exc``), as a notice."""
    if isinstance(exc, trio.TooSlowError):
        return Notice("turn-timeout", server=server, seconds=f"{seconds:g}")
    return _net_notice(server, exc)


async def _open(family: int, address: Addr) -> trio.SocketStream:
    sock = trio.socket.socket(family, socket.SOCK_STREAM)
    try:
        await sock.connect(address)
    except BaseException:
        sock.close()
        raise
    return trio.SocketStream(sock)


async def allocate(server: TurnServer, *, timeout: float = 10.0) -> Allocation:
    """Allocate a TCP relayed address on ``server``.  The caller runs
    :meth:`Allocation.run` (reads the control connection, refreshes) in a nursery
    and ends with :meth:`Allocation.aclose`.

    Raises :class:`TurnError` (an ``OSError``, one line) when the server cannot be
    reached within ``timeout`` or refuses: :class:`TurnAuthError` for a wrong
    credential (401/441).
    """
    try:
        with trio.fail_after(timeout):
            infos = await trio.socket.getaddrinfo(server.host, server.port, type=socket.SOCK_STREAM)
            if not infos:
                raise TurnError(Notice("turn-unresolved", server=str(server)))
            family, _, _, _, sockaddr = infos[0]
            address = (str(sockaddr[0]), int(sockaddr[1]))
            control = await _open(family, address)
    except (OSError, trio.TooSlowError) as exc:
        if isinstance(exc, TurnError):
            raise
        raise TurnError(_unreachable(str(server), exc, timeout)) from None
    allocation = Allocation(server, (family, address))
    allocation._control = control
    try:
        answer = await allocation.request(
            ALLOCATE,
            (
                (Attr.REQUESTED_TRANSPORT, bytes([TCP, 0, 0, 0])),
                (Attr.LIFETIME, LIFETIME.to_bytes(4, "big")),
            ),
            stream=control,
        )
        relayed = answer.address(Attr.XOR_RELAYED_ADDRESS)
        if relayed is None:
            raise TurnError(Notice("turn-broken", server=str(server), detail="no relayed address"))
        allocation.relayed = relayed
        allocation.mapped = answer.address(Attr.XOR_MAPPED_ADDRESS)
        allocation.lifetime = max(60, answer.uint32(Attr.LIFETIME) or LIFETIME)
    except BaseException as exc:
        await trio.aclose_forcefully(control)
        if isinstance(exc, StunError):
            raise TurnError(Notice("turn-broken", server=str(server), detail=str(exc))) from None
        raise
    return allocation


@asynccontextmanager
async def open_allocation(
    server: TurnServer, *, timeout: float = 10.0
) -> AsyncIterator[Allocation]:
    """:func:`allocate`, run and close, around a block."""
    allocation = await allocate(server, timeout=timeout)
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(allocation.run)
            try:
                yield allocation
            finally:
                nursery.cancel_scope.cancel()
    finally:
        await allocation.aclose()
