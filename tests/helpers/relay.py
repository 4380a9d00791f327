"""Relays on loopback for the net tests: a RelayServer in the test's nursery, raw
connections to it, and one that can be killed and started again."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import trio

from truc_p2p.crypto import SigningKey
from truc_p2p.net import RelayLimits, RelayServer, SessionReport
from truc_p2p.net._relay_wire import MAGIC, Msg, encode, read_message

FP = "ab" * 32


@asynccontextmanager
async def running_relay(
    limits: RelayLimits | None = None,
) -> AsyncIterator[tuple[RelayServer, int, list[SessionReport]]]:
    reports: list[SessionReport] = []
    server = RelayServer(limits, on_report=reports.append)
    async with trio.open_nursery() as nursery:
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        nursery.start_soon(trio.serve_listeners, server.handle, listeners)
        yield server, int(listeners[0].socket.getsockname()[1]), reports
        nursery.cancel_scope.cancel()


async def raw_stream(port: int, data: bytes, source: str | None = None) -> trio.SocketStream:
    if source is None:
        stream = await trio.open_tcp_stream("127.0.0.1", port)
    else:
        sock = trio.socket.socket()
        await sock.bind((source, 0))
        await sock.connect(("127.0.0.1", port))
        stream = trio.SocketStream(sock)
    await stream.send_all(data)
    return stream


@asynccontextmanager
async def lobby_relay(
    limits: RelayLimits | None = None, server: RelayServer | None = None
) -> AsyncIterator[tuple[RelayServer, int]]:
    server = server or RelayServer(limits)
    async with trio.open_nursery() as nursery:
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        nursery.start_soon(trio.serve_listeners, server.handle, listeners)
        yield server, int(listeners[0].socket.getsockname()[1])
        nursery.cancel_scope.cancel()


async def register_host(
    port: int, claim: bytes, source: str = "127.0.0.1"
) -> tuple[trio.SocketStream, str]:
    """A raw host control connection: REGISTER with ``claim``; returns it and its code."""
    sock = trio.socket.socket()
    await sock.bind((source, 0))
    await sock.connect(("127.0.0.1", port))
    stream = trio.SocketStream(sock)
    await stream.send_all(MAGIC + encode(Msg.REGISTER, b"\x00" + claim))
    kind, body = await read_message(stream)
    assert kind == Msg.REGISTERED
    return stream, body[1 : 1 + body[0]].decode()


def raw_key(key: object) -> bytes:

    assert isinstance(key, SigningKey)
    return key.public_key().to_bytes()


class RestartableRelay:
    """A :class:`RelayServer` on a fixed loopback port that can be killed (every
    connection closed, its state lost) and started again, as a restarted process."""

    def __init__(self, nursery: trio.Nursery, port: int) -> None:
        self.nursery = nursery
        self.port = port
        self.scope: trio.CancelScope | None = None
        self.servers: list[RelayServer] = []

    async def start(self) -> None:
        server = RelayServer()
        self.servers.append(server)
        listeners = await trio.open_tcp_listeners(self.port, host="127.0.0.1")
        scope = trio.CancelScope()
        self.scope = scope

        async def serve() -> None:
            with scope:
                await trio.serve_listeners(server.handle, listeners)

        self.nursery.start_soon(serve)

    def kill(self) -> None:
        assert self.scope is not None
        self.scope.cancel()
