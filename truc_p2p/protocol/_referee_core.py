"""The one referee: where the game stands in the message table, judged for every message.

Theory of operation
-------------------
h11 runs one state machine for both sides of a connection.  Here one
:class:`RefereeCore` holds the game's position in the table of wire.md section 5
(:mod:`._state`): the stage, who sent the message that ended the last hand, how
many of the next hand's pre-deal messages are on the chain (the pipelined deal's
interjections), and how the game ended (the co-signed result, an abort, a
resignation, or an error).  Its :meth:`RefereeCore.step` is the one road of a
message: no second ending (:func:`~._judge.check_not_ended`), the turn
(:func:`~._judge.check_turn`, which names the stage the message is in), then the
message's handler from the :mod:`._rulebook`; the handler judges the payload and
moves the stage on with :meth:`RefereeCore.advance`.  Before the handler it notes
what a resignation at the message's chain position would record (its
:attr:`~RefereeCore.marks`: a resignation's ``seq`` names one), which both judges
read; a message the verifier cannot replay (a hand without both seeds) is only
noted (:meth:`RefereeCore.pass_over`).

Two judges drive one each, and keep no stage of their own:

* the live session's table (:class:`~._play.HandPlay`) steps its own messages and
  the peer's through it, as they take their place on the chain;
* the offline verifier (:class:`~._referee_state.RefereeState`) steps both players'
  messages of a transcript through it.

What differs between them is what a message does to the deck and the rules engine
(a player holds its secrets; the verifier rebuilds both sides from the revealed
seeds): those are the judges' handlers, which the core dispatches to.  The order of
messages, the turns and the endings are judged here only; ``trail`` records the
stage each message was judged in, so the two judges can be compared
(``tests/protocol/test_protocol_one_referee.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from truc_p2p.protocol._judge import (
    Mark,
    audit_refusal,
    check_not_ended,
    check_turn,
    mark_before,
    resignation_hand,
)
from truc_p2p.protocol._messages import MessageType
from truc_p2p.protocol._rulebook import handler as rulebook_handler
from truc_p2p.protocol._state import (
    Cond,
    Stage,
    due_stage,
    expected_sender,
    next_stage,
)
from truc_p2p.protocol._wire import Envelope
from truc_p2p.rules import Game, Player

__all__ = ["Judge", "RefereeCore"]

#: Stages that start (or resume) a hand's deal: nothing of the next hand is on the
#: chain when they are entered (a dangling pre-deal is never opened).
_DEAL_STAGES = frozenset({Stage.V2_DECK1, Stage.V2_DECK2, Stage.V2_OPEN, Stage.V2_DECK3})
#: The pre-deal messages of the next hand on the chain once a message of the stage is.
_PREDEAL_AFTER = {Stage.V2_PREDEAL1: 1, Stage.V2_PREDEAL2: 2}
#: The endings off the table: an abort (ours without a peer, the host's refusal) or an error.
_OFF_TABLE = (Stage.ABORTED, Stage.ERROR)


class Judge(Protocol):
    """What the referee reads from the judge it drives (the session's table or the
    verifier's replay): its view of the rules engine, the deck version and the hand
    being played (from 0), whether it can replay that hand (``blind``: the verifier
    without its seeds), whether the players chose the pipelined deal and whether
    both hellos agreed the rest-final rule.  Its handlers (``on_`` + the rulebook's
    name) are found by :func:`~._rulebook.handler`."""

    @property
    def game(self) -> Game | None: ...

    @property
    def deck(self) -> str | None: ...

    @property
    def hand(self) -> int: ...

    @property
    def blind(self) -> bool: ...

    @property
    def pipelined(self) -> bool: ...

    @property
    def rest_final(self) -> bool: ...


class RefereeCore:
    """The game's position in the message table and the one judgement of its order
    (see the module docstring); ``judge`` holds the handlers it dispatches to."""

    def __init__(self, judge: Judge) -> None:
        self._judge = judge
        #: the stage of the table of wire.md section 5 (:mod:`._state`)
        self.stage = Stage.HELLO_INITIATOR
        #: the player who sent the message that ended the last hand
        self.hand_ender: Player | None = None
        #: how many of the next hand's two pre-deal messages are on the chain
        #: (``None`` while no pre-deal may run; wire.md 6b)
        self.predeal: int | None = None
        #: whether an abort that ended the game was a resignation (wire.md section 8)
        self.resigned = False
        #: the stage each message on the chain was judged in, in chain order
        self.trail: list[Stage] = []
        #: before each chain position, what a resignation there would record (wire.md
        #: section 8): a resignation's ``seq`` names one (it may be earlier than the
        #: last message when a move crossed it)
        self.marks: list[Mark] = []
        self._v1_deals = 0  # deck1 messages on the chain: a v1 resignation's hand

    # -- reading the position ----------------------------------------------------------

    def due(self) -> Stage:
        """The stage whose message comes next: an owed interjection (a pre-deal
        message of the next hand) from the player due, else the stage itself."""
        judge = self._judge
        return due_stage(
            self.stage, judge.game, self.hand_ender, self.predeal, rest_final=judge.rest_final
        )

    def expected_sender(self) -> Player:
        """The player who must send the stage's own message."""
        return expected_sender(self.stage, self._judge.game, self.hand_ender)

    @property
    def ending(self) -> str:
        """How the game ended, in the words of a second ending's error: ``"the
        co-signed result"``, ``"a resignation"`` or ``"an abort"``."""
        if self.stage is Stage.DONE:
            return "the co-signed result"
        return "a resignation" if self.resigned else "an abort"

    def resignation_hand(self) -> int:
        """The hand (from 1) a resignation now is in (:func:`~._judge.resignation_hand`:
        deck v1 counts the hands whose ``deck1`` is on the chain, which a verifier
        without the seeds can count too; deck v2 the hands started)."""
        judge = self._judge
        return resignation_hand(judge.deck, v1_deals=self._v1_deals, hand=judge.hand)

    def _mark(self) -> Mark:
        """What a resignation at the next position would record: the chain before it as
        replayed (with a hand the judge cannot replay, only that the game had started)."""
        game, hands = self._judge.game, self.resignation_hand()
        if self._judge.blind:
            return Mark(allowed=game is not None, scores=None, hands=hands)
        return mark_before(self.stage, game, hands=hands)

    def _note(self, env: Envelope) -> None:
        """``env`` takes the next chain position: note the mark before it."""
        self.marks.append(self._mark())
        self._v1_deals += env.type == MessageType.DECK1

    def refusal(self, abort: Envelope) -> tuple[Player, str] | None:
        """Who refused the audit if ``abort`` (not a resignation) comes now
        (:func:`~._judge.audit_refusal`); ``None`` when no reveal is due."""
        return audit_refusal(self.stage, self._judge.game, self.hand_ender, abort)

    # -- judging a message ---------------------------------------------------------------

    def check_not_ended(self, env: Envelope) -> None:
        """One ending per game: nothing after it (:func:`~._judge.check_not_ended`)."""
        check_not_ended(self.stage, self.ending, env)

    def check(self, env: Envelope) -> Stage:
        """The stage ``env`` is judged in, or the error: after the game's ending, out
        of turn, or a type other than the one due.  An ``abort`` may come in any stage
        before the ending.  Changes nothing."""
        self.check_not_ended(env)
        if env.type == MessageType.ABORT:
            return self.stage
        judge = self._judge
        return check_turn(
            self.stage,
            env,
            game=judge.game,
            hand_ender=self.hand_ender,
            predeal=self.predeal,
            rest_final=judge.rest_final,
        )

    def step(self, env: Envelope, *args: Any, place: Callable[[], None] | None = None) -> None:
        """Judge ``env`` and run its handler with ``args`` (the session's ``mine``, the
        verifier's sender): the one road of every message.  Once its order is judged
        (the one turn check) the resignation mark before its position is noted and
        ``place`` puts it on the chain (the session's; the verifier's is the
        transcript): a message out of turn never takes a place, so whatever we chain
        after it (our abort) links to the message before it."""
        stage = self.check(env)
        handler = rulebook_handler(self._judge, env.type)  # the one dispatch
        self._note(env)
        if place is not None:
            place()
        self.trail.append(stage)
        if env.type == MessageType.ABORT:
            handler(env, *args)  # it judges the abort (a resignation's checks)
            self.resigned = env.payload["reason"] == "resign"
            self.stage = Stage.ABORTED
            return
        self.stage = stage  # an owed interjection is the stage now
        if stage in _PREDEAL_AFTER:
            self.predeal = _PREDEAL_AFTER[stage]
        elif stage is Stage.V2_DECK3 and self._judge.pipelined:
            self.predeal = 0  # this hand is dealt: the next may be pre-dealt
        handler(env, *args)

    def pass_over(self, env: Envelope) -> None:
        """``env`` sits in a hand the judge cannot replay (the verifier without its
        seeds): only its position is noted, its order and payload are not judged."""
        assert self._judge.blind
        self._note(env)

    # -- moving on -----------------------------------------------------------------------

    def advance(
        self, holds: Mapping[Cond, bool] | None = None, *, actor: Player | None = None
    ) -> None:
        """The stage after the message being handled, given which conditions hold;
        ``actor`` sent an action, which may have ended the hand."""
        holds = holds or {}
        if actor is not None and holds.get(Cond.ROUND_OVER, False):
            self.hand_ender = actor
        self.stage = next_stage(self.stage, holds)
        if self.stage in _DEAL_STAGES:
            self.predeal = None

    def end(self, stage: Stage) -> None:
        """The game ended off the table: ``ABORTED`` (our abort before any peer, the
        host's refusal of our hello) or ``ERROR`` (the peer broke the protocol)."""
        assert stage in _OFF_TABLE
        self.stage = stage
