"""What a relay holds and reports: its :class:`RelayLimits`, its counters, the
hosts registered and their meetings with joiners, and a :class:`SessionReport`
per meeting (the server is :class:`~._relay.RelayServer`)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import trio

from truc_p2p.net._host import address_block
from truc_p2p.net._lobby import LobbyListing
from truc_p2p.net._relay_wire import (
    Addr,
)

__all__ = ["DEFAULT_RELAY_PORT", "RelayLimits", "SessionReport", "meeting_to_evict"]


DEFAULT_RELAY_PORT = 4456

#: The counters in :attr:`~._relay.RelayServer.stats`.
STAT_KEYS = (
    "connections",
    "refused_connections",
    "dropped",
    "registrations",
    "replaced_registrations",
    "refused_registrations",
    "listings",
    "refused_listings",
    "invalid_listings",
    "evicted_listings",
    "lobby_requests",
    "unknown_codes",
    "meetings",
    "evicted_meetings",
    "accept_shortages",
    "splices",
    "bytes",
    "websockets",
    "http_requests",
)


@dataclass(frozen=True)
class RelayLimits:
    """What one relay will hold at most, and how long it waits at each stage."""

    max_connections: int = 1024
    #: Connections from one address: a shared one (CGNAT) carries many hosts.
    #: Here and below, one address is an address group: an IPv4 address or an
    #: IPv6 /56 (:func:`~._host.address_key` says why).
    max_per_ip: int = 128
    max_registrations: int = 512
    #: Registrations from one address: room for a dormitory behind one NAT, yet
    #: a sixteenth of the relay at most for whoever floods from one address.
    max_registrations_per_ip: int = 32
    max_sessions_per_registration: int = 16
    #: Meetings one joiner address may hold with one registration at once.
    max_sessions_per_joiner_ip: int = 2
    #: The magic and first message must arrive within this many seconds.
    first_message_timeout: float = 10.0
    #: A host that sends nothing (no ``PING``) for this long is dropped.
    registration_idle: float = 120.0
    #: A meeting waits this long for ``SPLICE`` and for the host's ``ATTACH``.
    meeting_timeout: float = 30.0
    #: A spliced session in which nobody sends a byte for this long is closed.
    splice_idle: float = 900.0
    #: Bytes a spliced session may carry (both directions); a game needs ~100 kB.
    max_session_bytes: int = 8 << 20
    #: Lobby listings at once, and from one host address.
    max_listings: int = 256
    max_listings_per_ip: int = 4
    #: A listing not renewed (``PING`` or ``LIST``) for this long leaves the lobby.
    listing_ttl: float = 60.0
    #: Games in one ``LOBBY`` answer at most (round by round over the addresses).
    max_lobby_games: int = 64


@dataclass
class SessionReport:
    """What one meeting cost the relay."""

    session: str
    spliced: bool
    bytes: int
    connections: int
    seconds: float
    end: str

    def to_json(self) -> dict[str, Any]:
        return {
            "event": "session",
            "session": self.session,
            "spliced": self.spliced,
            "bytes": self.bytes,
            "connections": self.connections,
            "seconds": round(self.seconds, 3),
            "end": self.end,
        }


@dataclass(eq=False)
class _Registration:
    code: str
    #: Its control connection: TCP, or a WebSocket (``connect.md`` §9).
    stream: trio.abc.HalfCloseableStream
    observed: Addr
    lan: list[Addr]
    #: The host's address group (:func:`~._host.address_key`).
    ip: str
    send_lock: trio.Lock = field(default_factory=trio.Lock)
    sessions: int = 0
    #: Its meetings, oldest first.
    meetings: list[_Meeting] = field(default_factory=list)
    #: Cancelled when a newer ``REGISTER`` with the same claim takes the code over.
    scope: trio.CancelScope = field(default_factory=trio.CancelScope)
    #: The signed lobby listing as sent (checked), when it first was listed, last renewed.
    listing: bytes | None = None
    parsed: LobbyListing | None = None
    listed_at: float = 0.0
    renewed: float = 0.0
    #: The host's wider block (:func:`~._host.address_block`): what the lobby ranks
    #: answers and evicts listings by.
    block: str = field(init=False)
    #: Address groups whose waiting meeting another group took over, and when: for
    #: ``meeting_timeout`` seconds they may not take another group's place (see
    #: :func:`meeting_to_evict`).
    evicted: dict[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.block = address_block(self.observed[0])


@dataclass(eq=False)
class _Meeting:
    session: bytes
    registration: _Registration
    started: float
    attached: trio.abc.HalfCloseableStream | None = None
    attach_event: trio.Event = field(default_factory=trio.Event)
    done: trio.Event = field(default_factory=trio.Event)
    connections: int = 1
    #: The joiner's address group.
    joiner_ip: str = ""
    spliced: bool = False
    #: Cancelled when a newer joiner takes this meeting's place.
    scope: trio.CancelScope = field(default_factory=trio.CancelScope)


def meeting_to_evict(
    reg: _Registration, ip: str, limits: RelayLimits, now: float
) -> tuple[bool, _Meeting | None]:
    """Whether a joiner from address group ``ip`` may meet ``reg``, and the waiting
    meeting (not yet spliced) whose place it takes, if any.

    A group at ``max_sessions_per_joiner_ip`` takes the place of its own oldest
    waiting meeting.  When all of ``reg``'s places are taken, a newcomer takes the
    oldest waiting place of the group holding the most, if that holds more than
    one beyond the newcomer's group (a hoarder), or merely more than it, unless the
    newcomer's group itself lost a waiting place to another group within
    ``meeting_timeout`` seconds.  So a code leaked to 16 addresses, each holding
    one waiting place, lets the real joiner in (it takes the oldest), and those
    addresses joining again cannot take the place back: each of them lost its
    place, or holds as many as the real joiner.  Spliced meetings are never taken
    (the host's own handshake decides about them)."""
    for group, at in list(reg.evicted.items()):
        if now - at > limits.meeting_timeout:
            del reg.evicted[group]
    live = [m for m in reg.meetings if not m.scope.cancel_called]
    waiting = [m for m in live if not m.spliced]
    held = Counter(m.joiner_ip for m in live)
    if held[ip] >= limits.max_sessions_per_joiner_ip:
        mine = [m for m in waiting if m.joiner_ip == ip]
        return (True, mine[0]) if mine else (False, None)
    if len(live) < limits.max_sessions_per_registration:
        return True, None
    lost = ip in reg.evicted
    candidates = [
        m
        for m in waiting
        if held[m.joiner_ip] > held[ip] + 1 or (held[m.joiner_ip] > held[ip] and not lost)
    ]
    if not candidates:
        return False, None
    most = max(held[m.joiner_ip] for m in candidates)
    victim = next(m for m in candidates if held[m.joiner_ip] == most)
    if len(reg.evicted) >= 4 * limits.max_sessions_per_registration:
        del reg.evicted[min(reg.evicted, key=reg.evicted.__getitem__)]
    reg.evicted[victim.joiner_ip] = now
    return True, victim
