"""The web table's server without a browser: token, Host and Origin checks, the
WebSocket push, and messages from the page reaching the table."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
import trio
from wsproto import ConnectionType, WSConnection
from wsproto.events import AcceptConnection, RejectConnection, Request, TextMessage

from truc_p2p.ui._web import TableServer, bind_table, serve_table
from truc_p2p.ui._web._server import QUEUE_SIZE


class FakeTable:
    def __init__(self) -> None:
        self.received: list[dict[str, Any]] = []

    def snapshot(self) -> list[dict[str, Any]]:
        return [{"type": "state", "hello": "page"}]

    def receive(self, message: dict[str, Any]) -> None:
        self.received.append(message)


@asynccontextmanager
async def running() -> AsyncIterator[tuple[TableServer, FakeTable]]:
    table = FakeTable()
    async with serve_table(table, await bind_table(0)) as server:
        yield server, table


async def http(server: TableServer, target: str, *, host: str | None = None) -> tuple[int, bytes]:
    """One raw GET; the status code and the body."""
    host = host or f"127.0.0.1:{server.port}"
    stream = await trio.open_tcp_stream("127.0.0.1", server.port)
    async with stream:
        await stream.send_all(f"GET {target} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
        data = b""
        with trio.fail_after(5):
            while chunk := await stream.receive_some(65536):
                data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), body


async def ws_handshake(
    server: TableServer, target: str, *, origin: str | None = None, host: str | None = None
) -> tuple[trio.SocketStream, WSConnection, AcceptConnection | RejectConnection]:
    host = host or f"127.0.0.1:{server.port}"
    extra = [(b"Origin", origin.encode())] if origin is not None else []
    stream = await trio.open_tcp_stream("127.0.0.1", server.port)
    ws = WSConnection(ConnectionType.CLIENT)
    await stream.send_all(ws.send(Request(host=host, target=target, extra_headers=extra)))
    with trio.fail_after(5):
        while True:
            data = await stream.receive_some(65536)
            ws.receive_data(data or None)
            for event in ws.events():
                if isinstance(event, AcceptConnection | RejectConnection):
                    return stream, ws, event


async def next_text(stream: trio.SocketStream, ws: WSConnection) -> dict[str, Any]:
    with trio.fail_after(5):
        while True:
            for event in ws.events():
                if isinstance(event, TextMessage):
                    message: dict[str, Any] = json.loads(event.data)
                    return message
            ws.receive_data(await stream.receive_some(65536))


async def test_page_needs_the_token() -> None:
    async with running() as (server, _):
        assert server.url.startswith(f"http://127.0.0.1:{server.port}/?token=")
        status, body = await http(server, f"/?token={server.token}")
        assert status == 200
        assert b"<title>" in body and server.token.encode() in body  # subresources carry it
        for target in ("/", "/?token=", "/?token=wrong", f"/?token={server.token[:-1]}"):
            status, body = await http(server, target)
            assert status == 403, target
            assert b"<title>" not in body
        for name in ("table.js", "table.css"):
            assert (await http(server, f"/{name}"))[0] == 403
            assert (await http(server, f"/{name}?token={server.token}"))[0] == 200


async def test_unknown_paths_and_foreign_hosts_are_refused() -> None:
    async with running() as (server, _):
        assert (await http(server, f"/secret?token={server.token}"))[0] == 404
        assert (await http(server, f"/../x?token={server.token}"))[0] == 404
        # a DNS-rebinding page reaches us under another host name
        evil = f"evil.example:{server.port}"
        assert (await http(server, f"/?token={server.token}", host=evil))[0] == 403


@pytest.mark.parametrize(
    ("target", "origin", "why"),
    [
        ("/ws", "self", "no token"),
        ("/ws?token=nope", "self", "wrong token"),
        ("/ws?token=TOKEN", None, "no Origin"),
        ("/ws?token=TOKEN", "http://evil.example", "another page's Origin"),
        ("/ws?token=TOKEN", "http://127.0.0.1:1", "another local port"),
    ],
)
async def test_websocket_refused(target: str, origin: str | None, why: str) -> None:
    async with running() as (server, table):
        own = f"http://127.0.0.1:{server.port}"
        stream, _, event = await ws_handshake(
            server,
            target.replace("TOKEN", server.token),
            origin=own if origin == "self" else origin,
        )
        async with stream:
            assert isinstance(event, RejectConnection), why
            assert event.status_code == 403
        assert server.clients == 0 and table.received == []


async def test_websocket_pushes_snapshot_and_updates_and_takes_messages() -> None:
    async with running() as (server, table):
        stream, ws, event = await ws_handshake(
            server, f"/ws?token={server.token}", origin=f"http://127.0.0.1:{server.port}"
        )
        async with stream:
            assert isinstance(event, AcceptConnection)
            assert await next_text(stream, ws) == {"type": "state", "hello": "page"}
            server.publish({"type": "log", "text": "bot plays 7♠"})
            assert await next_text(stream, ws) == {"type": "log", "text": "bot plays 7♠"}
            await server.drain()
            await stream.send_all(ws.send(TextMessage(data='{"type": "act", "turn": 1}')))
            await stream.send_all(ws.send(TextMessage(data="not json")))
            await stream.send_all(ws.send(TextMessage(data="[1, 2]")))
            await stream.send_all(ws.send(TextMessage(data='{"type": "quit", "turn": 1}')))
            with trio.fail_after(5):
                while len(table.received) < 2:
                    await trio.sleep(0.01)
        assert table.received == [{"type": "act", "turn": 1}, {"type": "quit", "turn": 1}]


async def test_oversized_page_message_drops_the_page() -> None:
    async with running() as (server, table):
        stream, ws, _ = await ws_handshake(
            server, f"/ws?token={server.token}", origin=f"http://127.0.0.1:{server.port}"
        )
        async with stream:
            await next_text(stream, ws)
            big = json.dumps({"type": "act", "pad": "x" * 10_000})
            await stream.send_all(ws.send(TextMessage(data=big)))
            with trio.fail_after(5):
                while server.clients:
                    await trio.sleep(0.01)
        assert table.received == []


async def test_a_page_that_falls_behind_is_dropped_and_can_reconnect() -> None:
    async with running() as (server, _):
        own = f"http://127.0.0.1:{server.port}"
        stream, ws, _ = await ws_handshake(server, f"/ws?token={server.token}", origin=own)
        async with stream:
            await next_text(stream, ws)
            # no checkpoint: the page cannot keep up (one goes straight to the waiting writer)
            for i in range(QUEUE_SIZE + 2):
                server.publish({"type": "log", "text": str(i)})
            assert server.clients == 0
            with trio.fail_after(5):  # the server hangs up on it
                while await stream.receive_some(65536):
                    pass
        stream, ws, event = await ws_handshake(server, f"/ws?token={server.token}", origin=own)
        async with stream:
            assert isinstance(event, AcceptConnection)
            assert (await next_text(stream, ws))["type"] == "state"
            assert server.clients == 1
