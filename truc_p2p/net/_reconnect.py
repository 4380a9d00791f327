"""Keep a game's connection: the current link, and a new one when it drops.

Theory of operation
-------------------
A lost connection does not end a game that has started.  With a
:class:`Reconnector` (the joiner redials, the host takes the next
connection its accept loop routes to this game) the :class:`LinkKeeper`
waits up to ``grace`` seconds for a new stream, exchanges signed ``resume``
messages (:meth:`Session.reconnect`) and gives the game loop a working link
again; the local player keeps thinking meanwhile, and the event hook sees
:class:`PeerDisconnected` (with a countdown) and :class:`PeerReconnected`.
A connection that does not resume the game (refused, broken, silent) only
costs that attempt.  When the grace runs out the game ends with a signed
``abort`` ``abandoned``.  After a co-signed result the keeper stays
reachable until the peer's ``bye`` says it has our last message too.

Every link runs a :class:`~._gate.FrameGate` and a liveness task
(:meth:`~._bytepipe.Link.run_liveness`): a damaged frame or a silent peer
ends the link, never the game.  The grace clock of a drop is only stopped
once the game moved on the new link (a checked frame from the peer beyond
the resume exchange, or :data:`PROBATION` seconds without another drop), so
a peer whose every link breaks at once is abandoned after ``grace``, not
given a new grace by each resume.  A reconnector that can announce a new
connection (:class:`Takeover`, the host's) replaces a link the peer has
given up on: the peer's valid ``resume`` takes the game over at once.

The keeper owns the link's reader task and counts frames and bytes over all
the links of a game.  It never decides how a game ends: it hands the loop
an :data:`Ending` and the loop makes the :class:`GameOutcome`.
"""

from __future__ import annotations

import contextlib
import math
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import trio

from truc_p2p.net._away import ms, read_away, write_away
from truc_p2p.net._bytepipe import Link, LinkBroken
from truc_p2p.net._gate import FrameGate
from truc_p2p.net._net_events import NetEvent, PeerDisconnected, PeerReconnected, TurnClock
from truc_p2p.net._outcome import GameOutcome
from truc_p2p.protocol import (
    CLOSED,
    NEED_DATA,
    AnyEvent,
    Refused,
    RemoteProtocolError,
    ResumeClock,
    Resumed,
    ResumeRefusedError,
    Session,
)
from truc_p2p.rules import Player

if TYPE_CHECKING:  # it imports this module (for Reconnector)
    from truc_p2p.net._play_options import PlayOptions

__all__ = [
    "Abandoned",
    "Ending",
    "LinkKeeper",
    "Lost",
    "NetEvent",
    "Patient",
    "PeerDisconnected",
    "PeerReconnected",
    "Reconnector",
    "SessionClosed",
    "Takeover",
    "TurnClock",
]

#: Seconds one reconnection attempt may take (connect, resume and its answer).
RESUME_TIMEOUT = 10.0
#: Seconds a finished side stays reachable for a peer that may lack our last message.
BYE_WINDOW = 15.0
#: Seconds between two countdown events while the opponent is away.
COUNTDOWN_EVERY = 15.0
#: Seconds a resumed link must last (when no frame moved the game) before a new
#: drop starts a new grace period rather than continuing the last one.
PROBATION = 30.0
#: The resume throttle (wire.md 13.4): the second resume exchange of a run in which
#: the game did not move waits this long after the previous one, each next one twice
#: as long, up to :data:`RESUME_MAX_DELAY`; the dialer waits before it dials, the
#: listener before it answers.
RESUME_FIRST_DELAY = 0.25
RESUME_MAX_DELAY = 4.0


def storm_delay(run: int) -> float:
    """Seconds between the previous resume exchange and the next one when ``run``
    exchanges came since the game last moved (0 for the first: a drop resumes at once)."""
    if run <= 0:
        return 0.0
    return min(RESUME_FIRST_DELAY * (1 << min(run - 1, 16)), RESUME_MAX_DELAY)


@dataclass(frozen=True)
class _PeerClock:
    """The peer's ``left`` for us after a resume: ``seconds`` as of trio time ``at``,
    for our move at chain position ``position`` (its *have*)."""

    seconds: float
    position: int
    at: float


class Reconnector(Protocol):
    """Where the next connection of a game comes from after the last one dropped."""

    async def next_stream(self) -> tuple[trio.abc.Stream, bytes, bool]:
        """Return ``(stream, bytes already read from it, we_dialled)``; may wait forever."""
        ...


class Patient(Protocol):
    """A reconnector that is told how long the game waits for its next stream (the
    joiner's redialer says so when the host does not answer)."""

    def waiting_until(self, deadline: float) -> None:
        """The game waits for :meth:`Reconnector.next_stream` until trio time ``deadline``."""
        ...


class Takeover(Protocol):
    """A reconnector that can tell that a new connection for the game is waiting."""

    async def offered(self) -> None:
        """Return once a new connection is waiting to be taken."""
        ...


@dataclass(frozen=True)
class Lost:
    """The link is gone and no other can come (no reconnector, or not resumable)."""

    reason: str


@dataclass(frozen=True)
class Abandoned:
    """The opponent did not come back within ``grace`` seconds (the wait of this
    drop); ``budget`` is the game's away budget when that ran out first."""

    grace: float
    budget: float | None = None


@dataclass(frozen=True)
class SessionClosed:
    """The session closed during the resume exchange."""


#: Why the game cannot go on on a new link: also the peer's refusal of our
#: ``resume``, or a protocol error in its answer.
Ending = Lost | Abandoned | SessionClosed | Refused | RemoteProtocolError


class _FrameCounter:
    """Counts complete frames in a byte stream (4-byte length prefix)."""

    def __init__(self) -> None:
        self._header = bytearray()
        self._left = 0
        self.count = 0

    def restart(self) -> None:
        """A new link starts at a frame boundary: forget a frame the old one cut."""
        self._header.clear()
        self._left = 0

    def feed(self, data: bytes) -> int:
        """Feed bytes; return how many frames they completed."""
        before, i = self.count, 0
        while i < len(data):
            if self._left:
                take = min(self._left, len(data) - i)
                i += take
                self._left -= take
                if not self._left:
                    self.count += 1
                continue
            take = min(4 - len(self._header), len(data) - i)
            self._header += data[i : i + take]
            i += take
            if len(self._header) == 4:
                self._left = int.from_bytes(self._header, "big")
                self._header.clear()
                if not self._left:
                    self.count += 1
        return self.count - before


class _Retry:
    """This connection did not resume the game: try the next one."""


_RETRY = _Retry()


class LinkKeeper:
    """A game's connection across drops: the current :attr:`link` and its reader,
    what went over all its links, and the resume on a new one.

    It reads the game loop's :class:`~._play_options.PlayOptions` (the clocks, the
    send timeout, the away file, the hook before each send and the reconnector).
    ``end`` makes the outcome of an :data:`Ending`, ``notify`` reports a
    :class:`NetEvent` and ``queue`` hands the loop a session event that arrived
    during a resume.  Call :meth:`start` in the game's nursery first.
    """

    def __init__(
        self,
        stream: trio.abc.Stream,
        session: Session,
        options: PlayOptions,
        *,
        end: Callable[[Ending], Awaitable[GameOutcome]],
        notify: Callable[[NetEvent], None],
        queue: Callable[[AnyEvent], None],
    ) -> None:
        clocks, away_file = options.clocks, options.away_file
        send_timeout, before_send = options.send_timeout, options.before_send
        reconnector = options.reconnector
        self.session = session
        #: Seconds the peer may be away over the whole game (wire.md 13.4).
        self._away_budget = clocks.away_budget
        #: Where the away time used is kept across a restart (``None``: nowhere).
        self._away_file = away_file
        #: Seconds it has been away so far: from each drop to the resume that ended it
        #: (a restored game goes on from the count kept beside its transcript).
        self.away_total = read_away(away_file)
        #: What our turn clock left the player it timed when the link dropped (for
        #: our ``resume``, wire.md 13.1); ``None``: we timed nobody.
        self._clock_left: float | None = None
        #: The peer's clock of our move from its last resume, until the loop takes it.
        self._peer_clock: _PeerClock | None = None
        #: When the wait of the drop in progress ends (grace or budget, the earlier).
        self._wait_until = math.inf
        self._peer_beats = False  # the peer sent heartbeats on an earlier link
        self._heartbeat = clocks.heartbeat
        self._dead_after = clocks.dead_after
        self.link = self._new_link(stream)
        self._first_stream = stream
        self._end = end
        self._notify = notify
        self._queue = queue
        self._send_timeout = send_timeout
        self._before_send = before_send
        self._reconnector = reconnector
        self._grace = clocks.grace
        self._hello_timeout = clocks.hello_timeout
        self._nursery: trio.Nursery | None = None
        self._reader_scope = trio.CancelScope()
        self._bytes_before = 0
        self._sent = _FrameCounter()
        self._received = _FrameCounter()
        self._grace_deadline: float | None = None
        self._away_since = 0.0
        self._restarted = False  # until the first resume of a restored session is done
        self._recovering: trio.Event | None = None
        #: When the last resume happened (the grace clock runs until the game moves).
        self._resumed_at: float | None = None
        #: Links that ended on damaged data, over the game.
        self.faults = 0
        #: Resume exchanges since the game last moved, when the last one began and how
        #: long the chain was then: the next one waits :func:`storm_delay` (a storm of
        #: resumes is throttled).
        self.storm = 0
        self._last_exchange = -math.inf
        self._chain_at_exchange = -1

    # -- the current link ------------------------------------------------------------

    def start(self, nursery: trio.Nursery) -> None:
        """Run the readers in ``nursery``, starting with the first stream's."""
        self._nursery = nursery
        self._start_reader(self.link)
        if hasattr(self._reconnector, "offered"):
            nursery.start_soon(self._watch_takeovers)

    def _new_link(self, stream: trio.abc.Stream) -> Link:
        return Link(
            stream,
            gate=FrameGate(lambda: self.session.peer_key),
            heartbeat=self._heartbeat,
            dead_after=self._dead_after,
            # the joiner dials every link; it offers heartbeats once both hellos
            # announce them (on a resume link the game's hellos already tell)
            offer=self._heartbeats_agreed if self.session.me is Player.P0 else None,
            expect_beats=self._peer_beats,
            agreed=self._heartbeats_agreed,
        )

    def _heartbeats_agreed(self) -> bool:
        return self.session.heartbeats_agreed

    async def _watch_takeovers(self) -> None:
        """The peer redialled while we still hold its old link (it gave that up, say
        after a half-open cut): end the old link so the game takes the new one."""
        takeover: Takeover = self._reconnector  # type: ignore[assignment]
        while True:
            await takeover.offered()
            if self._recovering is None:
                await self.link.cut("the peer reconnected on a new connection")
            await trio.sleep(0.05)  # until the game's recovery took it

    @property
    def messages(self) -> int:
        """Frames sent and received so far, over every link."""
        return self._sent.count + self._received.count

    @property
    def nbytes(self) -> int:
        """Bytes sent and received so far, over every link."""
        return self._bytes_before + self.link.bytes_sent + self.link.bytes_received

    def received(self, data: bytes) -> int:
        """Count the frames that ``data``, just read, completes; a frame after a
        resume shows that the new link works (the grace clock stops)."""
        frames = self._received.feed(data)
        if frames and self._recovering is None:
            self._resumed_at = None
            self._grace_deadline = None
        return frames

    async def send(self, data: bytes) -> None:
        """Send bytes on the current link, once our own envelopes in them are durable."""
        if not data:
            return
        if self._before_send is not None:
            self._before_send()
        self._sent.feed(data)
        await self.link.send(data, timeout=self._send_timeout)

    async def release(self) -> None:
        """Close the last stream if the reconnector gave it (the caller owns the first)."""
        if self.link.stream is not self._first_stream:
            await self._drop_link()

    def _start_reader(self, link: Link) -> None:
        assert self._nursery is not None
        self._reader_scope = scope = trio.CancelScope()

        async def read() -> None:
            with scope:
                async with trio.open_nursery() as inner:
                    inner.start_soon(link.run_liveness)
                    await link.run_reader()
                    inner.cancel_scope.cancel()

        self._nursery.start_soon(read)

    async def _drop_link(self) -> None:
        self._peer_beats = self._peer_beats or self.link.peer_beats
        self._reader_scope.cancel()
        self._sent.restart()
        self._received.restart()
        self._bytes_before += self.link.bytes_sent + self.link.bytes_received
        with trio.CancelScope(shield=True), trio.move_on_after(1), contextlib.suppress(Exception):
            await self.link.stream.aclose()

    # -- a new link ------------------------------------------------------------------

    async def settled(self) -> None:
        """Wait for a reconnection in progress (in another task) to finish."""
        if self._recovering is not None:
            await self._recovering.wait()

    async def recover(self, reason: str, *, clock_left: float | None = None) -> GameOutcome | None:
        """The link is gone: get a new one within the grace period (``None``) or end.

        ``clock_left`` is what our turn clock left the opponent (``None``: we are not
        timing it); our ``resume`` says so when both hellos agree (wire.md 13.1)."""
        s = self.session
        self._clock_left = clock_left
        if self._reconnector is None or not s.resumable:
            return await self._end(Lost(reason))
        now = trio.current_time()
        if reason.startswith("damaged data"):
            self.faults += 1
        if self._resumed_at is not None and now - self._resumed_at >= PROBATION:
            self._grace_deadline = None  # the last link held: this is a new drop
            self.storm = 0
        self._resumed_at = None
        if self._grace_deadline is None:
            # A game that never started (no coin yet) is not worth a long wait.
            grace = self._grace if s.started else min(self._grace, self._hello_timeout)
            self._grace_deadline = now + grace
        self._away_since = now
        # The game's away budget bounds every wait together (a peer that drops and
        # resumes over and over cannot stall the game for ever).
        budget_end = now + max(0.0, self._away_budget - self.away_total)
        self._wait_until = min(self._grace_deadline, budget_end)
        self._recovering = done = trio.Event()
        if hasattr(self._reconnector, "waiting_until"):
            patient: Patient = self._reconnector  # type: ignore[assignment]
            patient.waiting_until(self._wait_until)
        try:
            await self._drop_link()
            with trio.move_on_at(self._wait_until):
                async with trio.open_nursery() as nursery:
                    await nursery.start(self._started_countdown, reason)
                    try:
                        while True:
                            if self.session.me is Player.P0:  # we dial: wait, then dial
                                await self._throttle()
                            stream, prefix, dialled = await self._reconnector.next_stream()
                            if self.session.me is not Player.P0:  # wait, then answer
                                try:
                                    await self._throttle()
                                except BaseException:  # the wait ended: not taken
                                    await trio.aclose_forcefully(stream)
                                    raise
                            self.link = self._new_link(stream)
                            self._start_reader(self.link)
                            ended = await self._attach(prefix, dialled)
                            if not isinstance(ended, _Retry):
                                return ended
                            await self._drop_link()
                    finally:
                        nursery.cancel_scope.cancel()
        finally:
            self._recovering = None
            done.set()
        self.away_total += trio.current_time() - now
        if budget_end < self._grace_deadline:
            return await self._end(Abandoned(self._wait_until - now, budget=self._away_budget))
        return await self._end(Abandoned(self._grace))

    async def _throttle(self) -> None:
        """Space resume exchanges that follow each other without the game moving
        (wire.md 13.4): a peer that resumes and drops over and over, or a link that
        damages every frame, costs each side a bounded rate of exchanges."""
        held = self.session.transcript_messages
        if held != self._chain_at_exchange:
            self.storm = 0  # the game moved since the last exchange: a new run
        await trio.sleep_until(self._last_exchange + storm_delay(self.storm))
        self._last_exchange = trio.current_time()
        self._chain_at_exchange = self.session.transcript_messages
        self.storm += 1

    def turn_clock(self) -> TurnClock | None:
        """The peer's clock of the move we are about to choose, if its last resume
        timed this very move: our chain is at the peer's *have* (an envelope of ours
        in between, an automatic one, started a new turn there: its value is moot)."""
        clock, held = self._peer_clock, self.session.transcript_messages
        if clock is None or held < clock.position:
            return None  # not there yet (its envelopes we lacked are on their way)
        self._peer_clock = None
        if held > clock.position:
            return None
        return TurnClock(seconds_left=max(0.0, clock.seconds - (trio.current_time() - clock.at)))

    def _keep_away(self) -> None:
        """Keep the away time used beside the transcript (a restart goes on from it)."""
        if self._away_file is not None:
            with contextlib.suppress(OSError):  # the count is a bound, not the game
                write_away(self._away_file, self.away_total)

    @property
    def away_left(self) -> float:
        """Seconds of the game's away budget the peer has not used."""
        return max(0.0, self._away_budget - self.away_total)

    async def resume_first(self, prefix: bytes, dialled: bool) -> GameOutcome | None:
        """Resume a restored session on the first stream (``truc-p2p resume``)."""
        now = trio.current_time()
        self._grace_deadline = now + self._grace
        self._away_since = now
        self._wait_until = min(self._grace_deadline, now + self.away_left)
        self._restarted = True
        self._clock_left = None  # a restarted side's clock is lost: the peer's counts
        ended = await self._attach(prefix, dialled)
        if isinstance(ended, _Retry):
            return await self.recover("the first reconnection attempt failed")
        return ended

    async def confirm_delivery(self) -> None:
        """Stay reachable until the peer's ``bye`` says it got our last message too.

        If the connection drops first, the peer may still wait for our result:
        reconnect (a finished session resends it) and say ``bye`` again.
        Without a reconnector there is nothing to wait for.
        """
        if self._reconnector is None:
            return
        s = self.session
        with trio.move_on_after(min(self._grace, BYE_WINDOW)):
            while True:
                with contextlib.suppress(LinkBroken):
                    await self.send(s.farewell())
                if s.peer_done:
                    return
                while not s.peer_done:
                    item = await self.link.receive()
                    if isinstance(item, bytes):
                        s.receive_data(item)
                        s.next_event()  # reads the peer's bye
                        continue
                    reason = item.reason if item is not None else "no answer"
                    if await self.recover(f"{reason} (after the result)") is not None:
                        return
                    break

    async def _started_countdown(
        self, reason: str, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
    ) -> None:
        task_status.started()
        await self._countdown(reason)

    async def _countdown(self, reason: str) -> None:
        """Tell the player at once that the opponent is away, then count down."""
        grace = self._wait_until - self._away_since
        while True:
            left = max(0.0, self._wait_until - trio.current_time())
            self._notify(PeerDisconnected(reason=reason, seconds_left=left, grace=grace))
            await trio.sleep(min(COUNTDOWN_EVERY, left) or COUNTDOWN_EVERY)

    async def _attach(self, prefix: bytes, dialled: bool) -> GameOutcome | _Retry | None:
        """Exchange ``resume`` on the new link: ``None`` on success, :data:`_RETRY` to
        try another connection, or the outcome that ends the game."""
        s = self.session
        left = None if self._clock_left is None else ms(self._clock_left)
        clock = ResumeClock(left_ms=left, away_ms=ms(self.away_total))
        s.reconnect(secrets.token_bytes(16), dialer=dialled, clock=clock)
        if prefix:
            admitted = self.link.admit(prefix)
            if admitted is None:
                return _RETRY
            s.receive_data(admitted)
        with trio.move_on_after(RESUME_TIMEOUT):
            try:
                await self.send(s.data_to_send())
            except LinkBroken:
                return _RETRY
            while True:
                try:
                    event = s.next_event()
                except ResumeRefusedError:
                    return _RETRY
                except RemoteProtocolError as exc:
                    return await self._end(exc)
                if event is NEED_DATA:
                    item = await self.link.receive()
                    if not isinstance(item, bytes):
                        return _RETRY
                    self._received.feed(item)
                    s.receive_data(item)
                    continue
                if isinstance(event, Refused):
                    return await self._end(event)
                if isinstance(event, Resumed):
                    try:
                        await self.send(s.data_to_send())
                    except LinkBroken:
                        return _RETRY
                    after = trio.current_time() - self._away_since
                    if event.peer_away is not None:  # both count; the larger holds
                        self.away_total = max(self.away_total, event.peer_away / 1000)
                    self.away_total += after  # the away budget stops now
                    self._keep_away()
                    self._resumed_at = trio.current_time()  # the grace clock stops later
                    mine = event.time_left_ms
                    self._peer_clock = (
                        None
                        if mine is None
                        else _PeerClock(mine / 1000, event.peer_has, trio.current_time())
                    )
                    self._notify(
                        PeerReconnected(
                            after=after,
                            resent=event.resent,
                            received_again=max(0, event.peer_has - event.we_have),
                            we_came_back=self._restarted,
                        )
                    )
                    self._restarted = False
                    return None
                if event is CLOSED:  # pragma: no cover - a resumable session is open
                    return await self._end(SessionClosed())
                self._queue(event)  # queued before the drop: handled next
        return _RETRY
