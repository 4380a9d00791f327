"""What a resignation records (wire.md section 8), as one session's part.

A :class:`Resignations` keeps the signed resignation that ended the game, ours or
the peer's.  It judges the peer's resignation with
:func:`~._judge.check_resignation` on the mark the referee noted before the
position its ``seq`` names (:attr:`~._referee_core.RefereeCore.marks`, which the
verifier reads too), as the verifier does; the session signs and sends.
"""

from __future__ import annotations

from truc_p2p.protocol._events import Resignation
from truc_p2p.protocol._judge import Mark, check_resignation
from truc_p2p.protocol._wire import Envelope
from truc_p2p.rules import Player

__all__ = ["Resignations"]


class Resignations:
    """One session's resignations: the one that ended the game, ours or the peer's."""

    def __init__(self, *, me: Player) -> None:
        self._me = me
        #: the signed resignation that ended the game (ours or the peer's), if any
        self.resignation: Resignation | None = None

    def ours(
        self, *, game_id: bytes, scores: tuple[int, int], hand: int, detail: str, envelope: bytes
    ) -> Resignation:
        """Our resignation, signed as ``envelope``: the peer wins with ``scores`` as they
        were on the chain, in ``hand`` (from 1)."""
        self.resignation = Resignation(
            game_id=game_id,
            by=self._me,
            winner=self._me.other,
            scores=scores,
            hand=hand,
            detail=detail,
            envelope=envelope,
        )
        return self.resignation

    def theirs(self, env: Envelope, mark: Mark, *, game_id: bytes, agreed: bool) -> Resignation:
        """The peer's signed resignation (``env``, now on the chain): valid only if both
        hellos announced resignation (``agreed``) and, on the chain before it (``mark``,
        the referee's before the position its ``seq`` names, which may be earlier than
        our last message when our move crossed it), the game was under way and not
        decided.  The game is ours."""
        check_resignation(agreed, mark, message_no=env.seq)
        scores, hand = mark.scores, mark.hands
        assert scores is not None  # the session replays every hand it plays
        self.resignation = Resignation(
            game_id=game_id,
            by=self._me.other,
            winner=self._me,
            scores=scores,
            hand=hand,
            detail=env.payload["detail"],
            envelope=env.raw,
        )
        return self.resignation
