"""Events handed out by :meth:`Session.next_event`.

Session events are frozen keyword-only dataclasses.  The rules engine's own
events (:class:`~truc_p2p.rules.Acted`, :class:`~truc_p2p.rules.TrickEnded`,
:class:`~truc_p2p.rules.RoundEnded`, :class:`~truc_p2p.rules.GameEnded`)
are passed through unchanged, for both players' actions.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Final

from truc_p2p.rules import Action, Card, Event, Player, Ruleset

__all__ = [
    "CLOSED",
    "NEED_DATA",
    "AuditPassed",
    "CardsDealt",
    "GameFinished",
    "GameResult",
    "GameStarted",
    "PeerAborted",
    "PeerResigned",
    "Refused",
    "Resignation",
    "Resumed",
    "Sentinel",
    "SessionEvent",
    "YourTurn",
]


class Sentinel(enum.Enum):
    NEED_DATA = "need-data"
    CLOSED = "closed"


#: ``next_event`` needs more bytes from the peer before it can go on.
NEED_DATA: Final = Sentinel.NEED_DATA
#: The session is finished (result co-signed, or aborted): no more events.
CLOSED: Final = Sentinel.CLOSED


class SessionEvent:
    """Base class of the session's own events."""

    __slots__ = ()


@dataclass(frozen=True, kw_only=True)
class GameStarted(SessionEvent):
    """Both hellos are exchanged and the first dealer is drawn."""

    game_id: bytes
    me: Player
    peer_name: str
    peer_fingerprint: str
    ruleset: Ruleset
    audit: str
    first_dealer: Player
    #: the negotiated deck version, "v1" or "v2"
    deck: str = "v1"


@dataclass(frozen=True, kw_only=True)
class CardsDealt(SessionEvent):
    """Your three cards of a deal (``redeal`` for the cards after a redeal)."""

    round_no: int
    dealer: Player
    cards: tuple[Card, ...]
    redeal: bool


@dataclass(frozen=True, kw_only=True)
class YourTurn(SessionEvent):
    """It is your turn: answer with :meth:`Session.send` and one of ``legal_actions``."""

    legal_actions: tuple[Action, ...]


@dataclass(frozen=True, kw_only=True)
class AuditPassed(SessionEvent):
    """Both seeds of these hands were revealed and recomputed the deck byte for byte."""

    hands: tuple[int, ...]


@dataclass(frozen=True, kw_only=True)
class GameResult:
    """The co-signed result: valid only after a passed audit."""

    game_id: bytes
    winner: Player
    scores: tuple[int, int]
    reason: str
    hands: int
    #: the two signed RESULT envelopes (first and second signer)
    envelopes: tuple[bytes, bytes]


@dataclass(frozen=True, kw_only=True)
class GameFinished(SessionEvent):
    """The game is over, audited and the result co-signed by both players."""

    result: GameResult


@dataclass(frozen=True, kw_only=True)
class PeerAborted(SessionEvent):
    """The peer ended the game early with a signed ``abort`` message."""

    reason: str
    detail: str
    envelope: bytes


@dataclass(frozen=True, kw_only=True)
class Resignation:
    """A signed resignation (``abort`` reason ``resign``, wire.md section 8): a complete
    result, signed by the loser alone.  ``scores`` and ``hand`` are those on the chain
    before the resignation (a move that crossed it is void); ``hand`` counts from 1."""

    game_id: bytes
    by: Player
    winner: Player
    scores: tuple[int, int]
    hand: int
    detail: str
    #: the signed ``abort`` envelope
    envelope: bytes

    @property
    def reason(self) -> str:
        """The end reason a report gives a resigned game."""
        return "resigned"


@dataclass(frozen=True, kw_only=True)
class PeerResigned(PeerAborted):
    """The peer resigned: the game is ours (``resignation`` says the score and hand).

    A :class:`PeerAborted` with ``reason`` ``"resign"``, so code that only knows
    aborts still sees the game end."""

    resignation: Resignation


@dataclass(frozen=True, kw_only=True)
class Resumed(SessionEvent):
    """A reconnection was accepted: both sides know how far the other got.

    ``peer_has`` is how many envelopes of the chain the peer holds, ``resent``
    how many of ours are queued again for it; the peer's missing envelopes
    follow from its side.
    """

    peer_has: int
    we_have: int
    resent: int
    #: the clock in resume (wire.md 13.1, both hellos announce it): the peer's
    #: ``left`` (ms its turn clock leaves us, ``None``: it times nobody) and ``away``
    #: (ms it counted away before this drop); ``None`` without the feature
    peer_left: int | None = None
    peer_away: int | None = None

    @property
    def time_left_ms(self) -> int | None:
        """The milliseconds the peer's clock leaves us for the move due, when its view
        holds: it lacks none of our envelopes (else our resent move starts a new turn
        and its ``left`` is moot).  The peer's clock is the one that counts (13.5)."""
        return self.peer_left if self.peer_has >= self.we_have else None


@dataclass(frozen=True, kw_only=True)
class Refused(SessionEvent):
    """The host turned this connection away (``busy``, ``not-allowed``, ``unknown-game``,
    ``played``: the game the hello follows was followed already, wire.md 4.1)."""

    reason: str
    detail: str


#: What ``next_event`` may return.
AnyEvent = SessionEvent | Event | Sentinel
