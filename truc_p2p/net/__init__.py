"""The trio transport: play a :class:`~truc_p2p.protocol.Session` over a network stream.

The session is sans-IO and frames its own messages, so this layer only moves
bytes, keeps time and decides how a game ends::

    async with serve_game(port=0) as listener:            # the host (responder)
        print(listener.invite(my_fingerprint))
        async with await listener.accept() as stream:
            outcome = await play_game(stream, session, BotStrategy(bot))

    async with open_game(invite) as stream:                # the joiner (initiator)
        outcome = await play_game(stream, session, strategy,
                                  expected_fingerprint=invite.fingerprint)

:func:`host_game` and :func:`join_game` do all of it (session, transcript,
secret file) in one call, told what to do by a few settings groups
(:class:`GameSettings`, :class:`Listen`, :class:`Dial`, :class:`Storage`,
:class:`Reporting`), including the ways through NAT
(``protocol_spec/connect.md``): a host registered with a relay
(:func:`open_rendezvous`) is joined by :func:`connect` over a ``direct``,
``punched`` or ``relayed`` path; :func:`map_port` asks the router to forward
the port; :func:`advertise_game` and :func:`find_games` use mDNS on the LAN;
:class:`RelayServer` is ``truc-p2p relay``; a host with ``Listen(public=True)``
lists a signed :class:`LobbyListing` in the relay's lobby, which
:func:`fetch_lobby` reads back (verified) as :class:`LobbyGame` entries that
carry an :class:`Invite`.  Every network or peer failure is a
:class:`GameOutcome` with an :class:`End`, never an exception.
"""

from __future__ import annotations

from truc_p2p.evidence import (
    Finding,
    check_evidence,
    evidence_path_for,
    keep_evidence,
    read_evidence,
)
from truc_p2p.net._connect import (
    DIRECT_WINDOW,
    PATHS,
    ConnectError,
    Incoming,
    connect,
    lan_addresses,
)
from truc_p2p.net._discovery import SERVICE_TYPE, FoundGame, advertise_game, find_games
from truc_p2p.net._games import Restored, restore_game, resume_game
from truc_p2p.net._host_game import host_game
from truc_p2p.net._invite import (
    DEFAULT_PORT,
    SETTING_KEYS,
    HostSettings,
    Invite,
    InviteError,
    host_port,
    parse_host_port,
    settings_fields,
)
from truc_p2p.net._join_game import Redialer, join_game
from truc_p2p.net._lobby import (
    ListingError,
    LobbyAnswer,
    LobbyFilter,
    LobbyGame,
    LobbyListing,
    fetch_lobby,
    fetch_lobby_answer,
)
from truc_p2p.net._local_game import (
    LocalGame,
    prepare_game,
    read_meta,
    relay_claim,
    transcript_path,
    write_meta,
)
from truc_p2p.net._nostr import LISTING_KIND as NOSTR_LISTING_KIND
from truc_p2p.net._nostr import NostrGame
from truc_p2p.net._nostr_client import NostrError, NostrLister, check_relay_url, fetch_nostr_lobby
from truc_p2p.net._notice import Notice
from truc_p2p.net._outcome import KINDS as OUTCOME_KINDS
from truc_p2p.net._outcome import WHERE as OUTCOME_WHERE
from truc_p2p.net._outcome import End, GameOutcome
from truc_p2p.net._play import play_game
from truc_p2p.net._play_options import (
    DEFAULT_AWAY_BUDGET,
    DEFAULT_BOT_TIMEOUT,
    DEFAULT_DEAD_AFTER,
    DEFAULT_GRACE,
    DEFAULT_HEARTBEAT,
    DEFAULT_HELLO_TIMEOUT,
    DEFAULT_TURN_TIMEOUT,
    EventHook,
    PlayOptions,
)
from truc_p2p.net._portmap import PortMapping, map_port
from truc_p2p.net._reconnect import (
    NetEvent,
    PeerDisconnected,
    PeerReconnected,
    Reconnector,
    TurnClock,
)
from truc_p2p.net._relay import RelayServer
from truc_p2p.net._relay_state import DEFAULT_RELAY_PORT, RelayLimits, SessionReport
from truc_p2p.net._rendezvous import Rendezvous, open_rendezvous
from truc_p2p.net._settings import Dial, GameSettings, Listen, Reporting, Storage
from truc_p2p.net._strategy import (
    CONCEDE_DETAIL,
    BotStrategy,
    QuitGame,
    Strategy,
    conceded,
    concedes,
)
from truc_p2p.net._tcp import GameListener, guess_lan_address, open_game, serve_game

__all__ = [
    "CONCEDE_DETAIL",
    "DEFAULT_AWAY_BUDGET",
    "DEFAULT_BOT_TIMEOUT",
    "DEFAULT_DEAD_AFTER",
    "DEFAULT_GRACE",
    "DEFAULT_HEARTBEAT",
    "DEFAULT_HELLO_TIMEOUT",
    "DEFAULT_PORT",
    "DEFAULT_RELAY_PORT",
    "DEFAULT_TURN_TIMEOUT",
    "DIRECT_WINDOW",
    "NOSTR_LISTING_KIND",
    "OUTCOME_KINDS",
    "OUTCOME_WHERE",
    "PATHS",
    "SERVICE_TYPE",
    "SETTING_KEYS",
    "BotStrategy",
    "ConnectError",
    "Dial",
    "End",
    "EventHook",
    "Finding",
    "FoundGame",
    "GameListener",
    "GameOutcome",
    "GameSettings",
    "HostSettings",
    "Incoming",
    "Invite",
    "InviteError",
    "Listen",
    "ListingError",
    "LobbyAnswer",
    "LobbyFilter",
    "LobbyGame",
    "LobbyListing",
    "LocalGame",
    "NetEvent",
    "NostrError",
    "NostrGame",
    "NostrLister",
    "Notice",
    "PeerDisconnected",
    "PeerReconnected",
    "PlayOptions",
    "PortMapping",
    "QuitGame",
    "Reconnector",
    "Redialer",
    "RelayLimits",
    "RelayServer",
    "Rendezvous",
    "Reporting",
    "Restored",
    "SessionReport",
    "Storage",
    "Strategy",
    "TurnClock",
    "advertise_game",
    "check_evidence",
    "check_relay_url",
    "conceded",
    "concedes",
    "connect",
    "evidence_path_for",
    "fetch_lobby",
    "fetch_lobby_answer",
    "fetch_nostr_lobby",
    "find_games",
    "guess_lan_address",
    "host_game",
    "host_port",
    "join_game",
    "keep_evidence",
    "lan_addresses",
    "map_port",
    "open_game",
    "open_rendezvous",
    "parse_host_port",
    "play_game",
    "prepare_game",
    "read_evidence",
    "read_meta",
    "relay_claim",
    "restore_game",
    "resume_game",
    "serve_game",
    "settings_fields",
    "transcript_path",
    "write_meta",
]
