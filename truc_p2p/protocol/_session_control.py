"""The control plane of a session: ending early (abort, resignation), reconnecting
(resume, refuse) and the farewell (bye).

This layer holds no state of its own.  The signed messages outside the chain go
through the session's :class:`~._control.ControlPlane`, and what a resignation
records is the session's :class:`~._resignations.Resignations`; this layer signs
the aborts, frames the plane's messages, keeps the session's stage and queues what
the two parts return.
"""

from __future__ import annotations

from truc_p2p._text import printable
from truc_p2p.protocol._control import ResumeClock
from truc_p2p.protocol._errors import (
    LocalProtocolError,
    RemoteProtocolError,
    ResumeRefusedError,
)
from truc_p2p.protocol._events import (
    PeerResigned,
    Resignation,
)
from truc_p2p.protocol._messages import (
    ABORT_REASONS,
    MessageType,
)
from truc_p2p.protocol._play import HandPlay
from truc_p2p.protocol._state import (
    Stage,
)
from truc_p2p.protocol._values import (
    FEATURE_RESIGN,
    resignable,
)
from truc_p2p.protocol._wire import (
    Envelope,
    FrameBuffer,
    decode_envelope,
    frame,
)

__all__ = ["ControlSide"]


class ControlSide(HandPlay):
    """How a session ends early, reconnects and says goodbye; see the module docstring."""

    def abort(self, reason: str, detail: str = "") -> bytes:
        """End the game early with a signed ``abort`` (quit, timeout, cheat, ...).

        Returns the bytes to send (empty if nothing can be sent any more).  Reason
        ``"resign"`` is :meth:`resign`: a complete result, with its own checks.
        """
        if reason not in ABORT_REASONS:
            raise LocalProtocolError(f"abort reason must be one of {', '.join(ABORT_REASONS)}")
        if reason == "resign":
            return self.resign(detail)
        if self.stage in (Stage.DONE, Stage.ABORTED):
            return b""
        detail = printable(detail, 200)
        hellos = self._hello.hellos
        if not hellos or (len(hellos) < 2 and self._hello.peer_key is None):
            self.stage = Stage.ABORTED
            return b""
        self._emit(MessageType.ABORT, {"reason": reason, "detail": detail})
        self.stage = Stage.ABORTED
        return self.data_to_send()

    @property
    def can_resign(self) -> bool:
        """Whether :meth:`resign` would give the game away now: resignation is agreed,
        the game started and is not decided, and no reveal or result is due."""
        return (
            self._error is None
            and self._hello.agreed(FEATURE_RESIGN)
            and resignable(self.stage, self._game)
        )

    def resign(self, detail: str = "") -> bytes:
        """Give the game to the opponent with a signed ``abort`` {reason: ``resign``}.

        Unlike a ``quit`` this is a complete result (wire.md section 8): the opponent
        wins, the score is the one on the chain now, and both transcripts verify.
        It may be sent at any time during the deal and play, also while the
        opponent is to act.  Raises :class:`LocalProtocolError` when
        :attr:`can_resign` is false (an old peer, no game yet, or the game is
        decided): leave with :meth:`abort` ``"quit"`` then.  Returns the bytes to send.
        """
        if not self.can_resign:
            why = (
                "the peer does not support it"
                if not self._hello.agreed(FEATURE_RESIGN)
                else (f"not in stage {self.stage.value}")
            )
            raise LocalProtocolError(f"cannot resign now: {why}")
        game = self._game
        assert game is not None
        detail = printable(detail, 200)
        scores, hand = game.scores, self._resignations.hand(self._hand)
        self._emit(MessageType.ABORT, {"reason": "resign", "detail": detail})
        self.stage = Stage.ABORTED
        self._resignations.ours(
            game_id=self._hello.game_id,
            scores=scores,
            hand=hand,
            detail=detail,
            envelope=self._chain.raw(self._chain.seq - 1),
        )
        return self.data_to_send()

    @property
    def resignation(self) -> Resignation | None:
        """The signed resignation that ended the game (ours or the peer's), if any."""
        return self._resignations.resignation

    @property
    def ending(self) -> str:
        """How the game ended, in the words of a second ending's error: ``"a
        resignation"``, ``"an abort"`` or ``"the co-signed result"``."""
        if self.stage is Stage.DONE:
            return "the co-signed result"
        return "a resignation" if self.resignation is not None else "an abort"

    @property
    def peer_played(self) -> bool:
        """Whether the peer signed a message of the game beyond its hello and an abort
        (a host that turns our options down after its hello played nothing)."""
        peer = int(self.me.other)
        mine = [n for n in range(self._chain.seq) if self._chain.sender(n) == peer]
        if mine and decode_envelope(self._chain.raw(mine[-1])).type == MessageType.ABORT:
            mine.pop()
        return len(mine) > 1

    @property
    def resumable(self) -> bool:
        """Whether a lost connection can be resumed: the game id exists and the game was
        neither aborted nor broken (a finished game still resends its last messages)."""
        return bool(self._hello.game_id) and self.stage not in (Stage.ABORTED, Stage.ERROR)

    @property
    def peer_done(self) -> bool:
        """The peer said ``bye``: it holds the whole game, nothing is owed to it."""
        return self._control.peer_done

    def _read_farewells(self) -> None:
        """After the result: look for the peer's ``bye``; anything else is dropped."""
        while not self._control.peer_done:
            try:
                raw = self._frames.next_envelope()
            except RemoteProtocolError:
                self._frames = FrameBuffer()
                return
            if raw is None:
                return
            self._control.on_farewell(raw)

    def farewell(self) -> bytes:
        """A signed ``bye`` (framed, outside the chain): we hold the whole game.

        Sent once the result is co-signed; the peer that receives it knows our
        last message arrived.  A side keeps answering reconnections until it
        gets the peer's ``bye``.
        """
        if self.stage is not Stage.DONE:
            raise LocalProtocolError("bye comes after the co-signed result")
        return frame(self._control.farewell())

    @property
    def reconnecting(self) -> bool:
        """True between :meth:`reconnect` and the peer's valid ``resume``."""
        return self._control.reconnecting

    def reconnect(self, nonce: bytes, *, dialer: bool, clock: ResumeClock | None = None) -> None:
        """Start over on a new connection after the old one was lost.

        Drops the old connection's partial input and unsent output (whatever the
        peer lacks is resent once it says how far it got), then expects the
        peer's signed ``resume`` as the first message.  The ``dialer`` (the side
        that opened the new connection) sends its ``resume`` at once; the other
        side answers the dialer's, echoing its ``nonce`` (16 fresh random bytes
        from the caller).  Read :meth:`data_to_send` afterwards.  A connection
        whose first message is not a valid resume raises
        :class:`ResumeRefusedError` from :meth:`next_event` and leaves the game
        intact: call :meth:`reconnect` again for the next connection.

        ``clock`` is our view of the turn clock and the away time, which our resume
        carries when both hellos announce the clock in resume (wire.md 13.1,
        :attr:`resume_clock_agreed`); the peer's comes back in :class:`Resumed`.
        """
        if not self.resumable:
            raise LocalProtocolError(f"nothing to resume: session is {self.stage.value}")
        resume = self._control.reconnect(nonce, dialer=dialer, clock=clock)
        self._frames = FrameBuffer()
        self._outbox.clear()
        if resume is not None:
            self._outbox.append(resume)

    def _on_resume(self, raw: bytes) -> None:
        try:
            event, out = self._control.on_resume(raw)
        except ResumeRefusedError:
            self._frames = FrameBuffer()  # the connection is condemned, not the game
            raise
        except RemoteProtocolError as exc:
            self._fail(exc)
            raise
        self._outbox.extend(out)
        self._events.append(event)

    def _on_refuse(self, env: Envelope) -> None:
        """The host's signed refusal of our hello."""
        self._events.append(self._control.refusal(env))
        if not self._hello.game_id:
            self.stage = Stage.ABORTED

    def _on_resign(self, env: Envelope) -> None:
        """The peer's signed resignation (wire.md section 8): the game is ours.

        It is valid only if both hellos announced resignation and, on the chain
        before it (its ``seq`` may be earlier than our last message when our move
        crossed it), the game was under way and not decided.
        """
        agreed = self._hello.agreed(FEATURE_RESIGN)
        resignation = self._resignations.theirs(env, game_id=self._hello.game_id, agreed=agreed)
        self.stage = Stage.ABORTED
        self._events.append(
            PeerResigned(
                reason="resign",
                detail=env.payload["detail"],
                envelope=env.raw,
                resignation=resignation,
            )
        )
