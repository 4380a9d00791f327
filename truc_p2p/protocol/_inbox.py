"""The peer's input, as one session's part: its frames read, each envelope judged
and put on the chain, and the error that ended the session.

An :class:`Inbox` reads what the peer sent from the session's :class:`~._link.Link`
and hands out the session's next event (:meth:`Inbox.next_event`): a queued event,
else the next envelope read.  A chained envelope is checked here (signature,
sender, the chain's one judgement, the payload's shape) and handed to the table
(:meth:`~._play.HandPlay.apply`), whose referee judges its turn once and only then
puts it on the chain.  The messages outside the chain go to the session's
:class:`~._control.ControlPlane`: the peer's ``resume`` while reconnecting, the
host's ``refuse`` of our hello, the peer's ``bye`` after the result.  The inbox
owns the error that ended the session (:attr:`Inbox.error`): any fault in peer
input is kept there, moves the referee to ``ERROR`` and keeps being raised.
"""

from __future__ import annotations

from collections import deque
from functools import partial

from truc_p2p.protocol._chain import hello_key
from truc_p2p.protocol._errors import (
    LocalProtocolError,
    OutOfTurnError,
    ProtocolError,
    RemoteProtocolError,
    ResumeRefusedError,
    UnexpectedMessageError,
)
from truc_p2p.protocol._events import CLOSED, NEED_DATA, AnyEvent
from truc_p2p.protocol._link import Link
from truc_p2p.protocol._messages import MessageType, validate_payload
from truc_p2p.protocol._play import HandPlay, Parts
from truc_p2p.protocol._state import Stage
from truc_p2p.protocol._wire import Envelope, decode_envelope, verify_signature
from truc_p2p.rules import Player

__all__ = ["Inbox"]


class Inbox:
    """One session's input from the peer (see the module docstring): ``public`` is our
    own key (a peer's hello may not claim it), ``events`` the session's queue."""

    def __init__(
        self,
        *,
        me: Player,
        public: bytes,
        link: Link,
        parts: Parts,
        play: HandPlay,
        events: deque[AnyEvent],
    ) -> None:
        self._me = me
        self._public = public
        self._link = link
        self._hello, self._control, self._chain = parts.hello, parts.control, parts.chain
        self._play = play
        self._events = events
        #: the error that ended the session, if any
        self.error: ProtocolError | None = None

    def feed(self, data: bytes) -> None:
        """Buffer ``data``, unless the game ended and needs no more peer input (then it
        is dropped: never an error, never buffered)."""
        ended = self._play.stage
        if not self._control.reconnecting and (
            ended in (Stage.ABORTED, Stage.ERROR)
            or (ended is Stage.DONE and self._control.peer_done)
        ):
            return
        self._link.frames.feed(data)

    def next_event(self) -> AnyEvent:
        """The next event, :data:`NEED_DATA` or :data:`CLOSED`; raises the error that
        ended the session (and keeps raising it)."""
        play, frames = self._play, self._link.frames
        while True:
            if self._events:
                return self._events.popleft()
            if self.error is not None:
                raise self.error
            if self._control.reconnecting:
                try:
                    raw = frames.next_envelope()
                except RemoteProtocolError as exc:
                    self._link.drop_input()
                    raise ResumeRefusedError(f"not a resume: {exc.args[0]}") from None
                if raw is None:
                    return NEED_DATA
                self._on_resume(raw)
                continue
            if play.stage is Stage.DONE:
                self._read_farewells()
                return CLOSED
            if play.stage is Stage.ABORTED:
                return CLOSED
            if play.make_owed_predeal():
                continue
            try:
                raw = frames.next_envelope()
            except RemoteProtocolError as exc:
                self.fail(exc)
                raise
            if raw is None:
                if play.pipeline.work():  # nothing to read: time for the put-off deck work
                    continue
                return NEED_DATA
            self._receive(raw)

    def fail(self, exc: ProtocolError) -> None:
        """The session ends in error ``exc`` (the referee's ``ERROR`` stage)."""
        self.error = exc
        self._play.referee.end(Stage.ERROR)
        # Events are queued one envelope at a time, so any still queued came from
        # the rejected envelope (e.g. the cards of a bad deck4): drop them.
        self._events.clear()

    # -- outside the chain ---------------------------------------------------------------

    def _on_resume(self, raw: bytes) -> None:
        try:
            event, out = self._control.on_resume(raw)
        except ResumeRefusedError:
            self._link.drop_input()  # the connection is condemned, not the game
            raise
        except RemoteProtocolError as exc:
            self.fail(exc)
            raise
        self._link.outbox.extend(out)
        self._events.append(event)

    def _on_refuse(self, env: Envelope) -> None:
        """The host's signed refusal of our hello."""
        self._events.append(self._control.on_refuse(env))
        if not self._hello.game_id:
            self._play.referee.end(Stage.ABORTED)

    def _read_farewells(self) -> None:
        """After the result: look for the peer's ``bye``; anything else is dropped."""
        while not self._control.peer_done:
            try:
                raw = self._link.frames.next_envelope()
            except RemoteProtocolError:
                self._link.drop_input()
                return
            if raw is None:
                return
            self._control.on_bye(raw)

    # -- the chain -----------------------------------------------------------------------

    def _receive(self, raw: bytes) -> None:
        position = self._chain.seq  # where ``raw`` sits in the transcript
        self._link.keep(raw)
        try:
            env = decode_envelope(raw, message_no=position)
            if env.type == MessageType.REFUSE and self._play.stage is Stage.HELLO_RESPONDER:
                self._on_refuse(env)
                return
            self._check_envelope(env)
            place = partial(self._chain.append, env.sender, raw, env.hash)
            self._play.apply(env, mine=False, place=place)
        except RemoteProtocolError as exc:
            if exc is self.error:  # put-off deck work failed: it names its own message
                raise
            if not exc.evidence:
                exc.evidence = (raw,)
            # Name the envelope by its place in the transcript (as the verifier
            # does), never by the sequence number it claims.
            exc.message_no = position
            self.fail(exc)
            raise

    def _check_envelope(self, env: Envelope) -> None:
        """Signature, sender, then the chain's one judgement (game id, position,
        equivocation: :meth:`~._chain.Chain.check_link`) and the payload's shape.

        The turn is judged once, by the referee's step in :meth:`HandPlay.apply`,
        before the envelope takes its place on the chain: one out of turn never
        does, so whatever we chain after it (our abort) links to the message before
        it.  Judging it here as well would be a second turn check."""
        evidence = (env.raw,)
        n = env.seq
        if self._play.stage is Stage.ERROR:  # pragma: no cover - next_event raises first
            raise LocalProtocolError("session is in error")
        key = self._hello.peer_key
        if env.type == MessageType.HELLO and key is None:
            key = hello_key(env, taken=self._public)
        elif key is None:
            raise UnexpectedMessageError(
                f"{env.type!r} before the peer's hello", evidence=evidence, message_no=n
            )
        verify_signature(env, key)
        if env.sender != int(self._me.other):
            raise OutOfTurnError(
                f"message claims sender {env.sender}", evidence=evidence, message_no=n
            )
        self._chain.check_link(env, self._hello.game_id)
        validate_payload(env.type, env.payload, evidence=evidence, message_no=n)
