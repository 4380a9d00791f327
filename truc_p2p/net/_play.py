"""Drive a sans-IO :class:`~truc_p2p.protocol.Session` over a trio stream.

Theory of operation
-------------------
:func:`play_game` is the h11-style loop around the session: pull an event,
flush whatever the session queued, and then either wait for bytes
(``NEED_DATA``), ask the local :class:`Strategy` for an action
(``YourTurn``) or stop (``CLOSED``).  A :class:`~._bytepipe.Link` owns the
stream: one reader task feeds chunks through a bounded channel and every
send goes through one lock.

While the local player thinks, a watcher task keeps reading, so an abort,
EOF or garbage from the opponent interrupts the choice at once instead of
after it.  While waiting for the opponent, a deadline runs: it restarts
whenever we send something or a complete frame arrives, and it stops while
the link is down (a resume goes on with the time that was left, never a new
turn timeout); when it passes we send a signed ``abort`` with reason
``timeout`` (recorded in the transcript like every envelope) and end with
:attr:`End.OPPONENT_TIMEOUT`.

A lost connection does not end a game that has started: the loop's
:class:`~._reconnect.LinkKeeper` holds the link, and with a
:class:`Reconnector` it waits up to ``grace`` seconds for a new one and
resumes the session on it, so the loop goes on where it stopped.  Each
link sends a heartbeat when we have been silent for ``heartbeat`` seconds
and is given up when no frame came for ``dead_after`` seconds (a half-open
connection); a frame that fails its framing or signature check ends the
link, not the game (wire.md section 13.3, 13.4).

Everything the peer or the network can do ends in a :class:`GameOutcome`,
never an exception: EOF and resets without a reconnector (no abort is
written then, so the transcript and the stored secret can still resume the
game with ``truc-p2p resume``), protocol
errors (we answer with a signed ``abort`` -- ``cheat``, ``error`` or
``incompatible`` -- and keep the evidence in the transcript), and a host
whose key does not match the invite's fingerprint (nothing more is sent).
"""

from __future__ import annotations

import contextlib
import hmac
import math
from collections import deque
from typing import Any

import trio

from truc_p2p.net._bytepipe import Closed, LinkBroken
from truc_p2p.net._outcome import (
    End,
    GameOutcome,
    session_outcome,
    where_of,
)
from truc_p2p.net._play_endings import (
    closed_outcome,
    end_by_us,
    leave_outcome,
    peer_aborted_outcome,
    refused_outcome,
    remote_error_outcome,
    timeout_outcome,
)
from truc_p2p.net._play_options import PlayOptions
from truc_p2p.net._reconnect import (
    Abandoned,
    Ending,
    LinkKeeper,
    Lost,
    NetEvent,
)
from truc_p2p.net._strategy import CONCEDE_DETAIL, QuitGame, Strategy, concedes
from truc_p2p.protocol import (
    CLOSED,
    NEED_DATA,
    AnyEvent,
    LocalProtocolError,
    PeerAborted,
    PeerKeyMismatchError,
    Refused,
    RemoteProtocolError,
    Session,
    SessionEvent,
    YourTurn,
)
from truc_p2p.rules import Action, Event

__all__ = ["play_game"]


class _GameLoop:
    def __init__(
        self, stream: trio.abc.Stream, session: Session, strategy: Strategy, options: PlayOptions
    ) -> None:
        self.session = session
        self.on_evidence = options.on_evidence
        self.strategy = strategy
        self._prefix = options.prefix
        #: ``None``: a new game; else resume a restored session on ``stream``
        #: (True: we dialled it).
        self._resuming = options.resuming
        self.turn_timeout = options.clocks.turn_timeout
        self.hello_timeout = options.clocks.hello_timeout
        self.expected_fingerprint = options.expected_fingerprint
        self.on_event = options.on_event
        self.stop = options.stop
        self.send_timeout = options.send_timeout
        self.linger = options.linger
        self._pin_checked = options.expected_fingerprint is None
        self._pending: deque[AnyEvent] = deque()
        self.keeper = LinkKeeper(
            stream,
            session,
            options,
            end=self._ended,
            notify=self._notify,
            queue=self._pending.append,
        )
        self._deadline = math.inf
        #: Whether the deadline times the opponent now (we wait for its envelope); not
        #: while our player chooses, nor before the loop's first wait.
        self._timing = False
        self._main_scope = trio.CancelScope()
        self._quit_requested = False

    # -- top level -------------------------------------------------------------------

    async def run(self) -> GameOutcome:
        crash: Exception | None = None
        outcome: GameOutcome | None = None
        async with trio.open_nursery() as nursery:
            self.keeper.start(nursery)
            if self.stop is not None:
                nursery.start_soon(self._watch_stop, self.stop)
            try:
                with self._main_scope:
                    # One road into a game: a restored session's past goes to the
                    # screen first, as it went live (a new game has none).
                    for past in self.session.take_history():
                        self._notify(past)
                    if self._resuming is not None:
                        outcome = await self.keeper.resume_first(self._prefix, self._resuming)
                    elif self._prefix:
                        admitted = self.keeper.link.admit(self._prefix)
                        if admitted is None:
                            await self.keeper.link.cut("damaged data on the link: first frame")
                        else:
                            self._feed(admitted)
                    if outcome is None:
                        outcome = await self._loop()
                    if outcome.end is End.FINISHED:
                        await self.keeper.confirm_delivery()
                if outcome is None:
                    outcome = await self._leave()
                await self.keeper.link.finish(linger=self.linger)
                await self.keeper.release()
            except OSError as exc:  # the transcript (``record``) failed: disk full, I/O error
                outcome = await self._disk_error(exc)
                await self.keeper.link.finish(linger=self.linger)
            except Exception as exc:  # a bug in the strategy or the event hook
                crash = exc
                with trio.move_on_after(self.send_timeout):
                    with contextlib.suppress(LinkBroken, LocalProtocolError, OSError):
                        await self.keeper.send(self.session.abort("error", "local failure"))
            finally:
                nursery.cancel_scope.cancel()
        if crash is not None:
            raise crash
        assert outcome is not None
        return outcome

    async def _watch_stop(self, stop: trio.Event) -> None:
        await stop.wait()
        self._quit_requested = True
        self._main_scope.cancel()

    # -- the game --------------------------------------------------------------------

    async def _loop(self) -> GameOutcome:
        s = self.session
        self._restart_clock()
        while True:
            if self._pending:
                event = self._pending.popleft()
            else:
                try:
                    event = s.next_event()
                except PeerKeyMismatchError as exc:
                    # The session refused the key before sending anything more.
                    return session_outcome(
                        self.session, End.FINGERPRINT_MISMATCH, "key-mismatch", {"error": str(exc)}
                    )
                except RemoteProtocolError as exc:
                    refused = self._check_pin()
                    if refused is not None:
                        return refused
                    return await self._remote_error(exc)
            refused = self._check_pin()
            if refused is not None:
                return refused
            try:
                await self._flush()
            except LinkBroken as exc:
                ended = await self._recover(str(exc))
                if ended is not None:
                    return ended
            if event is CLOSED:
                return closed_outcome(self.session)
            if event is NEED_DATA:
                self._timing = True
                item = await self.keeper.link.receive(deadline=self._deadline)
                if item is None:
                    return await self._timeout()
                if isinstance(item, Closed):
                    ended = await self._recover(item.reason)
                    if ended is not None:
                        return ended
                    continue
                self._feed(item)
                continue
            assert not isinstance(event, type(CLOSED))
            self._notify(event)
            if isinstance(event, Refused):
                return refused_outcome(self.session, event)
            if isinstance(event, PeerAborted):
                return peer_aborted_outcome(self.session, event)
            if isinstance(event, YourTurn):
                ended = await self._take_turn(event)
                if ended is not None:
                    return ended

    # -- helpers ---------------------------------------------------------------------

    def _restart_clock(self) -> None:
        limit = self.turn_timeout if self.session.peer_fingerprint else self.hello_timeout
        self._deadline = trio.current_time() + limit

    def _feed(self, data: bytes) -> None:
        if self.keeper.received(data):
            self._restart_clock()
        self.session.receive_data(data)

    async def _flush(self) -> None:
        data = self.session.data_to_send()
        if data:
            await self.keeper.send(data)
            self._restart_clock()

    def _tell_turn_clock(self) -> None:
        """After a resume, tell the screen what the opponent's clock leaves our move."""
        clock = self.keeper.turn_clock()
        if clock is not None:
            self._notify(clock)

    def _notify(self, event: Event | SessionEvent | NetEvent) -> None:
        if self.on_event is not None:
            self.on_event(event)

    def _check_pin(self) -> GameOutcome | None:
        if self._pin_checked:
            return None
        expected, actual = self.expected_fingerprint, self.session.peer_fingerprint
        if actual is None or expected is None:
            return None
        if hmac.compare_digest(actual.encode(), expected.lower().encode()):
            self._pin_checked = True
            return None
        self.session.data_to_send()  # drop it: nothing more goes to an impostor
        return session_outcome(
            self.session,
            End.FINGERPRINT_MISMATCH,
            "fingerprint-mismatch",
            {"actual": actual, "expected": expected.lower()},
        )

    async def _take_turn(self, turn: YourTurn) -> GameOutcome | None:
        s = self.session
        game = s.game
        self._timing = False  # the opponent times us now, not we it
        self._tell_turn_clock()
        interrupt: list[GameOutcome | RemoteProtocolError] = []
        action: Action | None = None
        quit_game = False
        failure: Exception | None = None
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._watch_during_turn, nursery.cancel_scope, interrupt)
            try:
                action = await self.strategy.choose(game, turn.legal_actions)
            except QuitGame:
                quit_game = True
            except Exception as exc:  # re-raised below, outside the nursery's group
                failure = exc
            # A reconnection in progress finishes before we act on the choice.
            if not interrupt:
                await self.keeper.settled()
            nursery.cancel_scope.cancel()
        if failure is not None:
            raise failure
        for item in interrupt:
            if isinstance(item, GameOutcome):
                return item
            return await self._remote_error(item)
        if any(isinstance(e, PeerAborted) for e in self._pending):
            return None  # the main loop reports it
        if quit_game:
            return await self._leave()
        assert action is not None
        try:
            data = s.send(action)
        except RemoteProtocolError as exc:  # the peer's put-off pre-deal failed its check
            return await self._remote_error(exc)
        except LocalProtocolError as exc:
            return await self._end_by_us(
                End.LOCAL_ERROR,
                "error",
                "local player failure",
                "local-refused",
                {"error": str(exc)},
            )
        try:
            await self.keeper.send(data)
        except LinkBroken as exc:
            return await self._recover(str(exc))
        self._restart_clock()
        return None

    async def _watch_during_turn(
        self, scope: trio.CancelScope, interrupt: list[GameOutcome | RemoteProtocolError]
    ) -> None:
        """Read while the local player thinks; reconnect when the link drops (the
        player keeps thinking); cancel ``scope`` on abort, error or a lost game."""
        # The next hand's put-off deck work runs while the player thinks, once the
        # strategy has had its first step (so the turn shows first).
        await trio.lowlevel.checkpoint()
        try:
            self.session.work()
        except RemoteProtocolError as exc:
            interrupt.append(exc)
            scope.cancel()
            return
        # Our pre-deal message, if we owed one, goes out now: the peer checks it
        # and makes its answer while we think, not after our move.
        data = self.session.data_to_send()
        if data:
            # Shielded: these bytes are out of the session now; a choice made meanwhile
            # cancels this watcher, and cancelled before its turn at the send lock they
            # would be lost while our move after them goes out (the peer: bad-sequence).
            with trio.CancelScope(shield=True), contextlib.suppress(LinkBroken):
                await self.keeper.send(data)  # the reader sees the link go; a resume resends
        while True:
            item = await self.keeper.link.receive()
            if item is None:  # pragma: no cover - no deadline here
                continue
            if isinstance(item, Closed):
                ended = await self._recover(item.reason)
                if ended is not None:
                    interrupt.append(ended)
                    scope.cancel()
                    return
                self._tell_turn_clock()  # we are still choosing: the peer's clock of it
                if self._pending:  # events queued before the drop
                    scope.cancel()
                    return
                continue
            self._feed(item)
            while True:
                try:
                    event = self.session.next_event()
                except RemoteProtocolError as exc:
                    interrupt.append(exc)
                    scope.cancel()
                    return
                if event is NEED_DATA:
                    break
                self._pending.append(event)
                if isinstance(event, PeerAborted) or event is CLOSED:
                    scope.cancel()
                    return

    # -- endings ---------------------------------------------------------------------

    async def _end_by_us(
        self, end: End, reason: str, detail: str, kind: str, facts: dict[str, Any]
    ) -> GameOutcome:
        return await self._send_ending(end_by_us(self.session, end, reason, detail, kind, facts))

    async def _send_ending(self, ending: tuple[bytes, GameOutcome]) -> GameOutcome:
        data, outcome = ending
        if data:
            with contextlib.suppress(LinkBroken):
                await self.keeper.send(data)
        return outcome

    async def _leave(self) -> GameOutcome:
        """Our player left on purpose: a signed resignation or quit
        (:func:`~._play_endings.leave_outcome`)."""
        detail = CONCEDE_DETAIL if concedes(self.strategy) else "the player resigned"
        return await self._send_ending(leave_outcome(self.session, detail=detail))

    async def _timeout(self) -> GameOutcome:
        return await self._send_ending(
            timeout_outcome(
                self.session, turn_timeout=self.turn_timeout, hello_timeout=self.hello_timeout
            )
        )

    async def _disk_error(self, exc: OSError) -> GameOutcome:
        """Our transcript cannot be written: stop, with a signed abort if it can be
        recorded first (never an envelope that is not on disk)."""
        what = exc.strerror or str(exc)
        try:
            data = self.session.abort("error", f"cannot write its transcript: {what}")
        except OSError:
            data = b""
        if data:
            with contextlib.suppress(LinkBroken):
                await self.keeper.send(data)
            return session_outcome(
                self.session,
                End.DISK_ERROR,
                "disk-error-told",
                {"error": what, **where_of(self.session)},
                abort_reason="error",
                abort_detail="cannot write its transcript",
            )
        return session_outcome(
            self.session, End.DISK_ERROR, "disk-error", {"error": what, **where_of(self.session)}
        )

    async def _recover(self, reason: str) -> GameOutcome | None:
        """The link dropped: ``None`` once a new one resumed the game, or the outcome.

        The turn clock is suspended while disconnected and goes on after the resume
        with the time it had left at the drop (wire.md 13.5): a resume never gives
        the player to act a new turn timeout.  The time away is bounded by the
        grace of each drop and the game's away budget (13.4)."""
        left = max(0.0, self._deadline - trio.current_time())
        # What our clock left the opponent goes in our resume (13.1): the peer, if it
        # restarted, shows it; while our player chooses we time nobody.
        ended = await self.keeper.recover(reason, clock_left=left if self._timing else None)
        if ended is None:
            self._deadline = trio.current_time() + left
        return ended

    async def _ended(self, why: Ending) -> GameOutcome:
        """The outcome of a game that cannot go on on a new link (the keeper's ``end``)."""
        if isinstance(why, Lost):
            return session_outcome(
                self.session,
                End.CONNECTION_LOST,
                "connection-lost",
                {"error": why.reason, **where_of(self.session)},
            )
        if isinstance(why, Abandoned):
            detail = f"the opponent did not come back within {why.grace:g} s"
            if why.budget is not None:
                detail += f" (it used the {why.budget:g} s it may be away in a game)"
            return await self._end_by_us(
                End.OPPONENT_ABANDONED,
                "abandoned",
                detail,
                "abandoned",
                {"grace": float(why.grace), **where_of(self.session)},
            )
        if isinstance(why, Refused):
            return refused_outcome(self.session, why)
        if isinstance(why, RemoteProtocolError):
            return await self._remote_error(why)
        return closed_outcome(self.session)  # pragma: no cover - a resumable session is open

    async def _remote_error(self, exc: RemoteProtocolError) -> GameOutcome:
        with contextlib.suppress(LinkBroken):  # e.g. the responder's hello, queued
            await self._flush()  # before it saw the mismatch
        if self.on_evidence is not None and exc.evidence:
            self.on_evidence(exc)  # kept before the abort that it backs is signed
        return await self._send_ending(remote_error_outcome(self.session, exc))


async def play_game(
    stream: trio.abc.Stream,
    session: Session,
    strategy: Strategy,
    options: PlayOptions = PlayOptions(),
) -> GameOutcome:
    """Play one game of ``session`` over ``stream`` until it ends; return the outcome.

    ``strategy`` chooses the local player's actions; ``options`` says how the
    game is played (:class:`PlayOptions`).  Its ``clocks.turn_timeout`` is how
    long the opponent may stay silent while we wait for it (``hello_timeout``
    before its hello).  ``expected_fingerprint`` pins the peer's key (the
    joiner passes the invite's).  ``on_event`` sees every event.  Setting
    ``stop`` (or the strategy raising ``QuitGame``) leaves the game: a signed
    resignation when the peer agreed to it and the game is under way
    (:attr:`End.RESIGNED`), else a signed ``quit`` (:attr:`End.QUIT`).  The stream is
    half-closed but not closed: the caller owns it.

    ``reconnector`` supplies a new stream when the connection drops after the
    game id exists; the opponent then has ``grace`` seconds to come back.
    ``prefix`` is bytes already read from ``stream`` (the host's accept loop
    reads the first frame to route the connection).  ``resuming`` (True: we
    dialled) starts with the resume exchange, for a session rebuilt with
    :meth:`Session.restore`.  ``before_send`` runs before any bytes leave
    (the transcript's fsync: our own envelopes are durable first).
    ``heartbeat`` and ``dead_after`` keep each link alive and notice a dead
    one (``math.inf`` turns either off).  ``on_evidence`` gets a peer's
    protocol error before our abort is signed, to keep signed evidence the
    transcript cannot hold (a ``resume``, wire.md section 13.8).
    ``away_budget`` bounds the time the opponent may be away over the whole
    game, all drops together; a resume suspends the turn clock, never restarts
    it (wire.md sections 13.4, 13.5).  ``away_file`` keeps the away time used
    across a restart (read at the start, written synced at each resume).

    Network and peer failures are outcomes, not exceptions; only a failure
    of ``strategy`` or ``on_event`` propagates (after a signed ``error``
    abort was attempted).
    """
    loop = _GameLoop(stream, session, strategy, options)
    return await loop.run()
