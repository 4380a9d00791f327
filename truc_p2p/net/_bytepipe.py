"""A byte pipe over a :class:`trio.abc.Stream`: one reader task, serialized sends.

The reader task is the only caller of ``receive_some``; it hands chunks to
the game loop through a small bounded channel (so a fast peer is slowed by
TCP flow control, not buffered without limit) and turns EOF and transport
failures into values instead of exceptions.  Every send goes through one
lock, so a send from another task (an abort) never interleaves with one in
progress.

With a :class:`~._gate.FrameGate` the reader hands on whole, checked frames
only: heartbeats are dropped and a damaged frame ends the link like a reset
(wire.md section 13.7).  :meth:`Link.run_liveness` sends a heartbeat when we
have sent nothing for ``heartbeat`` seconds and declares the link dead when
no frame came for ``dead_after`` seconds (a half-open connection: the peer's
side was forgotten by a middlebox, ours stays open and silent), so that the
game resumes on a new one (section 13.6).  Heartbeats are used only when
both hellos announced them (sections 11.1, 13.6): the dialer (``offer``, true
once it knows that) sends one right after the first frame it sends from then
on; the other side sends heartbeats, and either side expects them, only once
one arrived, so a peer that knows nothing of them never sees one.  Silence
counts against a peer that sent a heartbeat, and from the link's start against
one whose hello announced them (``agreed``): a cut that swallows our first
heartbeat, so that the peer never answers one, is noticed too.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import trio

from truc_p2p.net._gate import HEARTBEAT, FrameGate, LinkFault

__all__ = ["Closed", "Link", "LinkBroken"]

RECEIVE_CHUNK = 65536


@dataclass(frozen=True)
class Closed:
    """The peer closed its side (EOF) or the transport failed."""

    reason: str
    #: True for an orderly EOF, False for a reset or other transport error.
    eof: bool
    #: True when the bytes themselves were damaged (a frame failed its checks).
    fault: bool = False


class LinkBroken(Exception):
    """A send failed: the connection is gone."""


class Link:
    """Use :meth:`run_reader` as a task, :meth:`receive` and :meth:`send` from the game."""

    def __init__(
        self,
        stream: trio.abc.Stream,
        *,
        gate: FrameGate | None = None,
        heartbeat: float = math.inf,
        dead_after: float = math.inf,
        offer: Callable[[], bool] | None = None,
        expect_beats: bool = False,
        agreed: Callable[[], bool] | None = None,
    ) -> None:
        self.stream = stream
        self._send_lock = trio.Lock()
        self._tx, self._rx = trio.open_memory_channel[bytes | Closed](4)
        self.bytes_sent = 0
        self.bytes_received = 0
        self.gate = gate
        self.heartbeat = heartbeat
        self.dead_after = dead_after
        self.heartbeats_sent = 0
        #: We dialled: whether both hellos announced heartbeats, so that we may offer
        #: them after our next frame (wire.md 13.6); ``None``: we never offer them.
        self.offer = offer
        #: We offered heartbeats on this link (sent the first one unprompted).
        self.offered = False
        #: The peer sent heartbeats on an earlier link of this game: expect them here.
        self.expect_beats = expect_beats
        #: Whether both hellos announced heartbeats: then the peer speaks them, and its
        #: silence counts from the link's start, not from its first heartbeat (a cut
        #: may swallow our first one, so that none ever comes back; wire.md 13.6).
        self.agreed = agreed
        self._answered = False
        self._poke = trio.Event()  # wakes the liveness task: first send, first heartbeat
        now = trio.current_time()
        self._last_sent = now
        self._last_frame = now
        self._finishing = False
        self._cut: str | None = None

    def admit(self, data: bytes) -> bytes | None:
        """Pass bytes read before the reader started (the host's first frame) through
        the gate: the checked frames, or ``None`` if one was damaged."""
        if self.gate is None:
            return data
        try:
            return self.gate.feed(data)
        except LinkFault:
            return None
        finally:
            self._poke.set()

    async def cut(self, reason: str) -> None:
        """End this link now: the reader reports ``Closed(reason)``."""
        if self._cut is None:
            self._cut = reason
        with trio.CancelScope(shield=True), trio.move_on_after(1):
            await trio.aclose_forcefully(self.stream)

    @property
    def peer_beats(self) -> bool:
        """Whether the peer sent a heartbeat on this link or on an earlier link of the
        game (we send them then, and answer the first)."""
        return self.expect_beats or (self.gate is not None and self.gate.heartbeats > 0)

    @property
    def watched(self) -> bool:
        """Whether the peer's silence counts: it sent heartbeats, or both hellos
        announced them (then it sends them, from our first one on)."""
        return self.peer_beats or (self.agreed is not None and self.agreed())

    async def run_liveness(self) -> None:
        """Send heartbeats while we are silent; cut the link when the peer is (never
        raises).  Heartbeats start once we sent something (the first frame is a
        hello or a resume, never a heartbeat), and only if we dialled or the peer
        sent one; silence counts only against a peer that speaks them (it sent one,
        or both hellos announced them), from the link's start."""
        if math.isinf(self.heartbeat) and math.isinf(self.dead_after):
            return
        while self._cut is None:
            now = trio.current_time()
            beats, watched = self.peer_beats, self.watched
            if watched and now - self._last_frame >= self.dead_after:
                await self.cut(f"no sign of life from the peer for {self.dead_after:g} s")
                return
            may = (self.offered or beats) and self.bytes_sent and not self._finishing
            due = now - self._last_sent >= self.heartbeat or (beats and not self._answered)
            if may and due:
                self._answered = True
                try:
                    await self.send(HEARTBEAT, timeout=min(self.dead_after, 60.0))
                except LinkBroken as exc:
                    await self.cut(f"the connection broke: {exc}")
                    return
                self.heartbeats_sent += 1
            wake = self._last_sent + self.heartbeat if may else math.inf
            if watched:
                wake = min(wake, self._last_frame + self.dead_after)
            with trio.move_on_at(max(wake, trio.current_time() + 0.01)):
                await self._poke.wait()
            self._poke = trio.Event()

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
                    if self.gate is not None:
                        frames = self.gate.frames
                        try:
                            data = self.gate.feed(data)
                        except LinkFault as exc:
                            self._cut = f"damaged data on the link: {exc}"
                            await self._tx.send(Closed(self._cut, eof=False, fault=True))
                            return
                        if self.gate.frames != frames:
                            self._last_frame = trio.current_time()
                        if self.gate.heartbeats and not self._answered:
                            self._poke.set()
                        if not data:
                            continue
                    else:
                        self._last_frame = trio.current_time()
                    await self._tx.send(bytes(data))
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
                if self._cut is not None:
                    await self._tx.send(Closed(self._cut, eof=False))
                    return
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
            offering = False
            if not self.offered and self.offer is not None and data != HEARTBEAT:
                # we dialled and both hellos announce heartbeats: offer them (wire.md 13.6)
                offering = self.offer()
                if offering:
                    data = data + HEARTBEAT
            with trio.CancelScope(shield=True), trio.move_on_after(timeout) as scope:
                try:
                    await self.stream.send_all(data)
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
                    raise LinkBroken(str(exc.__cause__ or exc) or "connection lost") from None
                if not self.bytes_sent or offering or not self.watched:
                    # the liveness task looks again: we may send heartbeats now, or the
                    # hellos just told that the peer speaks them
                    self.offered = self.offered or offering
                    self._poke.set()
                self.bytes_sent += len(data)
                self._last_sent = trio.current_time()
            if scope.cancelled_caught:
                raise LinkBroken(f"the peer did not read for {timeout:g} s")

    async def finish(self, *, linger: float = 2.0) -> None:
        """Half-close and drain what the peer still sends, so our last message is
        delivered instead of being reset by a close with unread data."""
        self._finishing = True
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
