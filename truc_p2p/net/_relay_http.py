"""The relay's HTTP side: the WebSocket upgrade at ``/ws`` and, with ``relay --site DIR``,
the static site (``connect.md`` §9).

Theory of operation.  :class:`~._relay.RelayServer` reads a connection's first
four bytes; ``GET `` or ``HEAD`` hands the connection here.  ``h11`` parses
requests one after the other on the connection (at most
:attr:`WebLimits.max_requests` of them, each head within
:attr:`WebLimits.max_head` bytes and :attr:`WebLimits.request_timeout`
seconds).  A valid WebSocket upgrade of ``/ws`` with the subprotocol
``truc-p2p.relay.v1`` is answered ``101`` and the connection becomes a
:class:`~._ws_stream.WebSocketStream`, which the caller serves as a relay
client.  Any other ``GET``/``HEAD`` is a file of the site directory, or ``404``
without one.  The ``Origin`` header is not looked at: every game byte is
signed end to end, so which page opened the socket changes nothing the relay
guarantees.

Paths are resolved strictly under the site directory: a segment that is
empty, starts with a dot or holds a slash, backslash or NUL once decoded is
refused, and the resolved file (symbolic links followed) must still lie under
the directory, so no request reaches a file outside it.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import ipaddress
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from http import HTTPStatus
from pathlib import Path
from urllib.parse import unquote_to_bytes, urlsplit

import h11
import trio
from wsproto.utilities import generate_accept_token

from truc_p2p.net._ws_stream import SUBPROTOCOL, WebSocketStream

__all__ = ["HTTP_STARTS", "SITE_CSP", "WebLimits", "content_type", "serve_http"]

#: The first four bytes of a connection that speaks HTTP, not the relay protocol.
HTTP_STARTS = (b"GET ", b"HEAD")
#: The Content-Security-Policy of every answer (the site's pages load nothing else).
SITE_CSP = (
    "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; "
    "connect-src 'self' ws: wss:; img-src 'self' data:; style-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
#: Files a browser must ask for again each time (the service worker and what names
#: the build); the rest may be kept for a while.
NO_CACHE = frozenset({"index.html", "sw.js", "manifest.json", "site.json"})
_MAX_AGE = "max-age=600"
_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".webmanifest": "application/manifest+json",
    ".wasm": "application/wasm",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".txt": "text/plain; charset=utf-8",
    ".truc": "application/octet-stream",
    ".whl": "application/zip",
    ".zip": "application/zip",
    ".tar": "application/x-tar",
    ".map": "application/json",
}
_FILE_CHUNK = 65536


@dataclass(frozen=True)
class WebLimits:
    """Bounds of the relay's HTTP side."""

    #: Requests on one connection (a browser keeps it alive for the site's files).
    max_requests: int = 100
    #: Bytes of a request line and its headers.
    max_head: int = 8192
    #: Seconds for a whole request head, the WebSocket handshake's included, and
    #: for the next request on a kept-alive connection.
    request_timeout: float = 10.0


def content_type(name: str) -> str:
    """The Content-Type of a site file, by its suffix."""
    return _TYPES.get(os.path.splitext(name)[1].lower(), "application/octet-stream")


def _headers(extra: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return [
        *extra,
        ("Content-Security-Policy", SITE_CSP),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
    ]


class _Request:
    def __init__(self, event: h11.Request) -> None:
        self.method = event.method.decode("ascii", "replace")
        self.target = event.target.decode("ascii", "replace")
        self.headers: dict[str, str] = {}
        for name, value in event.headers:
            key = name.decode("latin-1").lower()
            text = value.decode("latin-1")
            self.headers[key] = f"{self.headers[key]}, {text}" if key in self.headers else text

    def tokens(self, name: str) -> set[str]:
        return {t.strip().lower() for t in self.headers.get(name, "").split(",") if t.strip()}


def resolve(site: Path, target: str) -> Path | None:
    """The file of ``site`` a request target names, or None (never outside ``site``)."""
    path = urlsplit(target).path
    if not path.startswith("/"):
        return None
    parts: list[str] = []
    for raw in path[1:].split("/"):
        try:
            segment = unquote_to_bytes(raw).decode("utf-8")
        except UnicodeDecodeError:
            return None
        if not segment:
            continue  # "/" and "a//b": as a static host would, the empty segments go
        if segment.startswith(".") or any(c in segment for c in "/\\\0"):
            return None
        parts.append(segment)
    root = site.resolve()
    candidate = root.joinpath(*parts)
    try:
        if candidate.is_dir():
            candidate = candidate / "index.html"
        real = candidate.resolve(strict=True)
    except (OSError, RuntimeError):
        return None
    if not real.is_relative_to(root) or not real.is_file():
        return None
    return real


class _Front:
    """One HTTP connection: requests in turn, until one upgrades or it ends."""

    def __init__(
        self,
        stream: trio.abc.Stream,
        site: Path | None,
        limits: WebLimits,
        on_websocket: Callable[[WebSocketStream], Awaitable[None]],
        trusted: frozenset[str] = frozenset(),
    ) -> None:
        self.trusted = trusted
        self.stream = stream
        self.site = site
        self.limits = limits
        self.on_websocket = on_websocket
        self.conn = h11.Connection(h11.SERVER, max_incomplete_event_size=limits.max_head)
        self.method = ""
        self.served: Callable[[str], None] = lambda kind: None

    async def _next(self) -> h11.Event | type[h11.PAUSED] | None:
        """The next event; None when the client went away or took too long."""
        with trio.move_on_after(self.limits.request_timeout):
            while True:
                event = self.conn.next_event()
                if event is not h11.NEED_DATA:
                    return event  # type: ignore[return-value]
                data = await self.stream.receive_some(4096)
                self.conn.receive_data(bytes(data))
        return None

    async def _read_request(self) -> _Request | None:
        event = await self._next()
        if not isinstance(event, h11.Request):
            return None
        request = _Request(event)
        end = await self._next()
        if isinstance(end, h11.Data):
            await self._simple(400, "no request body here\n", close=True)
            return None
        if end is not h11.PAUSED and not isinstance(end, h11.EndOfMessage):
            return None
        return request

    async def serve(self, head: bytes, served: Callable[[str], None]) -> None:
        self.served = served
        self.conn.receive_data(head)
        for number in range(self.limits.max_requests):
            try:
                request = await self._read_request()
            except h11.RemoteProtocolError as exc:
                if self.conn.our_state in (h11.IDLE, h11.SEND_RESPONSE):
                    status = exc.error_status_hint
                    await self._simple(status, "bad request\n", close=True)
                return
            if request is None:
                return
            self.method = request.method
            last = number == self.limits.max_requests - 1
            if urlsplit(request.target).path == "/ws":
                await self._websocket(request)
                return
            served("http")
            if not await self._file(request, close=last):
                return
            if self.conn.our_state is not h11.DONE or self.conn.their_state is not h11.DONE:
                return
            self.conn.start_next_cycle()

    async def _send(
        self, status: int, headers: list[tuple[str, str]], body: bytes = b"", *, close: bool
    ) -> None:
        if close:
            headers = [*headers, ("Connection", "close")]
        reason = HTTPStatus(status).phrase.encode()
        data = self.conn.send(
            h11.Response(status_code=status, reason=reason, headers=_headers(headers))
        )
        if body and self.method != "HEAD":
            data += self.conn.send(h11.Data(data=body))
        data += self.conn.send(h11.EndOfMessage())
        await self.stream.send_all(data)

    async def _simple(
        self, status: int, text: str, *, close: bool, extra: list[tuple[str, str]] | None = None
    ) -> None:
        body = text.encode()
        headers = [
            ("Content-Type", "text/plain; charset=utf-8"),
            ("Content-Length", str(len(body))),
            ("Cache-Control", "no-store"),
            *(extra or []),
        ]
        await self._send(status, headers, body, close=close)

    async def _websocket(self, request: _Request) -> None:
        """Answer the upgrade (RFC 6455 §4.2.2), or refuse it with a status."""
        key = request.headers.get("sec-websocket-key", "")
        try:
            key_ok = len(base64.b64decode(key.encode(), validate=True)) == 16
        except (binascii.Error, ValueError):
            key_ok = False
        why = ""
        if request.method != "GET":
            why = "a websocket is opened with GET"
        elif "websocket" not in request.tokens("upgrade") or "upgrade" not in request.tokens(
            "connection"
        ):
            why = "this is a websocket endpoint: Upgrade: websocket needed"
        elif not key_ok:
            why = "a Sec-WebSocket-Key of 16 bytes in base64 is needed"
        elif request.headers.get("sec-websocket-version", "").strip() != "13":
            await self._simple(
                426,
                "websocket version 13 only\n",
                close=True,
                extra=[("Sec-WebSocket-Version", "13")],
            )
            return
        elif SUBPROTOCOL not in {t for t in request.tokens("sec-websocket-protocol")}:
            why = f"the subprotocol {SUBPROTOCOL} is needed"
        if why:
            await self._simple(400, why + "\n", close=True)
            return
        accept = generate_accept_token(key.encode())
        await self.stream.send_all(
            self.conn.send(
                h11.InformationalResponse(
                    status_code=101,
                    reason=b"Switching Protocols",
                    headers=[
                        (b"Upgrade", b"websocket"),
                        (b"Connection", b"Upgrade"),
                        (b"Sec-WebSocket-Accept", accept),
                        (b"Sec-WebSocket-Protocol", SUBPROTOCOL.encode()),
                    ],
                )
            )
        )
        self.served("websocket")
        ws = WebSocketStream.server(self.stream, self.conn.trailing_data[0])
        ws.forwarded = self._forwarded(request)
        try:
            await self.on_websocket(ws)
        finally:
            await ws.aclose()

    def _forwarded(self, request: _Request) -> tuple[str, int] | None:
        """The client's address from the last ``X-Forwarded-For`` entry (the one the
        proxy added; a client may write the others), when the connection comes from
        a trusted proxy."""
        if not self.trusted or _peer_ip(self.stream) not in self.trusted:
            return None
        entries = [e.strip() for e in request.headers.get("x-forwarded-for", "").split(",")]
        try:
            return (str(ipaddress.ip_address(entries[-1])), 0)
        except ValueError:
            return None

    async def _file(self, request: _Request, *, close: bool) -> bool:
        """Answer a request for a file; whether the connection may carry another."""
        if request.method not in ("GET", "HEAD"):
            await self._simple(
                405, "GET or HEAD only\n", close=True, extra=[("Allow", "GET, HEAD")]
            )
            return False
        if self.site is None:
            await self._simple(404, "not found: this relay serves no site\n", close=close)
            return not close
        path = resolve(self.site, request.target)
        if path is None:
            await self._simple(404, "not found\n", close=close)
            return not close
        info = path.stat()
        tag = '"' + hashlib.sha256(f"{info.st_mtime_ns}:{info.st_size}".encode()).hexdigest()[:16]
        tag += '"'
        headers = [
            ("Content-Type", content_type(path.name)),
            ("Cache-Control", "no-cache" if path.name in NO_CACHE else _MAX_AGE),
            ("ETag", tag),
        ]
        if tag in {t.strip() for t in request.headers.get("if-none-match", "").split(",")}:
            await self._send(304, headers, close=close)
            return not close
        headers.append(("Content-Length", str(info.st_size)))
        if close:
            headers.append(("Connection", "close"))
        await self.stream.send_all(
            self.conn.send(h11.Response(status_code=200, reason=b"OK", headers=_headers(headers)))
        )
        if request.method == "GET":
            async with await trio.open_file(path, "rb") as file:
                left = info.st_size
                while left > 0:
                    chunk = await file.read(min(_FILE_CHUNK, left))
                    if not chunk:
                        break
                    left -= len(chunk)
                    await self.stream.send_all(self.conn.send(h11.Data(data=chunk)))
            if left:  # the file shrank under us: the promised length cannot be kept
                return False
        await self.stream.send_all(self.conn.send(h11.EndOfMessage()))
        return not close


async def serve_http(
    stream: trio.abc.Stream,
    head: bytes,
    *,
    site: Path | None,
    limits: WebLimits,
    on_websocket: Callable[[WebSocketStream], Awaitable[None]],
    served: Callable[[str], None] = lambda kind: None,
    trusted: frozenset[str] = frozenset(),
) -> None:
    """Serve the HTTP connection whose first bytes ``head`` were read already.

    A WebSocket upgrade of ``/ws`` is handed to ``on_websocket`` (the stream is
    closed with its :attr:`~WebSocketStream.close_code` afterwards); ``served``
    is told ``"http"`` or ``"websocket"`` for each request answered.  From a peer
    in ``trusted`` (reverse proxies), the WebSocket's
    :attr:`~WebSocketStream.forwarded` is the client named by ``X-Forwarded-For``."""
    await _Front(stream, site, limits, on_websocket, trusted).serve(head, served)


def _peer_ip(stream: trio.abc.Stream) -> str:
    if not isinstance(stream, trio.SocketStream):
        return ""
    ip = ipaddress.ip_address(str(stream.socket.getpeername()[0]).split("%")[0])
    mapped = ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) else None
    return str(mapped or ip)
