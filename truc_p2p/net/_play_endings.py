"""How the game loop's ends that need no I/O become a :class:`GameOutcome`: a host's
refusal, the opponent's abort or resignation, and the co-signed result."""

from __future__ import annotations

from truc_p2p.net._outcome import End, GameOutcome, resign_facts, session_outcome, where_of
from truc_p2p.protocol import PeerAborted, PeerResigned, Refused, Session

__all__ = ["closed_outcome", "peer_aborted_outcome", "refused_outcome"]


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
