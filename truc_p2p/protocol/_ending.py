"""How the game ends on the session's table, as one part: the co-signed result, the
peer's abort and the peer's resignation.

An :class:`Ending` expects the ``result`` both players sign once the game is over
(and the audit, under deck v1, passed: :func:`~._judge.expected_result`), sends ours
when it is due, checks the peer's against it (:func:`~._judge.check_result`) and
keeps the co-signed :class:`~._events.GameResult`.  The peer's ``abort`` either
refuses the audit, when a reveal is due from it (:func:`~._judge.audit_refusal`,
read from the referee), or ends the game plainly; its resignation is judged on the
referee's mark (:class:`~._resignations.Resignations`).  The referee keeps the stage;
the table (:class:`~._play.HandPlay`) finds the handlers here.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from truc_p2p.protocol._errors import AuditRefusedError
from truc_p2p.protocol._events import (
    AnyEvent,
    GameFinished,
    GameResult,
    PeerAborted,
    PeerResigned,
)
from truc_p2p.protocol._judge import check_result, expected_result
from truc_p2p.protocol._messages import MessageType
from truc_p2p.protocol._state import Stage
from truc_p2p.protocol._values import FEATURE_RESIGN
from truc_p2p.protocol._wire import Envelope

if TYPE_CHECKING:
    from truc_p2p.protocol._play import HandPlay, Parts

__all__ = ["Ending"]


class Ending:
    """The end of one session's game (see the module docstring): ``table`` is the
    session's table (its game, hand and referee are read), ``events`` the session's
    queue, ``emit`` signs and chains a message of ours."""

    def __init__(
        self,
        *,
        table: HandPlay,
        parts: Parts,
        events: deque[AnyEvent],
        emit: Callable[[str, dict[str, Any]], None],
    ) -> None:
        self._table = table
        self._hello, self._chain = parts.hello, parts.chain
        self._resignations = parts.resignations
        self._events = events
        self._emit = emit
        self._expected: dict[str, Any] | None = None
        self._envelopes: list[bytes] = []
        #: the co-signed result, once both ``result`` messages are on the chain
        self.result: GameResult | None = None

    def result_due(self) -> None:
        """The game is over (and audited): expect the result, and sign it if we are first."""
        table = self._table
        assert table.game is not None
        self._expected = expected_result(table.game, hands=table.hand + 1, chain=self._chain.prev)
        if table.expected_sender() == table.me:
            self._emit(MessageType.RESULT, self._expected)

    def on_result(self, env: Envelope, mine: bool) -> None:
        """A ``result`` on the chain: the peer's must be the one expected; the second
        one co-signs the result."""
        table = self._table
        if not mine:
            check_result(env, self._expected)
        self._envelopes.append(env.raw)
        table.advance()
        if table.stage is Stage.RESULT_SECOND:
            if table.expected_sender() == table.me:
                assert self._expected is not None
                self._emit(MessageType.RESULT, dict(self._expected))
            return
        outcome = table.outcome
        assert outcome is not None
        self.result = GameResult(
            game_id=self._hello.game_id,
            winner=outcome.winner,
            scores=outcome.scores,
            reason=outcome.reason.value,
            hands=table.hand + 1,
            envelopes=(self._envelopes[0], self._envelopes[1]),
        )
        self._events.append(GameFinished(result=self.result))

    def on_abort(self, env: Envelope, mine: bool) -> None:
        """An ``abort`` on the chain (the referee ends the game once it is judged): the
        peer's is a resignation (wire.md section 8), or refuses the audit when it comes
        while a reveal is due (:func:`~._judge.audit_refusal`)."""
        if mine:
            return
        if env.payload["reason"] == "resign":
            self._on_resign(env)
            return
        refused = self._table.referee.refusal(env)
        if refused is not None and refused[0] == self._table.me.other:
            raise AuditRefusedError(
                f"the peer {refused[1]}: the audit is refused "
                f"({env.payload['reason']} {env.payload['detail']})".rstrip(),
                step="reveal",
                evidence=(env.raw,),
                message_no=env.seq,
            )
        reason, detail = env.payload["reason"], env.payload["detail"]
        self._events.append(PeerAborted(reason=reason, detail=detail, envelope=env.raw))

    def _on_resign(self, env: Envelope) -> None:
        """The peer's signed resignation (wire.md section 8): the game is ours.

        It is valid only if both hellos announced resignation and, on the chain
        before it (its ``seq`` may be earlier than our last message when our move
        crossed it: the referee's mark there), the game was under way and not decided.
        """
        agreed = self._hello.agreed(FEATURE_RESIGN)
        mark = self._table.referee.marks[env.seq]
        resignation = self._resignations.theirs(
            env, mark, game_id=self._hello.game_id, agreed=agreed
        )
        self._events.append(
            PeerResigned(
                reason="resign",
                detail=env.payload["detail"],
                envelope=env.raw,
                resignation=resignation,
            )
        )
