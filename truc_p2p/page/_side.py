"""My side of one game in the page: the session, event-driven.

Theory of operation
-------------------
:func:`truc_p2p.net.play_game` is a trio loop around the session; :class:`Side`
is the same loop turned inside out, for a Web Worker that is called when
something happens (bytes arrive, the player clicks, a timer fires) and must
return at once.  :meth:`Side.pump` pulls events until the session needs data:
each goes to the table (:class:`~.PageFeed`), automatic messages go out through
``send``, a ``YourTurn`` offers the choices and stops (the put-off deck work is
done then, as the trio loop does it while the player thinks).  Bytes arriving
during our turn are read at once, so an abort interrupts the choice.  Every end
is decided by :mod:`truc_p2p.net._play_endings`, the trio loop's own functions.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from truc_p2p.net import End, GameOutcome
from truc_p2p.net._outcome import session_outcome, where_of
from truc_p2p.net._play_endings import (
    CONCEDE_DETAIL,
    Ending,
    closed_outcome,
    end_by_us,
    leave_outcome,
    peer_aborted_outcome,
    refused_outcome,
    remote_error_outcome,
)
from truc_p2p.protocol import (
    CLOSED,
    NEED_DATA,
    AnyEvent,
    LocalProtocolError,
    PeerAborted,
    PeerKeyMismatchError,
    Refused,
    RemoteProtocolError,
    ResumeRefusedError,
    Session,
    YourTurn,
)
from truc_p2p.rules import Action
from truc_p2p.ui import TableFeed

__all__ = ["Side"]


class Side:
    """One session of mine, fed bytes and clicks; ``send`` takes its bytes, ``ended``
    is called once with the outcome.  ``condemned`` is called when a new link's first
    message is not a valid resume (wire.md 13.1): that connection is refused, not the
    game, so the caller drops it and links again, as the desktop program does; with no
    ``condemned`` (a game that cannot link again) it ends the game."""

    def __init__(
        self,
        session: Session,
        feed: TableFeed,
        *,
        send: Callable[[bytes], None],
        ended: Callable[[GameOutcome], None],
        condemned: Callable[[str], None] | None = None,
    ) -> None:
        self.session = session
        self.feed = feed
        self._send = send
        self._ended = ended
        self._condemned = condemned
        self.turn: YourTurn | None = None
        self.outcome: GameOutcome | None = None
        self._pending: deque[AnyEvent] = deque()

    @property
    def waiting(self) -> bool:
        """Whether we wait for the opponent (its clock runs), not for our player."""
        return self.outcome is None and self.turn is None

    def start(self) -> None:
        """The first step: the initiator's hello (and a restored game's past)."""
        for past in self.session.take_history():
            self.feed(past)
        self.pump()

    def data(self, data: bytes) -> None:
        """Checked frames from the peer."""
        if self.outcome is not None:
            return
        self.session.receive_data(data)
        self.pump()

    def pump(self) -> None:
        """Pull events until the session needs data, our player must choose, or the
        game ends."""
        if self.outcome is not None:
            return
        if self.turn is not None:
            self._read_during_turn()
            if self.turn is not None:
                return
        s = self.session
        while self.outcome is None:
            if self._pending:
                event = self._pending.popleft()
            else:
                try:
                    event = s.next_event()
                except PeerKeyMismatchError as exc:
                    self._finish(
                        session_outcome(
                            s, End.FINGERPRINT_MISMATCH, "key-mismatch", {"error": str(exc)}
                        )
                    )
                    return
                except ResumeRefusedError as exc:
                    self._refused_link(exc)
                    return
                except RemoteProtocolError as exc:
                    self._remote_error(exc)
                    return
            self._flush()
            if event is CLOSED:
                self._finish(closed_outcome(s))
                return
            if event is NEED_DATA:
                return
            self.feed(event)
            if isinstance(event, Refused):
                self._finish(refused_outcome(s, event))
                return
            if isinstance(event, PeerAborted):
                self._finish(peer_aborted_outcome(s, event))
                return
            if isinstance(event, YourTurn):
                self.turn = event
                self.feed.offer(s.game, event.legal_actions)
                try:
                    s.work()  # the next hand's deck work, while our player thinks
                except RemoteProtocolError as exc:
                    self._remote_error(exc)
                    return
                self._flush()
                return

    def _read_during_turn(self) -> None:
        while True:
            try:
                event = self.session.next_event()
            except ResumeRefusedError as exc:
                if self._condemned is None:
                    self._cancel_turn()
                self._refused_link(exc)  # the game and the turn stay
                return
            except RemoteProtocolError as exc:
                self._cancel_turn()
                self._remote_error(exc)
                return
            if event is NEED_DATA:
                return
            self._pending.append(event)
            if isinstance(event, PeerAborted) or event is CLOSED:
                self._cancel_turn()
                return

    def _cancel_turn(self) -> None:
        self.turn = None
        self.feed.withdraw()

    def act(self, choice: Action | None) -> None:
        """Our player's answer to the turn: an action, or ``None`` to leave."""
        if self.turn is None or self.outcome is not None:
            return
        self.turn = None
        self.feed.withdraw()
        if choice is None:
            self._end(self._leaving())
            return
        try:
            data = self.session.send(choice)
        except RemoteProtocolError as exc:  # the peer's put-off pre-deal failed its check
            self._remote_error(exc)
            return
        except LocalProtocolError as exc:
            self._end(
                end_by_us(
                    self.session,
                    End.LOCAL_ERROR,
                    "error",
                    "local player failure",
                    "local-refused",
                    {"error": str(exc)},
                )
            )
            return
        self._send(data)
        self.pump()

    def _leaving(self) -> Ending:
        """Our player leaves: the match (a resignation's usual detail) or, when the
        table's concede button asked, only this game of it (wire.md 4.1)."""
        if self.feed.concedes:
            return leave_outcome(self.session, detail=CONCEDE_DETAIL)
        return leave_outcome(self.session)

    def leave(self) -> None:
        """Our player leaves while the opponent thinks (a signed resignation or quit)."""
        if self.outcome is None:
            self._end(self._leaving())

    def end_with(self, ending: Ending) -> None:
        """End the game from our side (a timeout: the bytes and the outcome)."""
        if self.outcome is None:
            self._end(ending)

    def relinked(self) -> None:
        """A new link after :meth:`Session.reconnect`: send our ``resume`` (the dialer's)
        and go on reading."""
        self._flush()
        self.pump()

    def lost(self, reason: str) -> None:
        """The link is gone and will not come back: the game stops unsigned (the
        transcript and the secret can still resume it)."""
        if self.outcome is None:
            self._finish(
                session_outcome(
                    self.session,
                    End.CONNECTION_LOST,
                    "connection-lost",
                    {"error": reason, **where_of(self.session)},
                )
            )

    # -- helpers -----------------------------------------------------------------

    def _flush(self) -> None:
        data = self.session.data_to_send()
        if data:
            self._send(data)

    def _refused_link(self, exc: ResumeRefusedError) -> None:
        if self._condemned is None:
            self._remote_error(exc)
        else:
            self._condemned(str(exc))

    def _remote_error(self, exc: RemoteProtocolError) -> None:
        self._flush()  # e.g. the responder's hello, queued before it saw the mismatch
        self._end(remote_error_outcome(self.session, exc))

    def _end(self, ending: Ending) -> None:
        data, outcome = ending
        if data:
            self._send(data)
        self._finish(outcome)

    def _finish(self, outcome: GameOutcome) -> None:
        if self.outcome is not None:
            return
        if self.turn is not None:
            self._cancel_turn()
        self.outcome = outcome
        self._ended(outcome)
