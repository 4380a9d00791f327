"""How :func:`~._play.play_game` plays a game: the protocol's default clocks and
:class:`PlayOptions`, every knob of one game loop as one typed value."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

import trio

from truc_p2p.net._clocks import (
    DEFAULT_AWAY_BUDGET,
    DEFAULT_BOT_TIMEOUT,
    DEFAULT_DEAD_AFTER,
    DEFAULT_GRACE,
    DEFAULT_HEARTBEAT,
    DEFAULT_HELLO_TIMEOUT,
    DEFAULT_TURN_TIMEOUT,
)
from truc_p2p.net._reconnect import LinkClocks, NetEvent, Reconnector
from truc_p2p.protocol import RemoteProtocolError, SessionEvent
from truc_p2p.rules import Event

__all__ = [
    "DEFAULT_AWAY_BUDGET",
    "DEFAULT_BOT_TIMEOUT",
    "DEFAULT_DEAD_AFTER",
    "DEFAULT_GRACE",
    "DEFAULT_HEARTBEAT",
    "DEFAULT_HELLO_TIMEOUT",
    "DEFAULT_TURN_TIMEOUT",
    "EventHook",
    "PlayClocks",
    "PlayKnobs",
    "PlayOptions",
]

#: Called with every session, rules and transport event, in order (never the sentinels).
EventHook = Callable[[Event | SessionEvent | NetEvent], None]


class PlayClocks(TypedDict):
    """The clocks of :func:`~._play.play_game` a game's settings give
    (:meth:`~._settings.GameSettings.clocks`), to pass on as keywords."""

    turn_timeout: float
    hello_timeout: float
    grace: float
    away_budget: float
    heartbeat: float
    dead_after: float


class PlayKnobs(TypedDict, total=False):
    """The keyword arguments of :func:`play_game` (each one a field of :class:`PlayOptions`)."""

    turn_timeout: float
    hello_timeout: float
    expected_fingerprint: str | None
    on_event: EventHook | None
    stop: trio.Event | None
    send_timeout: float
    linger: float
    reconnector: Reconnector | None
    grace: float
    prefix: bytes
    resuming: bool | None
    before_send: Callable[[], object] | None
    heartbeat: float
    dead_after: float
    on_evidence: Callable[[RemoteProtocolError], object] | None
    away_budget: float
    away_file: Path | None


@dataclass(frozen=True, kw_only=True)
class PlayOptions:
    """How :func:`play_game` plays one game: its clocks, the peer's pinned key, the
    hooks that see it, and how it resumes; see :func:`play_game` for each."""

    turn_timeout: float = DEFAULT_TURN_TIMEOUT
    hello_timeout: float = DEFAULT_HELLO_TIMEOUT
    expected_fingerprint: str | None = None
    on_event: EventHook | None = None
    stop: trio.Event | None = None
    send_timeout: float = 60.0
    linger: float = 2.0
    reconnector: Reconnector | None = None
    grace: float = DEFAULT_GRACE
    prefix: bytes = b""
    resuming: bool | None = None
    before_send: Callable[[], object] | None = None
    heartbeat: float = DEFAULT_HEARTBEAT
    dead_after: float = DEFAULT_DEAD_AFTER
    on_evidence: Callable[[RemoteProtocolError], object] | None = None
    away_budget: float = DEFAULT_AWAY_BUDGET
    away_file: Path | None = None

    @property
    def link_clocks(self) -> LinkClocks:
        """The clocks of the connection (its :class:`~._reconnect.LinkKeeper`)."""
        return LinkClocks(
            send_timeout=self.send_timeout,
            grace=self.grace,
            hello_timeout=self.hello_timeout,
            heartbeat=self.heartbeat,
            dead_after=self.dead_after,
            away_budget=self.away_budget,
            away_file=self.away_file,
        )
