"""The session's side of the connection and its record: the frames read from the
peer, the framed envelopes waiting to be sent, the transcript's tally and the
``record`` callback every envelope goes to, in transcript order.

A part of the :class:`~._session.Session` that owns this state and nothing else:
the session hands it every envelope it signs or accepts (:meth:`Link.keep`) and
every one it sends (:meth:`Link.send`); a restore replays through
:attr:`Link.sent_log`.
"""

from __future__ import annotations

from collections.abc import Callable

from truc_p2p.protocol._wire import FRAME_HEADER, FrameBuffer, frame

__all__ = ["Link"]


class Link:
    """Input frames, output queue and the record of one session (see the module
    docstring)."""

    def __init__(self, record: Callable[[bytes], None] | None) -> None:
        #: called with every envelope of the transcript (``None``: not recorded)
        self.record = record
        #: the peer's bytes, framed
        self.frames = FrameBuffer()
        #: our envelopes (and control messages) not handed to the caller yet
        self.outbox: list[bytes] = []
        #: while restoring: every own envelope made, in order (``None`` otherwise)
        self.sent_log: list[bytes] | None = None
        # Envelopes recorded (or, without ``record``, that would be) and their framed bytes.
        self._tally = [0, 0]

    @property
    def messages(self) -> int:
        """Envelopes of this game's transcript so far."""
        return self._tally[0]

    @property
    def nbytes(self) -> int:
        """Bytes of those envelopes framed as in the transcript."""
        return self._tally[1]

    def keep(self, raw: bytes) -> None:
        """An envelope of the transcript, ours or the peer's: count and record it."""
        self._tally[0] += 1
        self._tally[1] += FRAME_HEADER + len(raw)
        if self.record is not None:
            self.record(raw)

    def send(self, raw: bytes, *, hold: bool = False) -> None:
        """Queue one of our envelopes (``hold``: not now, the connection is being
        resumed and the peer says what it lacks)."""
        if not hold:
            self.outbox.append(raw)
        if self.sent_log is not None:
            self.sent_log.append(raw)

    def take(self) -> bytes:
        """Framed bytes of everything queued since the last call."""
        out = b"".join(frame(env) for env in self.outbox)
        self.outbox.clear()
        return out

    def drop_input(self) -> None:
        """Forget the peer's partial input (a condemned connection)."""
        self.frames = FrameBuffer()

    def new_connection(self) -> None:
        """Start over on a new connection: no partial input, nothing unsent."""
        self.frames = FrameBuffer()
        self.outbox.clear()
