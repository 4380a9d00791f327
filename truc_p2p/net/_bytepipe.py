"""A byte pipe over a :class:`trio.abc.Stream`: one reader task, serialized sends.

The reader task is the only caller of ``receive_some``; it hands chunks to
the game loop through a small bounded channel (so a fast peer is slowed by
TCP flow control, not buffered without limit) and turns EOF and transport
failures into values instead of exceptions.  Every send goes through one
lock, so a send from another task (an abort) never interleaves with one in
progress.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import trio

__all__ = ["Closed", "Link", "LinkBroken"]

RECEIVE_CHUNK = 65536


@dataclass(frozen=True)
class Closed:
    """The peer closed its side (EOF) or the transport failed."""

    reason: str
    #: True for an orderly EOF, False for a reset or other transport error.
    eof: bool


class LinkBroken(Exception):
    """A send failed: the connection is gone."""


class Link:
    """Use :meth:`run_reader` as a task, :meth:`receive` and :meth:`send` from the game."""

    def __init__(self, stream: trio.abc.Stream) -> None:
        self.stream = stream
        self._send_lock = trio.Lock()
        self._tx, self._rx = trio.open_memory_channel[bytes | Closed](4)
        self.bytes_sent = 0
        self.bytes_received = 0

    async def run_reader(self) -> None:
        """Read until EOF or failure; never raises (except cancellation)."""
        async with self._tx:
            try:
                while True:
                    data = await self.stream.receive_some(RECEIVE_CHUNK)
                    if not data:
                        await self._tx.send(Closed("the peer closed the connection", eof=True))
                        return
                    self.bytes_received += len(data)
                    await self._tx.send(bytes(data))
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
                cause = exc.__cause__ or exc
                text = str(cause) or type(cause).__name__
                await self._tx.send(Closed(f"the connection broke: {text}", eof=False))

    async def receive(self, *, deadline: float = math.inf) -> bytes | Closed | None:
        """The next chunk, a :class:`Closed`, or ``None`` when ``deadline`` passed."""
        with trio.move_on_at(deadline):
            try:
                return await self._rx.receive()
            except trio.EndOfChannel:
                return Closed("the peer closed the connection", eof=True)
        return None

    async def send(self, data: bytes, *, timeout: float = 60.0) -> None:
        """Send all of ``data``; :class:`LinkBroken` when the connection is gone or stuck.

        Shielded from cancellation: a half-sent frame would corrupt the stream
        for the abort that may follow.
        """
        if not data:
            return
        async with self._send_lock:
            with trio.CancelScope(shield=True), trio.move_on_after(timeout) as scope:
                try:
                    await self.stream.send_all(data)
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
                    raise LinkBroken(str(exc.__cause__ or exc) or "connection lost") from None
                self.bytes_sent += len(data)
            if scope.cancelled_caught:
                raise LinkBroken(f"the peer did not read for {timeout:g} s")

    async def finish(self, *, linger: float = 2.0) -> None:
        """Half-close and drain what the peer still sends, so our last message is
        delivered instead of being reset by a close with unread data."""
        with trio.CancelScope(shield=True), trio.move_on_after(linger):
            if isinstance(self.stream, trio.abc.HalfCloseableStream):
                async with self._send_lock:
                    try:
                        await self.stream.send_eof()
                    except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                        return
            while True:
                item = await self.receive()
                if isinstance(item, Closed):
                    return
