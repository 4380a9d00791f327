"""``truc-p2p host``: wait for an opponent (LAN, invite, relay) and play."""

from __future__ import annotations

import ipaddress
import re
import secrets
import sys
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any, TextIO

import trio

from truc_p2p.bots import make_bot
from truc_p2p.cli._comeback import (
    ask_resume,
    find_unfinished,
    games_folders,
    offers_resume,
    resume_command,
)
from truc_p2p.cli._common import use_ascii
from truc_p2p.cli._game_args import GameOptions
from truc_p2p.cli._lifecycle import (
    ComeBack,
    Road,
    Seat,
    Table,
    add_turn_args,
    network_command,
    run_game,
    turn_server_of,
)
from truc_p2p.cli._parser import COMMAND_HELP
from truc_p2p.cli._path_words import path_line
from truc_p2p.cli._run import exit_status, print_outcome
from truc_p2p.cli._web import show_invite, show_web_result
from truc_p2p.i18n import _
from truc_p2p.identity import Identity
from truc_p2p.net import (
    DEFAULT_PORT,
    BotStrategy,
    ConnectError,
    EventHook,
    GameOutcome,
    Invite,
    InviteError,
    Listen,
    Reporting,
    Strategy,
    TurnServer,
    check_relay_url,
    host_game,
    parse_host_port,
)
from truc_p2p.ui import Narrator, fit_for, notice_text

__all__ = ["register"]


def register(subparsers: Any, *, come_back: ComeBack) -> None:
    """``host``; ``come_back``: the road of an unfinished game of this player's."""
    host = subparsers.add_parser(
        "host",
        help=_(COMMAND_HELP["host"]),
        description=_(
            "Listen for one opponent and print an invite (a line starting with "
            "truc://) holding this machine's address, the port and your key fingerprint. "
            "The host is the protocol's responder (player 1). Both players must use the "
            "same --target/--ladder/--rest-refused."
        ),
    )
    host.add_argument(
        "--bind",
        default=None,
        metavar="ADDR",
        help=_("address to listen on (default: all, IPv6+IPv4)"),
    )
    host.add_argument(
        "--port",
        type=int,
        default=DEFAULT_PORT,
        help=_("TCP port (default {default}; 0: any)", default=DEFAULT_PORT),
    )
    host.add_argument(
        "--relay",
        default=None,
        metavar="HOST:PORT",
        help=_(
            "register with this relay (truc-p2p relay) so a friend behind NAT can join "
            "without port forwarding; the invite carries the relay and a one-time code"
        ),
    )
    host.add_argument(
        "--public",
        action="store_true",
        help=_(
            "with --relay: list the game in the relay's lobby (name, key, rules; signed "
            "with your key) so anyone can join with truc-p2p join --relay"
        ),
    )
    host.add_argument(
        "--nostr",
        action="append",
        default=None,
        metavar="URL",
        help=_(
            "with --public: also list the game on this Nostr relay (ws:// or wss://; "
            "repeatable); joiners find it with truc-p2p lobby --nostr URL"
        ),
    )
    add_turn_args(
        host,
        _(
            "with --relay: also offer a path through this TURN server (RFC 6062 over TCP, "
            "e.g. coturn) for joiners behind NATs that cannot be punched"
        ),
    )
    host.add_argument(
        "--no-portmap",
        action="store_true",
        help=_("do not ask the router to forward the port (UPnP-IGD, NAT-PMP, PCP)"),
    )
    host.add_argument(
        "--no-announce", action="store_true", help=_("do not announce the game on the LAN (mDNS)")
    )
    host.add_argument(
        "--advertise",
        default=None,
        metavar="ADDR",
        help=_("address to put in the invite, e.g. your public IP when forwarding the port"),
    )
    host.add_argument(
        "--forever",
        action="store_true",
        help=_("keep hosting game after game (several at once with --bot) until Ctrl-C"),
    )
    host.add_argument(
        "--allow",
        action="append",
        default=None,
        metavar="FINGERPRINT",
        help=_("admit only this key fingerprint (repeatable); others are refused"),
    )
    host.add_argument(
        "--max-games",
        type=int,
        default=None,
        metavar="N",
        help=_("games at once with --forever --bot (default 8; 1 for a human)"),
    )
    network_command(host, partial(_host, come_back=come_back))


@dataclass(frozen=True)
class _Where:
    """Where a host listens, as its options say once checked."""

    relay: tuple[str, int] | None
    allow: frozenset[str] | None
    capacity: int
    turn: TurnServer | None = None
    #: one relay claim for every game of the command: each next game (a rematch, a
    #: match's) has the relay code of the invite the joiner dials again
    relay_nonce: bytes = field(default_factory=lambda: secrets.token_bytes(16))

    def listen(self, opts: GameOptions, port: int) -> Listen:
        """Where and how to listen, on ``port`` (a rematch: where the invite points)."""
        return Listen(
            bind=opts.network.bind,
            port=port,
            advertise=opts.network.advertise,
            relay=self.relay,
            portmap=not opts.network.no_portmap,
            announce=not opts.network.no_announce,
            capacity=self.capacity,
            allow=self.allow,
            public=opts.network.public,
            nostr=tuple(opts.network.nostr or ()) if opts.network.public else (),
            relay_nonce=self.relay_nonce,
            turn=self.turn,
        )


def _checked(opts: GameOptions) -> _Where | int:
    """The host's address options checked (exit status 2 and one line when wrong)."""
    try:
        if opts.network.advertise:
            Invite(opts.network.advertise, 1, "0" * 64)
        if not 0 <= opts.network.port <= 65535:
            raise InviteError(_("--port must be in 0..65535, not {port}", port=opts.network.port))
        relay = parse_host_port(opts.network.relay, what="--relay") if opts.network.relay else None
    except InviteError as exc:
        print(f"truc-p2p host: {exc}", file=sys.stderr)
        return 2
    if opts.network.public and relay is None and not opts.network.nostr:
        print(
            "truc-p2p host: " + _("--public lists the game on a relay: add --relay HOST:PORT"),
            file=sys.stderr,
        )
        return 2
    if opts.network.nostr and not opts.network.public:
        print("truc-p2p host: " + _("--nostr lists the game: add --public"), file=sys.stderr)
        return 2
    for url in opts.network.nostr or ():
        try:
            check_relay_url(url)
        except ValueError as exc:
            print(f"truc-p2p host: --nostr: {exc}", file=sys.stderr)
            return 2
    allow: frozenset[str] | None = None
    if opts.network.allow:
        bad = [a for a in opts.network.allow if not re.fullmatch(r"[0-9a-fA-F]{64}", a)]
        if bad:
            print(
                "truc-p2p host: "
                + _(
                    "--allow takes a 64-hex-digit key fingerprint, not {value}",
                    value=repr(bad[0]),
                ),
                file=sys.stderr,
            )
            return 2
        allow = frozenset(a.lower() for a in opts.network.allow)
    if opts.network.max_games is not None and not 1 <= opts.network.max_games <= 256:
        print("truc-p2p host: " + _("--max-games must be in 1..256"), file=sys.stderr)
        return 2
    if opts.network.max_games is not None and not (opts.network.forever and opts.who.bot):
        print("truc-p2p host: " + _("--max-games needs --forever and --bot"), file=sys.stderr)
        return 2
    capacity = (opts.network.max_games or 8) if (opts.network.forever and opts.who.bot) else 1
    turn = turn_server_of(opts, "host", needs_relay=relay is None)
    if isinstance(turn, int):
        return turn
    return _Where(relay, allow, capacity, turn)


def _announce(
    invite: Invite, opts: GameOptions, *, name: str, fingerprint: str, screen: object, info: TextIO
) -> None:
    """The host's lines once it listens: who, where, the invite, how to be reached."""

    def say(text: str) -> None:  # at a terminal or with $COLUMNS: wrapped between words
        print(fit_for(text, info), file=info, flush=True)

    where = opts.network.bind or _("all interfaces")
    say(
        _(
            "hosting as {name}, key fingerprint {fingerprint}",
            name=name,
            fingerprint=fingerprint,
        )
    )
    say(
        _(
            "listening on {where}, TCP port {port}; send this invite to your opponent:",
            where=where,
            port=invite.port,
        )
    )
    print(str(invite), flush=True)
    show_invite(screen, invite, relay=opts.network.relay)  # host --web: on the page too
    if invite.relay is not None:
        say(
            _(
                "registered with the relay {relay} (one-time code {code}); "
                "your friend can join from behind NAT, no port forwarding needed",
                relay=opts.network.relay,
                code=invite.code,
            )
        )
    if opts.network.nostr:
        say(
            _(
                "listed on the Nostr relays as {name} while you wait: anyone can find "
                "it with truc-p2p lobby --nostr URL",
                name=name,
            )
        )
    if opts.network.public and opts.network.relay:
        say(
            _(
                "listed in the relay's lobby as {name}: anyone can join with "
                "truc-p2p join --relay {relay}",
                name=name,
                relay=opts.network.relay,
            )
        )
    if not opts.network.advertise and not opts.screen.quiet and invite.relay is None:
        try:
            address = ipaddress.ip_address(invite.host)
            private = address.is_private and not address.is_loopback
        except ValueError:
            private = False
        if private:
            say(
                _(
                    "(this address works on your LAN; over the internet either host "
                    "through a relay with --relay HOST:PORT (no router settings), or "
                    "forward TCP port {port} on your router to this machine and add "
                    "--advertise YOUR_PUBLIC_ADDRESS)",
                    port=invite.port,
                )
            )
    say(_("waiting for an opponent (Ctrl-C to stop)..."))


def _announce_again(invite: Invite, info: TextIO) -> None:
    """The host's line when it listens again for a rematch."""
    line = _(
        "waiting for your opponent to join again on port {port} (the same "
        "invite; Ctrl-C to stop)...",
        port=invite.port,
    )
    print(fit_for(line, info), file=info, flush=True)


def _cannot_listen(opts: GameOptions, port: int, exc: OSError) -> int:
    """The one line when the port cannot be listened on; exit status 2."""
    print(
        "truc-p2p host: "
        + _(
            "cannot listen on {where} port {port}: {reason}",
            where=opts.network.bind or _("all interfaces"),
            port=port,
            reason=exc.strerror or exc,
        ),
        file=sys.stderr,
    )
    return 2


class HostRoad(Road):
    """``host``: the settings from the options; the connection: listen for the joiner
    (LAN, invite, relay), on the same port again for each next game."""

    def __init__(self) -> None:
        self.where = _Where(None, None, 1)
        self.port = 0
        self.games_played = 0

    def settle(self, opts: GameOptions) -> GameOptions | int:
        where = _checked(opts)
        if isinstance(where, int):
            return where
        self.where, self.port = where, opts.network.port
        return opts

    def unfinished(self, opts: GameOptions, seat: Seat) -> Path | None:
        return _host_again(opts, seat.ident)

    def _players(self, table: Table) -> tuple[Strategy, EventHook | None]:
        """Who plays the next connection: with ``--forever --bot``, games at once, each
        its own bot and narrator."""
        opts = table.opts
        if self.where.capacity == 1:
            return table.player, table.hook
        self.games_played += 1
        seed = None if opts.who.seed is None else opts.who.seed + self.games_played
        assert opts.who.bot is not None  # several games at once need --bot
        bot = BotStrategy(make_bot(opts.who.bot, seed))
        if opts.screen.quiet or opts.screen.json:
            return bot, None
        narrator = Narrator(
            table.seat.name,
            ascii=use_ascii(opts.screen.ascii),
            out=opts.screen.info,
            verbose=opts.screen.verbose,
        )
        return bot, narrator

    def _reporting(self, table: Table) -> Reporting:
        opts, seat, info = table.opts, table.seat, table.opts.screen.info

        def on_invite(invite: Invite) -> None:
            self.port = invite.port  # a rematch listens again where the invite points
            if table.record.played:
                _announce_again(invite, info)
                return
            _announce(
                invite,
                opts,
                name=seat.name,
                fingerprint=seat.ident.fingerprint,
                screen=table.player,
                info=info,
            )

        def on_outcome(outcome: GameOutcome) -> None:
            if opts.network.forever:
                print_outcome(outcome, as_json=opts.screen.json, quiet=opts.screen.quiet)

        return Reporting(
            on_invite=on_invite,
            on_event=table.hook,
            on_notice=lambda text: print(notice_text(text), file=sys.stderr, flush=True),
            on_outcome=on_outcome,
            on_path=lambda path, peer: print(
                fit_for(path_line(path, peer), info), file=info, flush=True
            ),
        )

    async def game(self, table: Table, stop: trio.Event) -> GameOutcome | int:
        opts = table.opts
        try:
            outcome = await host_game(
                table.player,
                identity=table.seat.ident.key,
                settings=table.settings(),
                listen=replace(
                    self.where.listen(opts, self.port),
                    played=table.record.followed(),
                    forever=opts.network.forever,
                ),
                storage=table.storage(),
                report=self._reporting(table),
                stop=stop,
                players=lambda: self._players(table),
            )
        except ConnectError as exc:
            print(f"truc-p2p host: {exc}", file=sys.stderr)
            return 4
        except OSError as exc:
            return _cannot_listen(opts, self.port, exc)
        if opts.network.forever:
            await show_web_result(table.player, outcome)
            return 0 if stop.is_set() else exit_status(outcome, stop)
        return outcome


def _host(opts: GameOptions, *, come_back: ComeBack) -> int:
    return run_game(opts, HostRoad(), come_back=come_back)


def _host_again(opts: GameOptions, ident: Identity) -> Path | None:
    """An unfinished game of this host: resumed when the opponent may still wait for
    it (written within the grace); an older one is offered at a terminal (Enter
    resumes it), else named with the command that resumes it, in one line."""
    folders = games_folders(opts)
    recent = None
    if not opts.network.forever:
        recent = find_unfinished(
            folders, role="host", identity=ident.path, within=opts.clocks.grace
        )
    if recent is not None:
        return recent
    older = find_unfinished(folders, role="host", identity=ident.path)
    if older is None:
        return None
    if not opts.network.forever and offers_resume(opts):
        return older if ask_resume(older) else None  # "n": a new game, the command said
    print(
        _(
            "your game {path} did not finish; to resume it while the opponent waits: {command}",
            path=older,
            command=resume_command(older),
        ),
        file=sys.stderr,
        flush=True,
    )
    return None
