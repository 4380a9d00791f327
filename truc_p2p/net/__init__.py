"""The trio transport: play a :class:`~truc_p2p.protocol.Session` over a network stream.

The session is sans-IO and frames its own messages, so this layer only moves
bytes, keeps time and decides how a game ends::

    async with serve_game(port=0) as listener:            # the host (responder)
        print(listener.invite(my_fingerprint))
        async with await listener.accept() as stream:
            outcome = await play_game(stream, session, BotStrategy(bot))

    async with open_game(invite) as stream:                # the joiner (initiator)
        outcome = await play_game(stream, session, strategy,
                                  PlayOptions(expected_fingerprint=invite.fingerprint))

:func:`host_game` and :func:`join_game` do all of it (session, transcript,
secret file) in one call, told what to do by a few settings groups
(:class:`GameSettings`: a :class:`SessionOptions` and :class:`Clocks`;
:class:`Listen`, :class:`Dial`, :class:`Storage`,
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

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from truc_p2p.evidence import (
        Finding,
        check_evidence,
        evidence_path_for,
        keep_evidence,
        read_evidence,
    )
    from truc_p2p.net._clocks import Clocks, GameSettings
    from truc_p2p.net._connect import (
        DIRECT_WINDOW,
        PATHS,
        ConnectError,
        Incoming,
        PathTry,
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
    from truc_p2p.net._nostr_client import (
        NostrError,
        NostrLister,
        check_relay_url,
        fetch_nostr_lobby,
    )
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
    from truc_p2p.net._settings import Dial, Listen, Reporting, Storage
    from truc_p2p.net._strategy import (
        CONCEDE_DETAIL,
        BotStrategy,
        QuitGame,
        Strategy,
        conceded,
        concedes,
    )
    from truc_p2p.net._tcp import GameListener, guess_lan_address, open_game, serve_game
    from truc_p2p.net._turn import TurnError, TurnServer, parse_turn_url
    from truc_p2p.protocol import SessionOptions

#: Each public name -> (the module that defines it, its name there).
_WHERE: dict[str, tuple[str, str]] = {
    "Finding": ("truc_p2p.evidence", "Finding"),
    "check_evidence": ("truc_p2p.evidence", "check_evidence"),
    "evidence_path_for": ("truc_p2p.evidence", "evidence_path_for"),
    "keep_evidence": ("truc_p2p.evidence", "keep_evidence"),
    "read_evidence": ("truc_p2p.evidence", "read_evidence"),
    "DIRECT_WINDOW": ("truc_p2p.net._connect", "DIRECT_WINDOW"),
    "PATHS": ("truc_p2p.net._connect", "PATHS"),
    "ConnectError": ("truc_p2p.net._connect", "ConnectError"),
    "PathTry": ("truc_p2p.net._connect", "PathTry"),
    "TurnServer": ("truc_p2p.net._turn", "TurnServer"),
    "TurnError": ("truc_p2p.net._turn", "TurnError"),
    "parse_turn_url": ("truc_p2p.net._turn", "parse_turn_url"),
    "Incoming": ("truc_p2p.net._connect", "Incoming"),
    "connect": ("truc_p2p.net._connect", "connect"),
    "lan_addresses": ("truc_p2p.net._connect", "lan_addresses"),
    "SERVICE_TYPE": ("truc_p2p.net._discovery", "SERVICE_TYPE"),
    "FoundGame": ("truc_p2p.net._discovery", "FoundGame"),
    "advertise_game": ("truc_p2p.net._discovery", "advertise_game"),
    "find_games": ("truc_p2p.net._discovery", "find_games"),
    "Restored": ("truc_p2p.net._games", "Restored"),
    "restore_game": ("truc_p2p.net._games", "restore_game"),
    "resume_game": ("truc_p2p.net._games", "resume_game"),
    "host_game": ("truc_p2p.net._host_game", "host_game"),
    "DEFAULT_PORT": ("truc_p2p.net._invite", "DEFAULT_PORT"),
    "SETTING_KEYS": ("truc_p2p.net._invite", "SETTING_KEYS"),
    "HostSettings": ("truc_p2p.net._invite", "HostSettings"),
    "Invite": ("truc_p2p.net._invite", "Invite"),
    "InviteError": ("truc_p2p.net._invite", "InviteError"),
    "host_port": ("truc_p2p.net._invite", "host_port"),
    "parse_host_port": ("truc_p2p.net._invite", "parse_host_port"),
    "settings_fields": ("truc_p2p.net._invite", "settings_fields"),
    "Redialer": ("truc_p2p.net._join_game", "Redialer"),
    "join_game": ("truc_p2p.net._join_game", "join_game"),
    "ListingError": ("truc_p2p.net._lobby", "ListingError"),
    "LobbyAnswer": ("truc_p2p.net._lobby", "LobbyAnswer"),
    "LobbyFilter": ("truc_p2p.net._lobby", "LobbyFilter"),
    "LobbyGame": ("truc_p2p.net._lobby", "LobbyGame"),
    "LobbyListing": ("truc_p2p.net._lobby", "LobbyListing"),
    "fetch_lobby": ("truc_p2p.net._lobby", "fetch_lobby"),
    "fetch_lobby_answer": ("truc_p2p.net._lobby", "fetch_lobby_answer"),
    "LocalGame": ("truc_p2p.net._local_game", "LocalGame"),
    "prepare_game": ("truc_p2p.net._local_game", "prepare_game"),
    "read_meta": ("truc_p2p.net._local_game", "read_meta"),
    "relay_claim": ("truc_p2p.net._local_game", "relay_claim"),
    "transcript_path": ("truc_p2p.net._local_game", "transcript_path"),
    "write_meta": ("truc_p2p.net._local_game", "write_meta"),
    "NOSTR_LISTING_KIND": ("truc_p2p.net._nostr", "LISTING_KIND"),
    "NostrGame": ("truc_p2p.net._nostr", "NostrGame"),
    "NostrError": ("truc_p2p.net._nostr_client", "NostrError"),
    "NostrLister": ("truc_p2p.net._nostr_client", "NostrLister"),
    "check_relay_url": ("truc_p2p.net._nostr_client", "check_relay_url"),
    "fetch_nostr_lobby": ("truc_p2p.net._nostr_client", "fetch_nostr_lobby"),
    "Notice": ("truc_p2p.net._notice", "Notice"),
    "OUTCOME_KINDS": ("truc_p2p.net._outcome", "KINDS"),
    "OUTCOME_WHERE": ("truc_p2p.net._outcome", "WHERE"),
    "End": ("truc_p2p.net._outcome", "End"),
    "GameOutcome": ("truc_p2p.net._outcome", "GameOutcome"),
    "play_game": ("truc_p2p.net._play", "play_game"),
    "DEFAULT_AWAY_BUDGET": ("truc_p2p.net._clocks", "DEFAULT_AWAY_BUDGET"),
    "DEFAULT_BOT_TIMEOUT": ("truc_p2p.net._clocks", "DEFAULT_BOT_TIMEOUT"),
    "DEFAULT_DEAD_AFTER": ("truc_p2p.net._clocks", "DEFAULT_DEAD_AFTER"),
    "DEFAULT_GRACE": ("truc_p2p.net._clocks", "DEFAULT_GRACE"),
    "DEFAULT_HEARTBEAT": ("truc_p2p.net._clocks", "DEFAULT_HEARTBEAT"),
    "DEFAULT_HELLO_TIMEOUT": ("truc_p2p.net._clocks", "DEFAULT_HELLO_TIMEOUT"),
    "DEFAULT_TURN_TIMEOUT": ("truc_p2p.net._clocks", "DEFAULT_TURN_TIMEOUT"),
    "EventHook": ("truc_p2p.net._play_options", "EventHook"),
    "PlayOptions": ("truc_p2p.net._play_options", "PlayOptions"),
    "PortMapping": ("truc_p2p.net._portmap", "PortMapping"),
    "map_port": ("truc_p2p.net._portmap", "map_port"),
    "NetEvent": ("truc_p2p.net._net_events", "NetEvent"),
    "PeerDisconnected": ("truc_p2p.net._net_events", "PeerDisconnected"),
    "PeerReconnected": ("truc_p2p.net._net_events", "PeerReconnected"),
    "Reconnector": ("truc_p2p.net._reconnect", "Reconnector"),
    "TurnClock": ("truc_p2p.net._net_events", "TurnClock"),
    "RelayServer": ("truc_p2p.net._relay", "RelayServer"),
    "DEFAULT_RELAY_PORT": ("truc_p2p.net._relay_state", "DEFAULT_RELAY_PORT"),
    "RelayLimits": ("truc_p2p.net._relay_state", "RelayLimits"),
    "SessionReport": ("truc_p2p.net._relay_state", "SessionReport"),
    "Rendezvous": ("truc_p2p.net._rendezvous", "Rendezvous"),
    "open_rendezvous": ("truc_p2p.net._rendezvous", "open_rendezvous"),
    "Dial": ("truc_p2p.net._settings", "Dial"),
    "Clocks": ("truc_p2p.net._clocks", "Clocks"),
    "SessionOptions": ("truc_p2p.protocol", "SessionOptions"),
    "GameSettings": ("truc_p2p.net._clocks", "GameSettings"),
    "Listen": ("truc_p2p.net._settings", "Listen"),
    "Reporting": ("truc_p2p.net._settings", "Reporting"),
    "Storage": ("truc_p2p.net._settings", "Storage"),
    "CONCEDE_DETAIL": ("truc_p2p.net._play_endings", "CONCEDE_DETAIL"),
    "BotStrategy": ("truc_p2p.net._strategy", "BotStrategy"),
    "QuitGame": ("truc_p2p.net._strategy", "QuitGame"),
    "Strategy": ("truc_p2p.net._strategy", "Strategy"),
    "conceded": ("truc_p2p.net._play_endings", "conceded"),
    "concedes": ("truc_p2p.net._strategy", "concedes"),
    "GameListener": ("truc_p2p.net._tcp", "GameListener"),
    "guess_lan_address": ("truc_p2p.net._tcp", "guess_lan_address"),
    "open_game": ("truc_p2p.net._tcp", "open_game"),
    "serve_game": ("truc_p2p.net._tcp", "serve_game"),
}


def __getattr__(name: str) -> Any:
    """Load a public name from its module on first use (PEP 562)."""
    try:
        module, attr = _WHERE[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])


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
    "Clocks",
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
    "PathTry",
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
    "SessionOptions",
    "SessionReport",
    "Storage",
    "Strategy",
    "TurnClock",
    "TurnError",
    "TurnServer",
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
    "parse_turn_url",
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
