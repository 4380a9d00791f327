"""What :func:`~truc_p2p.net.host_game`, :func:`~truc_p2p.net.join_game` and
:func:`~truc_p2p.net.resume_game` are told, grouped by concern.

Each group is a small frozen, keyword-only dataclass with the defaults a
person at a terminal wants, so a caller names only what differs::

    await host_game(bot, identity=key,
                    settings=GameSettings(session=SessionOptions(name="ana"),
                                          clocks=Clocks(turn_timeout=30)),
                    listen=Listen(port=0, relay=("relay.example", 7790)),
                    report=Reporting(on_invite=print))

* :class:`~._clocks.GameSettings` — the game and its clocks (both sides);
* :class:`Listen` — where and how a host is reached, and whom it admits;
* :class:`Dial` — how a joiner reaches a host;
* :class:`Reporting` — the hooks that hear what happens;
* :class:`Storage` — where the transcript goes and how hard it is synced.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from truc_p2p.net._clocks import GameSettings
from truc_p2p.net._connect import DIRECT_WINDOW, PathTry
from truc_p2p.net._invite import DEFAULT_PORT, Invite
from truc_p2p.net._outcome import GameOutcome
from truc_p2p.net._play_options import EventHook
from truc_p2p.net._turn import TurnServer
from truc_p2p.protocol import Series

__all__ = ["Dial", "GameSettings", "Listen", "Reporting", "Storage"]

#: (``GameSettings`` lives in :mod:`._clocks`, trio-free for the page.)


@dataclass(frozen=True, kw_only=True)
class Listen:
    """Where a host listens and whom it lets in.

    ``advertise`` is the address put in the invite; ``relay`` (host, port)
    registers with a relay for joiners behind NAT; ``portmap`` asks the router
    to forward the port and ``announce`` advertises the game on the LAN (both
    skipped on a loopback ``bind``).  ``capacity`` games run at once; ``allow``
    (fingerprints) limits who may join.  ``public`` lists the game in the
    relay's lobby (signed by the host's key) while a place is free.  ``forever``
    keeps hosting game after game (``host --forever``) instead of returning after
    the first.
    """

    bind: str | None = None
    port: int = DEFAULT_PORT
    advertise: str | None = None
    relay: tuple[str, int] | None = None
    portmap: bool = True
    announce: bool = True
    capacity: int = 1
    allow: frozenset[str] | None = None
    public: bool = False
    forever: bool = False
    #: Nostr relays (``ws://``/``wss://`` URLs) a public host lists on (connect.md §10).
    nostr: tuple[str, ...] = ()
    #: With ``relay``: a TURN server (and its credential) to allocate a relayed
    #: address on, announced to joiners through the relay (connect.md §11).
    turn: TurnServer | None = None
    #: The nonce of the relay claim (16 bytes; ``None``: a fresh one).  The games of a
    #: series keep one, so the relay code, and the invite, stay the same for each
    #: next game a joiner dials again (wire.md 4.1's redial; a browser only has it).
    relay_nonce: bytes | None = None
    #: May a joiner's hello link the game to another, as
    #: ``accept_series(series, joiner_fingerprint)`` (``host --forever`` takes
    #: rematches of the games it played); without it the series must be the game's
    accept_series: Callable[[Series, str], bool] | None = None
    #: Game ids already followed by a game (the earlier games of a match); a hello
    #: naming one as ``prev`` is refused, ``played`` (wire.md 4.1), like one naming a
    #: game this host has already played the next game of
    played: frozenset[bytes] = frozenset()


@dataclass(frozen=True, kw_only=True)
class Dial:
    """How a joiner reaches the host of an invite (:func:`~truc_p2p.net.connect`)."""

    connect_timeout: float = 15.0
    direct_window: float = DIRECT_WINDOW
    #: A TURN server of the joiner's own (connect.md §11.1), for hosts without one.
    turn: TurnServer | None = None


@dataclass(frozen=True, kw_only=True)
class Reporting:
    """Hooks that hear what happens; every one is optional.

    ``on_event`` gets the game's events, ``on_notice`` one-line notices for a
    person (each a :class:`~truc_p2p.net.Notice`: the English sentence, a ``str``,
    with its ``kind`` and ``facts`` for a translation), ``on_invite`` the host's
    invite, ``on_path(path, peer)`` how each connection came (``direct``,
    ``punched``, ``relayed``), ``on_outcome`` each finished game of a host that
    plays ``forever``, ``on_listening`` the port a resumed host listens on again.
    """

    on_event: EventHook | None = None
    on_notice: Callable[[str], None] | None = None
    on_invite: Callable[[Invite], None] | None = None
    on_path: Callable[[str, str], None] | None = None
    on_tries: Callable[[list[PathTry]], None] | None = None
    on_outcome: Callable[[GameOutcome], None] | None = None
    on_listening: Callable[[int], None] | None = None

    def notice(self, text: str) -> None:
        """Pass ``text`` to ``on_notice`` if there is one."""
        if self.on_notice is not None:
            self.on_notice(text)


@dataclass(frozen=True, kw_only=True)
class Storage:
    """Where the transcript is written and how.

    ``out_dir`` ``None`` writes no files; ``fsync`` off skips every fsync (tests);
    ``sync_each`` fsyncs every envelope rather than only our own before they
    are sent; ``meta`` is stored beside the transcript for ``truc-p2p resume``.
    """

    out_dir: str | os.PathLike[str] | None = "games"
    fsync: bool = True
    sync_each: bool = False
    meta: Mapping[str, Any] = field(default_factory=dict)
