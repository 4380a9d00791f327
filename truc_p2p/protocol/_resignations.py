"""What a resignation records (wire.md section 8), as one session's part.

A :class:`Resignations` notes, before each chain position, whether a resignation
may sit there and the score and hand it would record (a resignation may chain to
an earlier point than our last message when our move crossed it), and keeps the
signed resignation that ended the game, ours or the peer's.  It judges the
peer's resignation with :func:`~._judge.check_resignation`, as the verifier
does; the session signs, sends and keeps the stage.
"""

from __future__ import annotations

from truc_p2p.protocol._events import Resignation
from truc_p2p.protocol._judge import Mark, check_resignation, mark_before, resignation_hand
from truc_p2p.protocol._messages import MessageType
from truc_p2p.protocol._state import Stage
from truc_p2p.protocol._wire import Envelope
from truc_p2p.rules import Game, Player

__all__ = ["Resignations"]


class Resignations:
    """One session's resignations: the marks before each chain position and the
    resignation that ended the game; ``deck`` is the deck version played."""

    def __init__(self, *, me: Player, deck: str) -> None:
        self._me = me
        self._deck = deck
        self._marks: list[Mark] = []
        self._v1_deals = 0  # deck1 messages on the chain: a v1 resignation's hand number
        #: the signed resignation that ended the game (ours or the peer's), if any
        self.resignation: Resignation | None = None

    def note(self, mtype: str, stage: Stage, game: Game | None, hand: int) -> None:
        """Note, before the next chain position, what a resignation there would record
        (``stage``, ``game`` and the current ``hand`` from 0 as they are now); ``mtype``
        is the type of the envelope that takes the position."""
        self._marks.append(mark_before(stage, game, hands=self.hand(hand)))
        self._v1_deals += mtype == MessageType.DECK1

    def hand(self, hand: int) -> int:
        """The hand a resignation now is in (from 1; ``hand`` is the current one, from
        0).  Deck v1 counts the hands whose ``deck1`` is on the chain, which a verifier
        without the seeds can count too; deck v2 the hands started (the verifier
        replays every v2 hand)."""
        return resignation_hand(self._deck, v1_deals=self._v1_deals, hand=hand)

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

    def theirs(self, env: Envelope, *, game_id: bytes, agreed: bool) -> Resignation:
        """The peer's signed resignation (``env``, now on the chain): valid only if both
        hellos announced resignation (``agreed``) and, on the chain before it (its
        ``seq`` may be earlier than our last message when our move crossed it), the
        game was under way and not decided.  The game is ours."""
        mark = self._marks[env.seq]
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
