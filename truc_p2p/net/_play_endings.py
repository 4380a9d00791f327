"""How the game loop's ends become a :class:`GameOutcome`, trio-free: a host's
refusal, the opponent's abort or resignation, the co-signed result, and the ends
we sign (leaving, a timeout, the peer's protocol error), each as the bytes to send
and the outcome.  The trio loop (:mod:`._play`) and the page's event-driven loop
(:mod:`truc_p2p.page`) both decide through these."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from truc_p2p.net._outcome import (
    End,
    GameOutcome,
    abort_reason,
    match_differs,
    resign_facts,
    session_outcome,
    where_of,
)
from truc_p2p.protocol import PeerAborted, PeerResigned, Refused, RemoteProtocolError, Session

__all__ = [
    "CONCEDE_DETAIL",
    "closed_outcome",
    "conceded",
    "end_by_us",
    "leave_outcome",
    "peer_aborted_outcome",
    "refused_outcome",
    "remote_error_outcome",
    "timeout_outcome",
]

#: The ``detail`` of a resignation that concedes one game of a match and plays the
#: next (wire.md section 4.1); any other resignation leaves the match.
CONCEDE_DETAIL = "the player conceded this game; the match goes on"


def conceded(detail: str | None) -> bool:
    """Whether a resignation's signed ``detail`` conceded only its game of a match."""
    return detail == CONCEDE_DETAIL


#: What ends a game from our side: the bytes to send (a signed abort or
#: resignation; empty when nothing can be sent) and the outcome.
Ending = tuple[bytes, GameOutcome]


def end_by_us(
    session: Session, end: End, reason: str, detail: str, kind: str, facts: dict[str, Any]
) -> Ending:
    """A signed abort (``reason``, ``detail``) and the outcome ``end``."""
    data = session.abort(reason, detail)
    outcome = session_outcome(session, end, kind, facts, abort_reason=reason, abort_detail=detail)
    return data, outcome


def leave_outcome(session: Session, *, detail: str = "the player resigned") -> Ending:
    """Our player left on purpose (``q``, Ctrl-C, the web's leave button).

    With a peer that agreed to it, and while the game is under way, leaving is
    a signed resignation (wire.md section 8.1): the opponent wins and both
    transcripts hold a complete result (``detail``: a match's concession says the
    match goes on).  Otherwise (an opponent of the older spec, before the coin,
    once the game is decided) it is today's ``quit``.
    """
    s = session
    if not s.can_resign:
        return end_by_us(s, End.QUIT, "quit", "the player left", "quit", {})
    data = s.resign(detail)
    r = s.resignation
    assert r is not None
    outcome = session_outcome(
        s,
        End.RESIGNED,
        "resigned",
        resign_facts(s, r),
        abort_reason="resign",
        abort_detail=detail,
        resignation=r,
    )
    return data, outcome


def timeout_outcome(session: Session, *, turn_timeout: float, hello_timeout: float) -> Ending:
    """The opponent was silent past its clock: a signed ``timeout`` abort."""
    if session.peer_fingerprint is None:
        limit, kind = hello_timeout, "hello-timeout"
    else:
        limit, kind = turn_timeout, "turn-timeout"
    return end_by_us(
        session,
        End.OPPONENT_TIMEOUT,
        "timeout",
        f"no message for {limit:g} s",
        kind,
        {"limit": float(limit), **where_of(session)},
    )


def remote_error_outcome(session: Session, exc: RemoteProtocolError) -> Ending:
    """The peer broke the protocol: a signed ``cheat``/``error``/``incompatible``
    abort naming the message, the evidence in the transcript."""
    reason = abort_reason(exc)
    where = f" at message {exc.message_no}" if exc.message_no is not None else ""
    detail = f"{exc.code}{where}: {exc}"
    facts: dict[str, Any]
    if reason == "incompatible":
        end, kind, facts = End.INCOMPATIBLE, "incompatible", {"error": str(exc)}
        kind, facts = match_differs(session) or (kind, facts)
    else:
        end = End.PROTOCOL_ERROR
        kind = "protocol-error"
        kind += "-at" if exc.message_no is not None else ""
        kind += "-kept" if exc.evidence else ""
        facts = {
            "code": exc.code,
            "number": exc.message_no,
            "error": str(exc.args[0]),
            **where_of(session),
        }
    data, outcome = end_by_us(session, end, reason, detail, kind, facts)
    return data, replace(outcome, error_code=exc.code, error_message_no=exc.message_no)


def refused_outcome(session: Session, event: Refused) -> GameOutcome:
    """A host's signed refusal (wire.md 13.5) as the game's outcome."""
    known = event.reason in ("busy", "not-allowed", "unknown-game", "played")
    return session_outcome(
        session,
        End.REFUSED,
        f"refused-{event.reason}" if known else "refused",
        {"reason": event.reason, "detail": event.detail or None},
        abort_reason=event.reason,
        abort_detail=event.detail,
    )


def peer_aborted_outcome(session: Session, event: PeerAborted) -> GameOutcome:
    """The opponent's signed abort or resignation as the game's outcome."""
    if isinstance(event, PeerResigned):
        return session_outcome(
            session,
            End.OPPONENT_RESIGNED,
            "opponent-resigned",
            resign_facts(session, event.resignation),
            abort_reason=event.reason,
            abort_detail=event.detail,
            resignation=event.resignation,
        )
    known = event.reason in ("quit", "timeout", "cheat", "incompatible")
    return session_outcome(
        session,
        End.OPPONENT_ABORTED,
        f"peer-{event.reason}" if known else "peer-aborted",
        {"reason": event.reason, **where_of(session), "detail": event.detail or None},
        abort_reason=event.reason,
        abort_detail=event.detail,
    )


def closed_outcome(s: Session) -> GameOutcome:
    """The co-signed end of a game, from our side."""
    r = s.result
    if r is None:  # pragma: no cover - CLOSED without a result means we aborted
        return session_outcome(s, End.LOCAL_ERROR, "no-result")
    me, opp = s.me, s.me.other
    return session_outcome(
        s,  # scores from our side: "you 12 – bob 7"
        End.FINISHED,
        "won" if r.winner is me else "lost",
        {
            "peer": s.peer_name,
            "my_score": r.scores[me],
            "peer_score": r.scores[opp],
            "n": r.hands,
            "reason": str(r.reason),
        },
    )
