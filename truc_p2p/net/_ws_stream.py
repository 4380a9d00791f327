"""A WebSocket as a trio byte stream: :class:`WebSocketStream` over ``wsproto``.

Theory of operation.  The relay protocol is a byte stream; a browser can only
open a WebSocket.  ``connect.md`` §9 maps one onto the other: every binary
message carries a chunk of the stream, a receiver accepts any split, and a
sender sends whole relay messages or whole game frames per message.  This
module is that mapping and nothing else: :meth:`WebSocketStream.receive_some`
hands out the bytes of binary messages (buffering what the caller did not ask
for, so a reader can stop exactly after one relay message), and
:meth:`~WebSocketStream.send_all` sends its bytes as one binary message.  So
the relay serves a WebSocket client with the very code that serves a TCP
client, and a test (or any Python client) can speak to the relay through the
same class on the client side.

What a stream does not have, a WebSocket maps as follows: end of stream is a
Close (:meth:`~WebSocketStream.send_eof` sends Close ``1000`` and still reads
what the other side sends until its own Close; a Close received reads as end
of stream); a ping is answered with a pong as it is read; a text message, a
message longer than ``max_message`` or a malformed frame closes the
connection with the code of :class:`CloseCode` and reads as a broken stream.
"""

from __future__ import annotations

from enum import IntEnum

import trio
from wsproto import ConnectionType
from wsproto.connection import Connection, ConnectionState
from wsproto.events import BytesMessage, CloseConnection, Ping, TextMessage
from wsproto.utilities import LocalProtocolError

from truc_p2p.net._relay_wire import MAGIC, MAX_BODY
from truc_p2p.protocol import FRAME_HEADER, MAX_ENVELOPE

__all__ = ["MAX_WS_MESSAGE", "SUBPROTOCOL", "CloseCode", "WebSocketStream"]

#: The WebSocket subprotocol a relay client asks for (``Sec-WebSocket-Protocol``).
SUBPROTOCOL = "truc-p2p.relay.v1"
#: Longest binary message a relay accepts: the magic and a whole relay control
#: message, then the longest game frame (a relay message pipelined with the first
#: frame after it, e.g. SPLICE then a probe, fits too).
MAX_WS_MESSAGE = len(MAGIC) + 3 + MAX_BODY + FRAME_HEADER + MAX_ENVELOPE
#: Bytes read from the transport at a time.
_CHUNK = 16384
#: Seconds :meth:`WebSocketStream.aclose` spends on sending its Close frame and
#: waiting for the peer's, and the bytes it reads (and drops) meanwhile at most.
_CLOSE_TIMEOUT = 1.0
_DRAIN_LIMIT = 1 << 20


class CloseCode(IntEnum):
    """The close codes a relay sends (RFC 6455 §7.4.1; ``connect.md`` §9.3)."""

    NORMAL = 1000
    PROTOCOL_ERROR = 1002
    UNSUPPORTED_DATA = 1003
    POLICY = 1008
    TOO_BIG = 1009
    RELAY_ERROR = 1011


class WebSocketStream(trio.abc.HalfCloseableStream):
    """A byte stream carried in the binary messages of a WebSocket.

    ``transport`` is the stream under the WebSocket (after the HTTP upgrade);
    ``ws`` is a ``wsproto`` connection in the OPEN state, on either side,
    already fed any bytes read past the handshake.  Sending and receiving may
    run in two tasks at once.
    """

    def __init__(
        self,
        transport: trio.abc.Stream,
        ws: Connection,
        *,
        max_message: int = MAX_WS_MESSAGE,
    ) -> None:
        self.transport_stream = transport
        self._ws = ws
        self._max_message = max_message
        self._buffer = bytearray()
        #: Bytes of the binary message being received so far.
        self._message = 0
        self._lock = trio.Lock()
        self._eof = False
        self._closed = False
        #: The code :meth:`aclose` sends (the relay sets it to say why it ends).
        self.close_code = CloseCode.NORMAL
        #: The code of the peer's Close, once received.
        self.peer_close_code: int | None = None
        #: The client's address as a trusted reverse proxy named it (``X-Forwarded-For``),
        #: when one did; else the transport's peer is the client.
        self.forwarded: tuple[str, int] | None = None

    @classmethod
    def client(cls, transport: trio.abc.Stream, trailing: bytes = b"") -> WebSocketStream:
        """The client's side, after its own handshake; ``trailing``: bytes read past it."""
        return cls(transport, Connection(ConnectionType.CLIENT, trailing_data=trailing))

    @classmethod
    def server(cls, transport: trio.abc.Stream, trailing: bytes = b"") -> WebSocketStream:
        """The server's side, after answering ``101``."""
        return cls(transport, Connection(ConnectionType.SERVER, trailing_data=trailing))

    @property
    def state(self) -> ConnectionState:
        return self._ws.state

    async def _write(self, data: bytes) -> None:
        async with self._lock:
            await self.transport_stream.send_all(data)

    async def _fail(self, code: CloseCode, why: str) -> None:
        """Close with ``code`` and raise the broken-stream error."""
        self.close_code = code
        await self._send_close(code, why)
        raise trio.BrokenResourceError(f"websocket closed ({int(code)}): {why}")

    async def _send_close(self, code: int, reason: str = "") -> None:
        if self._ws.state in (ConnectionState.OPEN, ConnectionState.REMOTE_CLOSING):
            data = self._ws.send(CloseConnection(code=code, reason=reason[:100]))
            await self._write(data)

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        if self._closed:
            raise trio.ClosedResourceError("the websocket is closed")
        if self._ws.state is not ConnectionState.OPEN:
            raise trio.BrokenResourceError("the websocket is closing")
        if not data:
            await trio.lowlevel.checkpoint()
            return
        await self._write(self._ws.send(BytesMessage(data=bytes(data))))

    async def wait_send_all_might_not_block(self) -> None:
        await self.transport_stream.wait_send_all_might_not_block()

    async def send_eof(self) -> None:
        """End our direction with a Close ``1000``; the peer's messages are still read
        until its Close."""
        if self._closed:
            raise trio.ClosedResourceError("the websocket is closed")
        await self._send_close(CloseCode.NORMAL)

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        if self._closed:
            raise trio.ClosedResourceError("the websocket is closed")
        while not self._buffer and not self._eof:
            await self._pump()
        if not self._buffer:
            await trio.lowlevel.checkpoint()
            return b""
        size = len(self._buffer) if max_bytes is None else min(max_bytes, len(self._buffer))
        out = bytes(self._buffer[:size])
        del self._buffer[:size]
        return out

    async def _pump(self) -> None:
        """Read from the transport once and handle the events it gives."""
        data = await self.transport_stream.receive_some(_CHUNK)
        if not data:
            self._eof = True
            if self._ws.state is not ConnectionState.CLOSED:
                raise trio.BrokenResourceError("the connection closed without a websocket Close")
            return
        if self._ws.state is ConnectionState.CLOSED:
            return  # bytes after the closing handshake: nothing to read any more
        self._ws.receive_data(bytes(data))
        for event in self._ws.events():
            if isinstance(event, BytesMessage):
                self._message += len(event.data)
                if self._message > self._max_message:
                    await self._fail(CloseCode.TOO_BIG, "message too big")
                self._buffer += event.data
                if event.message_finished:
                    self._message = 0
            elif isinstance(event, TextMessage):
                await self._fail(CloseCode.UNSUPPORTED_DATA, "binary messages only")
            elif isinstance(event, Ping):
                if self._ws.state is ConnectionState.OPEN:
                    await self._write(self._ws.send(event.response()))
            elif isinstance(event, CloseConnection):
                if self._ws.state is ConnectionState.OPEN:
                    # wsproto reports a malformed frame as a Close it did not receive
                    await self._fail(CloseCode.PROTOCOL_ERROR, event.reason or "bad frame")
                self.peer_close_code = event.code
                self._eof = True
                if self._ws.state is ConnectionState.REMOTE_CLOSING:
                    await self._write(self._ws.send(event.response()))
                return

    async def aclose(self) -> None:
        """Send our Close (with :attr:`close_code`) unless one was sent, then close
        the transport."""
        if self._closed:
            await trio.lowlevel.checkpoint()
            return
        self._closed = True
        try:
            with trio.move_on_after(_CLOSE_TIMEOUT) as scope:
                scope.shield = True
                await self._send_close(self.close_code)
                await self._drain()
        except (
            trio.BrokenResourceError,
            trio.ClosedResourceError,
            trio.BusyResourceError,
            LocalProtocolError,
        ):
            pass
        await self.transport_stream.aclose()

    async def _drain(self) -> None:
        """Read (and drop) what the peer still sends until its Close, so closing the
        connection with bytes unread does not reset it before our Close arrives."""
        drained = 0
        while self._ws.state is ConnectionState.LOCAL_CLOSING and drained < _DRAIN_LIMIT:
            data = await self.transport_stream.receive_some(_CHUNK)
            if not data:
                return
            drained += len(data)
            self._ws.receive_data(bytes(data))
            for _ in self._ws.events():
                pass
