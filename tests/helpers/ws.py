"""A Python stand-in for the browser: a WebSocket client of the relay (wsproto over trio).

It speaks exactly what the page speaks (``connect.md`` §9): an HTTP upgrade of
``/ws`` with the subprotocol ``truc-p2p.relay.v1``, then the relay protocol's
byte stream in binary messages, one relay message or game frame per message.
Since a browser cannot listen or punch, its host attaches and its joiner
splices through the relay, then both sides carry the path probe (§3) as any
relayed connection does.
"""

from __future__ import annotations

import base64
import os
import ssl
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import h11
import trio
from wsproto.utilities import generate_accept_token

from truc_p2p.net import RelayLimits, RelayServer, SessionReport
from truc_p2p.net._relay_wire import (
    MAGIC,
    PROBE_MAGIC,
    Meet,
    Msg,
    encode,
    encode_addrs,
    read_exactly,
    read_message,
)
from truc_p2p.net._ws_stream import SUBPROTOCOL, WebSocketStream

#: The probe of a relayed path: magic, session, then this letter (the host answers "A").
RELAYED = b"r"


class Refused(Exception):
    """The relay answered the upgrade with an HTTP status, not 101."""

    def __init__(self, status: int, body: bytes) -> None:
        super().__init__(f"HTTP {status}: {body!r}")
        self.status = status
        self.body = body


def upgrade_request(
    port: int,
    key: bytes,
    *,
    path: str = "/ws",
    protocol: str | None = SUBPROTOCOL,
    host: str | None = None,
) -> list[tuple[str, str]]:
    """The headers of a browser's upgrade request (an Origin of some other site)."""
    headers = [
        ("Host", host or f"127.0.0.1:{port}"),
        ("Upgrade", "websocket"),
        ("Connection", "Upgrade"),
        ("Sec-WebSocket-Key", key.decode()),
        ("Sec-WebSocket-Version", "13"),
        ("Origin", "https://play.example.org"),
    ]
    if protocol is not None:
        headers.append(("Sec-WebSocket-Protocol", protocol))
    return headers


async def open_ws(
    port: int,
    *,
    path: str = "/ws",
    headers: list[tuple[str, str]] | None = None,
    tls: ssl.SSLContext | None = None,
    server_name: str | None = None,
) -> WebSocketStream:
    """A WebSocket to the relay on 127.0.0.1 ``port`` (``wss:`` with ``tls``, checking
    the certificate of ``server_name``); :class:`Refused` on another answer."""
    stream: trio.abc.Stream = await trio.open_tcp_stream("127.0.0.1", port)
    if tls is not None:
        stream = trio.SSLStream(stream, tls, server_hostname=server_name)
    key = base64.b64encode(os.urandom(16))
    if headers is None:
        headers = upgrade_request(port, key, path=path, host=server_name)
    for name, value in headers:
        if name.lower() == "sec-websocket-key":
            key = value.encode()
    conn = h11.Connection(h11.CLIENT)
    request = h11.Request(method="GET", target=path, headers=headers)
    await stream.send_all(conn.send(request) + conn.send(h11.EndOfMessage()))
    body = b""
    status = 0
    with trio.fail_after(10):
        while True:
            event = conn.next_event()
            if event is h11.NEED_DATA:
                data = await stream.receive_some(4096)
                if not data:
                    break
                conn.receive_data(bytes(data))
            elif isinstance(event, h11.InformationalResponse):
                accept = dict(event.headers).get(b"sec-websocket-accept")
                assert accept == generate_accept_token(key), "bad Sec-WebSocket-Accept"
                return WebSocketStream.client(stream, conn.trailing_data[0])
            elif isinstance(event, h11.Response):
                status = event.status_code
            elif isinstance(event, h11.Data):
                body += event.data
            else:
                break
    await stream.aclose()
    raise Refused(status, body)


async def expect(stream: trio.abc.Stream, want: int) -> bytes:
    """The body of the next relay message, which must be of type ``want``."""
    with trio.fail_after(40):
        kind, body = await read_message(stream)
    if kind != want:
        raise AssertionError(f"expected {want:#x}, got {kind:#x} {body!r}")
    return body


async def ws_register(port: int) -> tuple[WebSocketStream, str]:
    """A browser host's control connection and its code."""
    control = await open_ws(port)
    await control.send_all(MAGIC + encode(Msg.REGISTER, encode_addrs([])))
    body = await expect(control, Msg.REGISTERED)
    return control, body[1 : 1 + body[0]].decode()


async def ws_attach(
    port: int,
    control: trio.abc.Stream,
    *,
    tls: ssl.SSLContext | None = None,
    server_name: str | None = None,
) -> WebSocketStream:
    """For the next MEET on ``control``: attach, answer the joiner's probe, wait for its
    commit; the stream then carries the game."""
    meet = Meet.decode(await expect(control, Msg.MEET))
    ws = await open_ws(port, tls=tls, server_name=server_name)
    await ws.send_all(MAGIC + encode(Msg.ATTACH, meet.session))
    await expect(ws, Msg.SPLICED)
    with trio.fail_after(10):
        probe = await read_exactly(ws, len(PROBE_MAGIC) + len(meet.session) + 1)
        assert probe[:-1] == PROBE_MAGIC + meet.session, probe
        await ws.send_all(PROBE_MAGIC + meet.session + b"A")
        assert await read_exactly(ws, 1) == b"C"
    return ws


async def ws_join(port: int, code: str) -> WebSocketStream:
    """A browser joiner: JOIN, SPLICE, probe, commit; the stream then carries the game."""
    ws = await open_ws(port)
    raw = code.encode()
    await ws.send_all(MAGIC + encode(Msg.JOIN, bytes([len(raw)]) + raw + encode_addrs([])))
    meet = Meet.decode(await expect(ws, Msg.MEET))
    await ws.send_all(encode(Msg.SPLICE))
    await expect(ws, Msg.SPLICED)
    probe = PROBE_MAGIC + meet.session
    await ws.send_all(probe + RELAYED)
    with trio.fail_after(10):
        assert await read_exactly(ws, len(probe) + 1) == probe + b"A"
    await ws.send_all(b"C")
    return ws


@asynccontextmanager
async def running_relay(
    limits: RelayLimits | None = None, site: Path | None = None, port: int = 0
) -> AsyncIterator[tuple[RelayServer, int, list[SessionReport]]]:
    """A relay on 127.0.0.1 served by :meth:`RelayServer.serve`: an exception escaping
    a connection would end the test with it."""
    reports: list[SessionReport] = []
    server = RelayServer(limits, on_report=reports.append, site=site)
    async with trio.open_nursery() as nursery:
        listeners = await trio.open_tcp_listeners(port, host="127.0.0.1")
        nursery.start_soon(server.serve, listeners)
        try:
            yield server, int(listeners[0].socket.getsockname()[1]), reports
        finally:
            nursery.cancel_scope.cancel()
            for listener in listeners:
                listener.socket.close()  # not awaited: a failure in the body must show
