"""TCP endpoints: :func:`serve_game` listens (IPv6 and IPv4), :func:`open_game` connects."""

from __future__ import annotations

import errno
import ipaddress
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress

import trio

from truc_p2p.net._invite import DEFAULT_PORT, Invite

__all__ = ["GameListener", "guess_lan_address", "open_game", "serve_game"]

_WILDCARDS = ("", "*", "::", "0.0.0.0")


def guess_lan_address() -> str:
    """This machine's address on its default route (no packet is sent), else loopback."""
    for family, probe in ((socket.AF_INET, "192.0.2.1"), (socket.AF_INET6, "2001:db8::1")):
        try:
            with socket.socket(family, socket.SOCK_DGRAM) as sock:
                sock.connect((probe, 9))
                addr = str(sock.getsockname()[0])
        except OSError:
            continue
        if not ipaddress.ip_address(addr.split("%")[0]).is_unspecified:
            return addr
    return "127.0.0.1"


class GameListener:
    """Listening sockets of a host; :meth:`accept` returns the first connection."""

    def __init__(self, listeners: list[trio.SocketListener], bind: str | None) -> None:
        self.listeners = listeners
        self.bind = bind

    @property
    def port(self) -> int:
        port: int = self.listeners[0].socket.getsockname()[1]
        return port

    @property
    def addresses(self) -> list[tuple[str, int]]:
        """``(address, port)`` of every listening socket."""
        return [
            (str(x.socket.getsockname()[0]), int(x.socket.getsockname()[1])) for x in self.listeners
        ]

    def invite(self, fingerprint: str, *, advertise: str | None = None) -> Invite:
        """The invite to hand out: ``advertise`` or the bound address or a LAN guess."""
        if advertise:
            host = advertise
        elif self.bind is not None and self.bind not in _WILDCARDS:
            host = self.bind
        else:
            host = guess_lan_address()
        return Invite(host, self.port, fingerprint)

    async def accept(self) -> trio.SocketStream:
        """Wait for the next connection on any of the sockets."""
        if len(self.listeners) == 1:
            return await accept_patiently(self.listeners[0])
        got: list[trio.SocketStream] = []
        errors: list[OSError] = []
        async with trio.open_nursery() as nursery:

            async def one(listener: trio.SocketListener) -> None:
                try:
                    got.append(await accept_patiently(listener))
                except OSError as exc:
                    errors.append(exc)
                nursery.cancel_scope.cancel()

            for listener in self.listeners:
                nursery.start_soon(one, listener)
        for extra in got[1:]:
            await extra.aclose()
        if not got:
            raise errors[0]
        return got[0]


#: accept() errors that mean "out of file descriptors or memory for now".
ACCEPT_SHORTAGE = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})


async def accept_patiently(listener: trio.SocketListener) -> trio.SocketStream:
    """``listener.accept()``, waiting out a shortage of file descriptors or memory
    (a flood that will drain) instead of failing."""
    while True:
        try:
            return await listener.accept()
        except OSError as exc:
            if exc.errno not in ACCEPT_SHORTAGE:
                raise
        await trio.sleep(0.1)


async def _open_listeners(bind: str | None, port: int) -> list[trio.SocketListener]:
    if bind is not None and bind not in ("", "*"):
        return await trio.open_tcp_listeners(port, host=bind)
    # Every interface, both families, on one port number.
    for _ in range(5):
        listeners: list[trio.SocketListener] = []
        with suppress(OSError):
            listeners += await trio.open_tcp_listeners(port, host="::")
        chosen = listeners[0].socket.getsockname()[1] if listeners else port
        try:
            listeners += await trio.open_tcp_listeners(chosen, host="0.0.0.0")
        except OSError:
            if not listeners:
                raise
            if port == 0:  # that port is taken on IPv4 only: pick another
                for listener in listeners:
                    await listener.aclose()
                continue
        return listeners
    raise OSError("could not find a port free on both IPv4 and IPv6")


@asynccontextmanager
async def serve_game(
    *, bind: str | None = None, port: int = DEFAULT_PORT
) -> AsyncIterator[GameListener]:
    """Listen for players on ``bind`` (default: every interface, IPv6 and IPv4).

    ``port=0`` picks a free port (see :attr:`GameListener.port`).  Raises
    ``OSError`` when the address cannot be bound.
    """
    listeners = await _open_listeners(bind, port)
    try:
        yield GameListener(listeners, bind)
    finally:
        for listener in listeners:
            await listener.aclose()


@asynccontextmanager
async def open_game(
    host: str | Invite, port: int | None = None, *, connect_timeout: float = 15.0
) -> AsyncIterator[trio.SocketStream]:
    """Connect to a host (an :class:`Invite` or a host name and port).

    Raises ``OSError`` when the connection fails or takes longer than
    ``connect_timeout`` seconds.
    """
    if isinstance(host, Invite):
        address, port = host.host, host.port
    else:
        address = host
    if port is None:
        raise ValueError("open_game needs a port")
    stream: trio.SocketStream | None = None
    with trio.move_on_after(connect_timeout):
        stream = await trio.open_tcp_stream(address, port)
    if stream is None:
        raise TimeoutError(f"no answer from {address} port {port} within {connect_timeout:g} s")
    async with stream:
        yield stream
