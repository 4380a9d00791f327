"""``truc-p2p host``: wait for an opponent (LAN, invite, relay) and play."""

from __future__ import annotations

import ipaddress
import re
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TextIO

import trio

from truc_p2p.bots import make_bot
from truc_p2p.cli._comeback import find_unfinished, resume_command
from truc_p2p.cli._common import (
    check_out_dir,
    exit_status,
    print_outcome,
    run_until_interrupted,
    use_ascii,
)
from truc_p2p.cli._game_args import (
    GameOptions,
    _common_args,
    _network_args,
    group_options,
    with_options,
)
from truc_p2p.cli._identity import add_identity_arg
from truc_p2p.cli._lifecycle import (
    _after_game,
    _asks_to_leave,
    _game_settings,
    _info_stream,
    _match_meta,
    _meta,
    _path_line,
    _player,
    _setup,
)
from truc_p2p.cli._resume import _come_back
from truc_p2p.cli._web import add_web_args, show_invite, show_web_result, with_web
from truc_p2p.history import MatchRecord
from truc_p2p.identity import (
    Identity,
)
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
    Storage,
    Strategy,
    host_game,
    parse_host_port,
)
from truc_p2p.ui import Narrator, _, notice_text, with_terminal

__all__ = ["register"]


def register(subparsers: Any) -> None:
    host = subparsers.add_parser(
        "host",
        help=_("wait for an opponent and print an invite for them"),
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
    add_identity_arg(host)
    _common_args(host)
    _network_args(host)
    add_web_args(host)
    group_options(host)
    host.set_defaults(func=with_options(_host))


@dataclass(frozen=True)
class _Where:
    """Where a host listens, as its options say once checked."""

    relay: tuple[str, int] | None
    allow: frozenset[str] | None
    capacity: int

    def listen(self, opts: GameOptions, port: int) -> Listen:
        """Where and how to listen, on ``port`` (a rematch: where the invite points)."""
        return Listen(
            bind=opts.bind,
            port=port,
            advertise=opts.advertise,
            relay=self.relay,
            portmap=not opts.no_portmap,
            announce=not opts.no_announce,
            capacity=self.capacity,
            allow=self.allow,
            public=opts.public,
        )


def _checked(opts: GameOptions) -> _Where | int:
    """The host's address options checked (exit status 2 and one line when wrong)."""
    try:
        if opts.advertise:
            Invite(opts.advertise, 1, "0" * 64)
        if not 0 <= opts.port <= 65535:
            raise InviteError(_("--port must be in 0..65535, not {port}", port=opts.port))
        relay = parse_host_port(opts.relay, what="--relay") if opts.relay else None
    except InviteError as exc:
        print(f"truc-p2p host: {exc}", file=sys.stderr)
        return 2
    if opts.public and relay is None:
        print(
            "truc-p2p host: " + _("--public lists the game on a relay: add --relay HOST:PORT"),
            file=sys.stderr,
        )
        return 2
    allow: frozenset[str] | None = None
    if opts.allow:
        bad = [a for a in opts.allow if not re.fullmatch(r"[0-9a-fA-F]{64}", a)]
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
        allow = frozenset(a.lower() for a in opts.allow)
    if opts.max_games is not None and not 1 <= opts.max_games <= 256:
        print("truc-p2p host: " + _("--max-games must be in 1..256"), file=sys.stderr)
        return 2
    if opts.max_games is not None and not (opts.forever and opts.bot):
        print("truc-p2p host: " + _("--max-games needs --forever and --bot"), file=sys.stderr)
        return 2
    capacity = (opts.max_games or 8) if (opts.forever and opts.bot) else 1
    return _Where(relay, allow, capacity)


def _announce(
    invite: Invite, opts: GameOptions, *, name: str, fingerprint: str, screen: object, info: TextIO
) -> None:
    """The host's lines once it listens: who, where, the invite, how to be reached."""
    where = opts.bind or _("all interfaces")
    print(
        _(
            "hosting as {name}, key fingerprint {fingerprint}",
            name=name,
            fingerprint=fingerprint,
        ),
        file=info,
    )
    print(
        _(
            "listening on {where}, TCP port {port}; send this invite to your opponent:",
            where=where,
            port=invite.port,
        ),
        file=info,
        flush=True,
    )
    print(str(invite), flush=True)
    show_invite(screen, invite, relay=opts.relay)  # host --web: on the page too
    if invite.relay is not None:
        print(
            _(
                "registered with the relay {relay} (one-time code {code}); "
                "your friend can join from behind NAT, no port forwarding needed",
                relay=opts.relay,
                code=invite.code,
            ),
            file=info,
        )
    if opts.public:
        print(
            _(
                "listed in the relay's lobby as {name}: anyone can join with "
                "truc-p2p join --relay {relay}",
                name=name,
                relay=opts.relay,
            ),
            file=info,
        )
    if not opts.advertise and not opts.quiet and invite.relay is None:
        try:
            address = ipaddress.ip_address(invite.host)
            private = address.is_private and not address.is_loopback
        except ValueError:
            private = False
        if private:
            print(
                _(
                    "(this address works on your LAN; over the internet either host "
                    "through a relay with --relay HOST:PORT (no router settings), or "
                    "forward TCP port {port} on your router to this machine and add "
                    "--advertise YOUR_PUBLIC_ADDRESS)",
                    port=invite.port,
                ),
                file=info,
            )
    print(_("waiting for an opponent (Ctrl-C to stop)..."), file=info, flush=True)


def _announce_again(invite: Invite, info: TextIO) -> None:
    """The host's line when it listens again for a rematch."""
    print(
        _(
            "waiting for your opponent to join again on port {port} (the same "
            "invite; Ctrl-C to stop)...",
            port=invite.port,
        ),
        file=info,
        flush=True,
    )


def _cannot_listen(opts: GameOptions, port: int, exc: OSError) -> int:
    """The one line when the port cannot be listened on; exit status 2."""
    print(
        "truc-p2p host: "
        + _(
            "cannot listen on {where} port {port}: {reason}",
            where=opts.bind or _("all interfaces"),
            port=port,
            reason=exc.strerror or exc,
        ),
        file=sys.stderr,
    )
    return 2


def _host(opts: GameOptions, record: MatchRecord | None = None) -> int:
    where = _checked(opts)
    if isinstance(where, int):
        return where
    capacity = where.capacity
    out_problem = check_out_dir(opts.out, opts.command)
    if out_problem is not None:
        return out_problem
    setup = _setup(opts, fallback="host")
    if isinstance(setup, int):
        return setup
    ruleset, ident, name = setup
    if record is None:  # hosting again after a crash: the game the joiner waits for
        back = _host_again(opts, ident)
        if back is not None:
            return back
    ascii = use_ascii(opts.ascii)
    info = _info_stream(opts)
    strategy, hook = _player(opts, name, ascii)
    games_played = [0]

    def players() -> tuple[Strategy, EventHook | None]:
        if capacity > 1:  # games at once: each needs its own bot and narrator
            games_played[0] += 1
            seed = None if opts.seed is None else opts.seed + games_played[0]
            assert opts.bot is not None  # several games at once need --bot
            bot = BotStrategy(make_bot(opts.bot, seed))
            quiet = opts.quiet or opts.json
            return bot, None if quiet else Narrator(
                name, ascii=ascii, out=info, verbose=opts.verbose
            )
        return strategy, hook

    def on_outcome(outcome: GameOutcome) -> None:
        if opts.forever:
            print_outcome(outcome, as_json=opts.json, quiet=opts.quiet)

    def on_invite(invite: Invite) -> None:
        _announce(
            invite, opts, name=name, fingerprint=ident.fingerprint, screen=strategy, info=info
        )

    def on_notice(text: str) -> None:
        print(notice_text(text), file=sys.stderr, flush=True)

    def on_path(path: str, peer: str) -> None:
        print(_path_line(path, peer), file=info, flush=True)

    if record is None:
        record = MatchRecord(games=opts.match, folder=Path(opts.out))
    port = [opts.port]  # a rematch listens again where the invite points

    def remember_port(invite: Invite) -> None:
        port[0] = invite.port
        if not record.played:
            on_invite(invite)
        else:
            _announce_again(invite, info)

    async def main(stop: trio.Event) -> int:
        while True:
            try:
                outcome = await host_game(
                    strategy,
                    identity=ident.key,
                    settings=replace(
                        _game_settings(opts, ruleset, name),
                        series=record.series(),
                        played=record.followed(),
                    ),
                    listen=where.listen(opts, port[0]),
                    storage=Storage(
                        out_dir=opts.out,
                        meta={**_meta(opts, name, ident), **_match_meta(record, opts)},
                    ),
                    report=Reporting(
                        on_invite=remember_port,
                        on_event=hook,
                        on_notice=on_notice,
                        on_outcome=on_outcome,
                        on_path=on_path,
                    ),
                    stop=stop,
                    forever=opts.forever,
                    players=players,
                )
            except ConnectError as exc:
                print(f"truc-p2p host: {exc}", file=sys.stderr)
                return 4
            except OSError as exc:
                return _cannot_listen(opts, port[0], exc)
            if opts.forever:
                await show_web_result(strategy, outcome)
                return 0 if stop.is_set() else exit_status(outcome, stop)
            if not await _after_game(strategy, outcome, record, opts, stop):
                return exit_status(outcome, stop)

    return run_until_interrupted(
        with_web(opts, strategy, with_terminal(strategy, main)), confirm=_asks_to_leave(strategy)
    )


def _host_again(opts: GameOptions, ident: Identity) -> int | None:
    """An unfinished game of this host: resumed when the opponent may still wait for
    it (written within the grace), else the command that resumes it, in one line."""
    recent = None
    if not opts.forever:
        recent = find_unfinished(opts.out, role="host", identity=ident.path, within=opts.grace)
    if recent is not None:
        return _come_back(opts, recent)
    older = find_unfinished(opts.out, role="host", identity=ident.path)
    if older is not None:
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
