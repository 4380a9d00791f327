"""The web table's server: HTTP and WebSocket on loopback, guarded by a token.

Theory of operation
-------------------
Both protocols are sans-IO, from the h11 authors: ``h11`` parses one HTTP
request per connection (every answer says ``Connection: close``), and a
request for ``/ws`` that asks for a WebSocket is answered ``101`` and its
bytes handed on to a ``wsproto`` frame connection.  trio does the I/O.

Every request must carry the session token (``?token=...``, compared in
constant time) and a ``Host`` naming our loopback address and port (a DNS
rebinding page has another ``Host``); the WebSocket also needs an ``Origin``
of exactly our own page, so another page in the same browser cannot drive
the game.  Anything else gets ``403`` and is closed.

A :class:`Table` is what the server shows: ``snapshot()`` gives the
messages a newly connected page needs, ``receive()`` takes a page's JSON
message.  :meth:`TableServer.publish` pushes a message to every page; each
page has a bounded queue, and a page that falls that far behind is dropped
(it reconnects and gets a fresh snapshot).
"""

from __future__ import annotations

import hmac
import json
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Protocol
from urllib.parse import parse_qs, urlsplit

import h11
import trio
from wsproto import ConnectionType
from wsproto.connection import Connection as WSConnection
from wsproto.events import CloseConnection, Ping, TextMessage
from wsproto.utilities import generate_accept_token

__all__ = ["Table", "TableServer", "bind_table", "serve_table"]

HOST = "127.0.0.1"
#: Longest JSON message a page may send (it only ever sends tiny ones).
MAX_INBOUND = 4096
#: Messages queued for one page before it is dropped.
QUEUE_SIZE = 256
#: Seconds a client has to send its request.
REQUEST_TIMEOUT = 10.0

_STATIC = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/table.js": ("table.js", "text/javascript; charset=utf-8"),
    "/table.css": ("table.css", "text/css; charset=utf-8"),
    # what the replay, history and lobby pages share
    "/pages.js": ("pages.js", "text/javascript; charset=utf-8"),
    # the replay page (truc-p2p replay --web)
    "/replay.html": ("replay.html", "text/html; charset=utf-8"),
    "/replay.js": ("replay.js", "text/javascript; charset=utf-8"),
    "/replay.css": ("replay.css", "text/css; charset=utf-8"),
    # the history page (truc-p2p games --web)
    "/games.html": ("games.html", "text/html; charset=utf-8"),
    "/games.js": ("games.js", "text/javascript; charset=utf-8"),
    # the lobby page (truc-p2p join --relay R --web)
    "/lobby.html": ("lobby.html", "text/html; charset=utf-8"),
    "/lobby.js": ("lobby.js", "text/javascript; charset=utf-8"),
}


class Table(Protocol):
    """What the server shows and who answers the page's messages."""

    def snapshot(self) -> list[dict[str, Any]]:
        """The messages that bring a newly connected page up to date."""
        ...

    def receive(self, message: dict[str, Any]) -> None:
        """A JSON object sent by a page (already parsed, not yet validated)."""
        ...


def static_file(name: str) -> bytes:
    """One of the page's files, shipped as package data."""
    return resources.files(__package__).joinpath("static", name).read_bytes()


@dataclass
class _Client:
    send: trio.MemorySendChannel[str]
    scope: trio.CancelScope = field(default_factory=trio.CancelScope)
    unsent: int = 0


@dataclass
class TableServer:
    """A running server: its URL (with the token) and a way to push messages."""

    table: Table
    port: int
    token: str
    _clients: list[_Client] = field(default_factory=list)
    #: The ``Accept-Language`` of the last page served: the language wish its socket
    #: is greeted with (a browser sends the same header on both, but an emulated
    #: locale, as in Chromium's headless tests, reaches the page's request only).
    _page_languages: str | None = None

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}/?token={self.token}"

    @property
    def clients(self) -> int:
        """Pages connected right now."""
        return len(self._clients)

    def publish(self, message: dict[str, Any]) -> None:
        """Push ``message`` to every connected page (never blocks)."""
        text = json.dumps(message, ensure_ascii=False)
        for client in list(self._clients):
            try:
                client.send.send_nowait(text)
                client.unsent += 1
            except (trio.WouldBlock, trio.ClosedResourceError):
                self._drop(client)

    def _drop(self, client: _Client) -> None:
        """Forget a page and hang up on it (it reconnects for a fresh snapshot)."""
        if client in self._clients:
            self._clients.remove(client)
        client.send.close()
        client.unsent = 0
        client.scope.cancel()

    async def drain(self, timeout: float = 2.0) -> None:
        """Wait (at most ``timeout`` s) until every page got every message."""
        with trio.move_on_after(timeout):
            while any(c.unsent for c in self._clients):
                await trio.sleep(0.02)

    # -- one connection --------------------------------------------------------------

    async def handle(self, stream: trio.abc.Stream) -> None:
        """Serve one connection; no failure of a page escapes into the game."""
        try:
            async with stream:
                await self._handle(stream)
        except (trio.BrokenResourceError, trio.ClosedResourceError, h11.ProtocolError):
            pass
        except Exception:  # pragma: no cover - a page must never crash the game
            pass

    async def _handle(self, stream: trio.abc.Stream) -> None:
        conn = h11.Connection(h11.SERVER, max_incomplete_event_size=16 * 1024)
        request: h11.Request | None = None
        with trio.move_on_after(REQUEST_TIMEOUT):
            while request is None:
                event = conn.next_event()
                if event is h11.NEED_DATA:
                    data = await stream.receive_some(4096)
                    conn.receive_data(bytes(data))
                elif isinstance(event, h11.Request):
                    request = event
                else:
                    return
        if request is None:
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in request.headers}
        path, query = _split(request.target.decode("latin-1"))
        status = self.check(request.method.decode("latin-1"), path, query, headers)
        if status != 200:
            await _respond(stream, conn, status, b"refused\n" if status == 403 else b"not found\n")
            return
        if path == "/ws":
            await self._websocket(stream, conn, headers)
            return
        name, ctype = _STATIC[path]
        body = static_file(name)
        if name.endswith(".html"):
            body = body.replace(b"__TOKEN__", self.token.encode())
            self._page_languages = headers.get("accept-language", self._page_languages)
        await _respond(stream, conn, 200, body, ctype, csp=self._csp())

    def check(self, method: str, path: str, query: str, headers: dict[str, str]) -> int:
        """The status a request gets before anything is served: 200, 403 or 404."""
        tokens = parse_qs(query).get("token", [])
        given = tokens[0] if len(tokens) == 1 else ""
        if not hmac.compare_digest(given.encode(), self.token.encode()):
            return 403
        if headers.get("host") not in {f"{HOST}:{self.port}", f"localhost:{self.port}"}:
            return 403
        if path == "/ws":
            upgrade = headers.get("upgrade", "").lower() == "websocket"
            origin = headers.get("origin")
            if method != "GET" or not upgrade or origin != f"http://{headers['host']}":
                return 403
            if "sec-websocket-key" not in headers:
                return 403
            return 200
        if method != "GET" or path not in _STATIC:
            return 404
        return 200

    def _csp(self) -> str:
        return (
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src data:; "
            f"connect-src ws://{HOST}:{self.port} ws://localhost:{self.port}; "
            "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
        )

    async def _websocket(
        self, stream: trio.abc.Stream, conn: h11.Connection, headers: dict[str, str]
    ) -> None:
        accept = generate_accept_token(headers["sec-websocket-key"].encode())  # bytes
        await stream.send_all(
            conn.send(
                h11.InformationalResponse(
                    status_code=101,
                    headers=[
                        (b"Upgrade", b"websocket"),
                        (b"Connection", b"Upgrade"),
                        (b"Sec-WebSocket-Accept", accept),
                    ],
                )
            )
        )
        ws = WSConnection(ConnectionType.SERVER, trailing_data=conn.trailing_data[0])
        send, receive = trio.open_memory_channel[str](QUEUE_SIZE)
        client = _Client(send)
        lock = trio.Lock()

        async def write(data: bytes) -> None:
            async with lock:
                await stream.send_all(data)

        # the page's language: a table that can speak several hears the browser's wish
        greet = getattr(self.table, "greet", None)
        if callable(greet):
            greet(self._page_languages or headers.get("accept-language", ""))
        for message in self.table.snapshot():
            send.send_nowait(json.dumps(message, ensure_ascii=False))
            client.unsent += 1
        self._clients.append(client)
        try:
            with client.scope:
                await self._serve_page(stream, ws, receive, client, write)
        finally:
            self._drop(client)

    async def _serve_page(
        self,
        stream: trio.abc.Stream,
        ws: WSConnection,
        receive: trio.MemoryReceiveChannel[str],
        client: _Client,
        write: Callable[[bytes], Awaitable[None]],
    ) -> None:
        """Push queued messages and read the page's, until either side stops."""
        async with trio.open_nursery() as nursery:

            async def writer() -> None:
                async for text in receive:
                    await write(ws.send(TextMessage(data=text)))
                    client.unsent = max(0, client.unsent - 1)
                nursery.cancel_scope.cancel()

            nursery.start_soon(writer)
            await self._read(stream, ws, write)
            nursery.cancel_scope.cancel()

    async def _read(
        self, stream: trio.abc.Stream, ws: WSConnection, write: Callable[[bytes], Awaitable[None]]
    ) -> None:
        buffer = ""
        while True:
            for event in ws.events():
                if isinstance(event, Ping):
                    await write(ws.send(event.response()))
                elif isinstance(event, CloseConnection):
                    await write(ws.send(event.response()))
                    return
                elif isinstance(event, TextMessage):
                    buffer += event.data
                    if len(buffer) > MAX_INBOUND:
                        return
                    if event.message_finished:
                        self._deliver(buffer)
                        buffer = ""
            data = await stream.receive_some(4096)
            if not data:
                return
            ws.receive_data(bytes(data))

    def _deliver(self, text: str) -> None:
        try:
            message = json.loads(text)
        except ValueError:
            return
        if isinstance(message, dict):
            self.table.receive(message)


def _split(target: str) -> tuple[str, str]:
    parts = urlsplit(target)
    return parts.path, parts.query


async def _respond(
    stream: trio.abc.Stream,
    conn: h11.Connection,
    status: int,
    body: bytes,
    ctype: str = "text/plain; charset=utf-8",
    *,
    csp: str | None = None,
) -> None:
    headers = [
        ("Content-Type", ctype),
        ("Content-Length", str(len(body))),
        ("Connection", "close"),
        ("Cache-Control", "no-store"),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
    ]
    if csp is not None:
        headers.append(("Content-Security-Policy", csp))
    data = conn.send(h11.Response(status_code=status, headers=headers))
    data += conn.send(h11.Data(data=body)) + conn.send(h11.EndOfMessage())
    await stream.send_all(data)


async def bind_table(port: int = 0) -> list[trio.SocketListener]:
    """Listen on 127.0.0.1 ``port`` (0: a free one); raises :class:`OSError`."""
    return await trio.open_tcp_listeners(port, host=HOST)


@asynccontextmanager
async def serve_table(
    table: Table, listeners: list[trio.SocketListener]
) -> AsyncIterator[TableServer]:
    """Serve ``table`` on ``listeners`` (from :func:`bind_table`) with a fresh token."""
    bound = listeners[0].socket.getsockname()[1]
    server = TableServer(table, bound, secrets.token_urlsafe(24))
    async with trio.open_nursery() as nursery:
        nursery.start_soon(trio.serve_listeners, server.handle, listeners)
        try:
            yield server
        finally:
            nursery.cancel_scope.cancel()
