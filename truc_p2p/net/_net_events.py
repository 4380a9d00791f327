"""The transport's own events, beside the session's and the rules': a lost link, a
resumed one, and the opponent's clock of our move after a resume."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["NetEvent", "PeerDisconnected", "PeerReconnected", "TurnClock"]


class NetEvent:
    """Base class of the transport's own events (beside session and rules events)."""

    __slots__ = ()


@dataclass(frozen=True, kw_only=True)
class PeerDisconnected(NetEvent):
    """The connection is lost; the opponent has ``seconds_left`` to come back.

    Sent when the connection drops and then every few seconds as a countdown.
    """

    reason: str
    seconds_left: float
    grace: float


@dataclass(frozen=True, kw_only=True)
class PeerReconnected(NetEvent):
    """Play goes on after ``after`` seconds away; ``resent`` of our messages were sent again.

    ``we_came_back`` is true when this side restarted (``truc-p2p resume``, or the
    same command again) and this is its first connection: nobody else came back.
    """

    after: float
    resent: int
    received_again: int
    we_came_back: bool = False


@dataclass(frozen=True, kw_only=True)
class TurnClock(NetEvent):
    """Our move due is the one the opponent's turn clock timed when the link dropped:
    it leaves us ``seconds_left`` (wire.md 13.1, 13.5: the opponent's clock is the one
    that counts), told after a resume once the turn is ours, before we choose."""

    seconds_left: float
