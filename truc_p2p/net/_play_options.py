"""How :func:`~._play.play_game` plays a game: :class:`PlayOptions`, every knob of
one game loop (its :class:`~._clocks.Clocks` among them) as one typed value."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import trio

from truc_p2p.net._clocks import (
    DEFAULT_AWAY_BUDGET,
    DEFAULT_BOT_TIMEOUT,
    DEFAULT_DEAD_AFTER,
    DEFAULT_GRACE,
    DEFAULT_HEARTBEAT,
    DEFAULT_HELLO_TIMEOUT,
    DEFAULT_TURN_TIMEOUT,
    Clocks,
)
from truc_p2p.net._reconnect import NetEvent, Reconnector
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
    "PlayOptions",
]

#: Called with every session, rules and transport event, in order (never the sentinels).
EventHook = Callable[[Event | SessionEvent | NetEvent], None]


@dataclass(frozen=True, kw_only=True)
class PlayOptions:
    """How :func:`play_game` plays one game: its clocks, the peer's pinned key, the
    hooks that see it, and how it resumes; see :func:`play_game` for each."""

    clocks: Clocks = field(default_factory=Clocks)
    expected_fingerprint: str | None = None
    on_event: EventHook | None = None
    stop: trio.Event | None = None
    send_timeout: float = 60.0
    linger: float = 2.0
    reconnector: Reconnector | None = None
    prefix: bytes = b""
    resuming: bool | None = None
    before_send: Callable[[], object] | None = None
    on_evidence: Callable[[RemoteProtocolError], object] | None = None
    away_file: Path | None = None
