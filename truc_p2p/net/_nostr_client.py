"""Talking to Nostr relays over trio: publish a listing, query the lobby (``connect.md`` §10).

Theory of operation.  :class:`NostrSocket` is a WebSocket client of text
messages (``wsproto`` over a trio TCP stream, under ``trio.SSLStream`` with
the system's default trust for ``wss://``).  Every relay is asked in its own
task under its own deadline, so a relay that is down or slow costs at most
its timeout and never stops the others: :func:`fetch_nostr_lobby` merges what
the relays that answered hold (:func:`~._nostr.merge_listings`), and says in
one line per relay why one could not be asked.  :class:`NostrLister` is the
host's side: it publishes the listing event while the host waits, refreshes
it (a new event replaces the old under the same address) well before it
expires, and at the first card publishes the NIP-09 deletion and nothing
more.
"""

from __future__ import annotations

import json
import os
import secrets
import ssl
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import trio
from wsproto import ConnectionType, WSConnection
from wsproto.events import (
    AcceptConnection,
    CloseConnection,
    Ping,
    RejectConnection,
    Request,
    TextMessage,
)
from wsproto.utilities import LocalProtocolError, RemoteProtocolError

from truc_p2p.crypto import SigningKey
from truc_p2p.net._lobby import LobbyFilter, LobbyListing
from truc_p2p.net._nostr import (
    LISTING_KIND,
    ListedRelay,
    NostrEvent,
    NostrGame,
    deletion_event,
    listing_event,
    merge_listings,
    nostr_key_for,
)

__all__ = [
    "NostrError",
    "NostrLister",
    "NostrSocket",
    "check_relay_url",
    "fetch_nostr_lobby",
    "publish_event",
    "query_relay",
]

#: Events a joiner reads from one relay at most (the REQ's ``limit``).
QUERY_LIMIT = 500
#: Bytes of one relay message at most.
MAX_MESSAGE = 1 << 20
_CHUNK = 65536


class NostrError(Exception):
    """A relay that cannot be reached, refuses, or answers nonsense (one line)."""


def check_relay_url(url: str) -> str:
    """``url`` if it is a ``ws://`` or ``wss://`` URL with a host; :class:`ValueError`
    naming the problem otherwise."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise ValueError(f"not a relay URL: {url!r}") from None
    if parts.scheme not in ("ws", "wss") or not parts.hostname:
        raise ValueError(f"a Nostr relay is a ws:// or wss:// URL, not {url!r}")
    del port
    return url


class NostrSocket:
    """One WebSocket connection to a Nostr relay, sending and reading JSON arrays."""

    def __init__(self, stream: trio.abc.Stream, ws: WSConnection) -> None:
        self._stream = stream
        self._ws = ws
        self._events: list[Any] = []
        self._text: list[str] = []

    @classmethod
    async def connect(cls, url: str) -> NostrSocket:
        """Open ``url`` (``OSError`` or :class:`NostrError` when it cannot be)."""
        parts = urlsplit(check_relay_url(url))
        host = parts.hostname or ""
        port = parts.port or (443 if parts.scheme == "wss" else 80)
        stream: trio.abc.Stream = await trio.open_tcp_stream(host, port)
        try:
            if parts.scheme == "wss":
                tls = trio.SSLStream(stream, ssl.create_default_context(), server_hostname=host)
                try:
                    await tls.do_handshake()
                except trio.BrokenResourceError as exc:
                    cause = exc.__cause__ or exc
                    raise NostrError(f"TLS: {cause}") from None
                stream = tls
            ws = WSConnection(ConnectionType.CLIENT)
            target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
            netloc = host if parts.port is None else f"{host}:{port}"
            try:
                await stream.send_all(ws.send(Request(host=netloc, target=target)))
            except trio.BrokenResourceError as exc:
                raise NostrError(f"connection lost: {exc}") from None
            sock = cls(stream, ws)
            while True:
                event = await sock._next_event()
                if isinstance(event, AcceptConnection):
                    return sock
                if isinstance(event, RejectConnection):
                    raise NostrError(f"the relay refused the WebSocket (HTTP {event.status_code})")
        except BaseException:
            await trio.aclose_forcefully(stream)
            raise

    async def _next_event(self) -> Any:
        while not self._events:
            try:
                data = await self._stream.receive_some(_CHUNK)
            except trio.BrokenResourceError as exc:
                raise NostrError(f"connection lost: {exc}") from None
            except ssl.SSLError as exc:
                raise NostrError(f"TLS: {exc}") from None
            if not data:
                raise NostrError("the relay closed the connection")
            try:
                self._ws.receive_data(bytes(data))
                self._events.extend(self._ws.events())
            except RemoteProtocolError as exc:
                raise NostrError(f"not a WebSocket answer: {exc}") from None
        return self._events.pop(0)

    async def send(self, message: list[Any]) -> None:
        text = json.dumps(message, separators=(",", ":"), ensure_ascii=False)
        try:
            await self._stream.send_all(self._ws.send(TextMessage(data=text)))
        except (trio.BrokenResourceError, LocalProtocolError) as exc:
            raise NostrError(f"connection lost: {exc}") from None

    async def receive(self) -> list[Any]:
        """The next relay message (a JSON array); pings are answered on the way."""
        while True:
            event = await self._next_event()
            if isinstance(event, Ping):
                try:
                    await self._stream.send_all(self._ws.send(event.response()))
                except (trio.BrokenResourceError, LocalProtocolError) as exc:
                    raise NostrError(f"connection lost: {exc}") from None
            elif isinstance(event, CloseConnection):
                raise NostrError(f"the relay closed the WebSocket ({event.code})")
            elif isinstance(event, TextMessage):
                self._text.append(event.data)
                if sum(len(t) for t in self._text) > MAX_MESSAGE:
                    raise NostrError("a relay message over 1 MiB")
                if not event.message_finished:
                    continue
                text, self._text = "".join(self._text), []
                try:
                    message = json.loads(text)
                except (ValueError, RecursionError):
                    raise NostrError("a relay message that is not JSON") from None
                if isinstance(message, list) and message and isinstance(message[0], str):
                    return message
                raise NostrError("a relay message that is not a JSON array")

    async def aclose(self) -> None:
        with trio.move_on_after(1) as scope:
            scope.shield = True
            try:
                await self._stream.send_all(self._ws.send(CloseConnection(code=1000)))
            except (trio.BrokenResourceError, trio.ClosedResourceError, LocalProtocolError):
                pass
            except OSError:
                pass
        await trio.aclose_forcefully(self._stream)


def _reason(exc: BaseException) -> str:
    if isinstance(exc, trio.TooSlowError):
        return "no answer in time"
    if isinstance(exc, OSError):
        return exc.strerror or str(exc) or type(exc).__name__
    return str(exc) or type(exc).__name__


async def publish_event(url: str, event: NostrEvent, *, timeout: float) -> None:
    """Send ``event`` to the relay at ``url`` and wait for its ``OK``;
    :class:`NostrError` (one line) when it cannot be, or the relay says no."""
    try:
        with trio.fail_after(timeout):
            sock = await NostrSocket.connect(url)
            try:
                await sock.send(["EVENT", event.to_json()])
                while True:
                    message = await sock.receive()
                    if message[0] == "OK" and len(message) >= 3 and message[1] == event.id:
                        if message[2] is not True:
                            said = message[3] if len(message) > 3 else ""
                            raise NostrError(f"the relay refused the event: {str(said)[:200]}")
                        return
            finally:
                await sock.aclose()
    except (OSError, trio.TooSlowError) as exc:
        raise NostrError(_reason(exc)) from None


async def query_relay(url: str, filt: dict[str, Any], *, timeout: float) -> list[object]:
    """The events the relay at ``url`` holds for ``filt``, read until its ``EOSE``;
    :class:`NostrError` (one line) when it cannot be asked in ``timeout``."""
    sub = "truc-" + secrets.token_hex(4)
    events: list[object] = []
    try:
        with trio.fail_after(timeout):
            sock = await NostrSocket.connect(url)
            try:
                await sock.send(["REQ", sub, filt])
                while True:
                    message = await sock.receive()
                    kind = message[0]
                    if kind == "EVENT" and len(message) >= 3 and message[1] == sub:
                        if len(events) < QUERY_LIMIT:
                            events.append(message[2])
                    elif kind == "EOSE" and len(message) >= 2 and message[1] == sub:
                        await sock.send(["CLOSE", sub])
                        return events
                    elif kind == "CLOSED" and len(message) >= 2 and message[1] == sub:
                        said = message[2] if len(message) > 2 else ""
                        raise NostrError(f"the relay closed the query: {str(said)[:200]}")
            finally:
                await sock.aclose()
    except (OSError, trio.TooSlowError) as exc:
        raise NostrError(_reason(exc)) from None


def lobby_filter() -> dict[str, Any]:
    """The REQ filter a joiner sends: the listings, newest first, at most
    :data:`QUERY_LIMIT`."""
    return {"kinds": [LISTING_KIND], "limit": QUERY_LIMIT}


async def fetch_nostr_lobby(
    urls: list[str],
    *,
    timeout: float = 10.0,
    wanted: LobbyFilter | None = None,
    now: Callable[[], float] = time.time,
) -> tuple[list[NostrGame], list[str], list[str]]:
    """Ask every relay of ``urls`` at once (each within ``timeout``) for listings:
    the verified games merged (one per host key, the newest), a note per listing
    dropped, and one line per relay that could not be asked."""
    found: list[tuple[str, list[object]]] = []
    failed: dict[str, str] = {}

    async def ask(url: str) -> None:
        try:
            found.append((url, await query_relay(url, lobby_filter(), timeout=timeout)))
        except (NostrError, ValueError) as exc:  # ValueError: not a relay URL
            failed[url] = str(exc)

    async with trio.open_nursery() as nursery:
        for url in dict.fromkeys(urls):
            nursery.start_soon(ask, url)
    found.sort(key=lambda item: urls.index(item[0]))
    games, notes = merge_listings(found, now=int(now()), wanted=wanted)
    down = [f"cannot reach the Nostr relay {url}: {why}" for url, why in failed.items()]
    return games, notes, down


@dataclass
class NostrLister:
    """A host's listing on Nostr relays: :meth:`set_listed` publishes it (and
    :meth:`refresh` keeps it alive) while the host waits; unlisting publishes the
    deletion, after which nothing is published until it is listed again.

    ``on_line`` hears one line per relay that could not take an event.
    """

    identity: SigningKey
    urls: list[str]
    listing: LobbyListing
    relay: tuple[str, int] | None = None
    code: str | None = None
    lifetime: int = 600
    timeout: float = 5.0
    on_line: Callable[[str], None] = print
    clock: Callable[[], float] = time.time
    listed: bool = False
    published: list[str] = field(default_factory=list)
    _lock: trio.Lock = field(default_factory=trio.Lock)
    _last: int = 0
    _since: int = 0

    def __post_init__(self) -> None:
        self.key = nostr_key_for(self.identity)

    def _now(self) -> int:
        # a replacement must be newer than what it replaces (NIP-01 keeps the newest)
        self._last = max(int(self.clock()), self._last + 1)
        return self._last

    async def _send(self, event: NostrEvent) -> None:
        async def one(url: str) -> None:
            try:
                await publish_event(url, event, timeout=self.timeout)
            except (NostrError, ValueError) as exc:  # ValueError: not a relay URL
                self.on_line(f"Nostr relay {url}: {exc}")

        async with trio.open_nursery() as nursery:
            for url in self.urls:
                nursery.start_soon(one, url)

    async def set_listed(self, listed: bool) -> None:
        async with self._lock:
            if listed == self.listed:
                return
            self.listed = listed
            if listed:
                self._since = int(self.clock())
                await self._publish()
            else:
                await self._withdraw()

    async def _publish(self) -> None:
        event = listing_event(
            self.key,
            self.identity,
            self.listing,
            now=self._now(),
            lifetime=self.lifetime,
            aux=os.urandom(32),
            relay=(
                ListedRelay(self.relay, self.code)
                if self.relay is not None and self.code is not None
                else None
            ),
            since=self._since,
        )
        self.published.append(event.id)
        await self._send(event)

    async def _withdraw(self) -> None:
        event = deletion_event(
            self.key,
            self.listing.fingerprint,
            now=self._now(),
            aux=os.urandom(32),
            listed=self.published[-8:],
        )
        self.published.clear()
        await self._send(event)

    async def refresh(self, every: float | None = None) -> None:
        """Republish while listed, every ``every`` seconds (default: 40 % of the
        lifetime, so a listing never lapses while one refresh is late)."""
        while True:
            await trio.sleep(every if every is not None else self.lifetime * 0.4)
            async with self._lock:
                if self.listed:
                    await self._publish()

    async def close(self) -> None:
        """Unlist, if listed (the host stops): bounded, even when cancelled."""
        with trio.CancelScope(shield=True), trio.move_on_after(self.timeout + 1):
            await self.set_listed(False)
