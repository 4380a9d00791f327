"""``truc-p2p host``, ``join`` and ``play``: games over TCP against a person or a bot."""

from __future__ import annotations

import argparse
import ipaddress
import os
import re
import shlex
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, TextIO

import trio
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from truc_p2p.bots import DEFAULT_OPPONENT, Bot, make_bot
from truc_p2p.cli._comeback import busy_hint, find_unfinished, resume_command
from truc_p2p.cli._common import (
    GAMES_FOLDER_HELP,
    StoreExplicit,
    add_bot_arg,
    add_pipeline_arg,
    add_ruleset_args,
    check_out_dir,
    default_games_folder,
    default_name,
    exit_status,
    explicit_options,
    pipeline_of,
    positive_seconds,
    print_outcome,
    ruleset_from_args,
    run_until_interrupted,
    use_ascii,
)
from truc_p2p.cli._hosts import describe
from truc_p2p.cli._i18n import N_, _, ngettext
from truc_p2p.cli._identity import add_identity_arg, identity_error_text
from truc_p2p.cli._match import MatchRecord
from truc_p2p.cli._narrate import Narrator
from truc_p2p.cli._notice_text import notice_text
from truc_p2p.cli._texts import Voice, bot_player_name
from truc_p2p.cli._tui import StdinLines, TerminalPlayer, with_terminal
from truc_p2p.cli._web import (
    WebPlayer,
    add_web_args,
    ask_bot_level,
    bot_level,
    show_invite,
    show_web_result,
    web_player,
    with_web,
)
from truc_p2p.identity import (
    Identity,
    IdentityError,
    load_identity,
    load_or_create_identity,
    write_private_file,
)
from truc_p2p.net import (
    DEFAULT_BOT_TIMEOUT,
    DEFAULT_GRACE,
    DEFAULT_HELLO_TIMEOUT,
    DEFAULT_PORT,
    DEFAULT_TURN_TIMEOUT,
    BotStrategy,
    ConnectError,
    Dial,
    End,
    EventHook,
    GameOutcome,
    GameSettings,
    HostSettings,
    Invite,
    InviteError,
    Listen,
    Reporting,
    Storage,
    Strategy,
    find_games,
    host_game,
    join_game,
    open_game,
    parse_host_port,
    play_game,
    prepare_game,
    read_meta,
    relay_claim,
    restore_game,
    resume_game,
    serve_game,
    transcript_path,
    write_meta,
)
from truc_p2p.protocol import LocalProtocolError, Session, verify_transcript
from truc_p2p.rules import Player, RulesError, Ruleset
from truc_p2p.transcript import read_transcript

__all__ = ["register"]


#: Seconds a joiner who asked to play again waits for the host to listen again.
REMATCH_WAIT = 120.0


def _common_args(parser: argparse.ArgumentParser, *, human: bool = True) -> None:
    if human:
        add_bot_arg(
            parser,
            default=None,
            help=_("let this bot play for you (default: you play in the terminal)"),
        )
    parser.add_argument("--seed", type=int, default=None, help=_("seed the bot's choices"))
    parser.add_argument("--name", default=None, help=_("your name shown to the opponent"))
    parser.add_argument(
        "--out",
        default=str(default_games_folder()),
        metavar="DIR",
        help=_(GAMES_FOLDER_HELP, path=str(default_games_folder()).replace("%", "%%")),
    )
    parser.add_argument(
        "--timeout",
        type=positive_seconds,
        default=DEFAULT_TURN_TIMEOUT,
        metavar="S",
        help=_(
            "seconds the opponent may take per move before the game ends by timeout "
            "(default {default}; {bot} is plenty for a bot)",
            default=f"{DEFAULT_TURN_TIMEOUT:g}",
            bot=f"{DEFAULT_BOT_TIMEOUT:g}",
        ),
    )
    parser.add_argument(
        "--json", action="store_true", help=_("print the result as one JSON object")
    )
    parser.add_argument("--quiet", action="store_true", help=_("do not narrate a bot's game"))
    parser.add_argument("--ascii", action="store_true", help=_("plain-ASCII cards (7S, not 7♠)"))
    parser.add_argument(
        "--verbose",
        action="store_true",
        help=_("also show keys, game ids and how the peers are connected"),
    )
    add_ruleset_args(parser)
    add_pipeline_arg(parser)
    parser.add_argument(
        "--match",
        type=_match_length,
        default=1,
        action=StoreExplicit,
        metavar="N",
        help=_(
            "play a match (partie liée) of N games: the first to win ceil(N/2) games "
            "wins it; the opponent must ask for the same N (default 1: one game)"
        ),
    )


def _match_length(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            _("not a number of games: {text}", text=repr(text))
        ) from None
    if not 1 <= n <= 99:
        raise argparse.ArgumentTypeError(_("a match is 1 to 99 games"))
    return n


def _network_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--grace",
        type=positive_seconds,
        default=DEFAULT_GRACE,
        metavar="S",
        help=_(
            "seconds a disconnected opponent has to come back before the game counts as "
            "abandoned (default {default})",
            default=f"{DEFAULT_GRACE:g}",
        ),
    )
    parser.add_argument(
        "--hello-timeout",
        type=positive_seconds,
        default=DEFAULT_HELLO_TIMEOUT,
        metavar="S",
        help=_(
            "seconds a new connection has to send its first message (default {default})",
            default=f"{DEFAULT_HELLO_TIMEOUT:g}",
        ),
    )


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
    host.set_defaults(func=_host)

    join = subparsers.add_parser(
        "join",
        help=_("join a host with its invite, or pick a game on the LAN"),
        description=_(
            "Connect to the host of INVITE (truc://HOST:PORT/?fp=FINGERPRINT, "
            "maybe with &relay=...&code=...) and play; refuse the host if its key does not "
            "have the invite's fingerprint. Without INVITE, list the games announced on the "
            "LAN, or with --relay the games in that relay's lobby, and read the number of the "
            "one to join from the input (or --pick N)."
        ),
    )
    join.add_argument(
        "invite", nargs="?", default=None, metavar="INVITE", help=_("the host's invite, truc://...")
    )
    join.add_argument(
        "--relay",
        default=None,
        metavar="HOST[:PORT]",
        help=_("without an invite: pick a game from this relay's lobby (with --web: on a page)"),
    )
    join.add_argument(
        "--pick",
        type=int,
        default=None,
        metavar="N",
        help=_("take game number N of the list instead of asking (for scripts)"),
    )
    join.add_argument(
        "--wait",
        type=positive_seconds,
        default=2.0,
        metavar="S",
        help=_("without an invite: listen S seconds for LAN games (default 2)"),
    )
    join.add_argument(
        "--connect-timeout", type=positive_seconds, default=15.0, metavar="S", help=_("default 15")
    )
    join.add_argument(
        "--again-wait",
        type=positive_seconds,
        default=REMATCH_WAIT,
        metavar="S",
        help=_(
            "after a game you want to play again (or inside a match): how long to wait "
            "for the host to listen again (default {default})",
            default=f"{REMATCH_WAIT:g}",
        ),
    )
    add_identity_arg(join)
    _common_args(join)
    _network_args(join)
    add_web_args(join)
    join.set_defaults(func=_join)

    resume = subparsers.add_parser(
        "resume",
        help=_("finish a game whose process died, from its transcript"),
        description=_(
            "Continue the game of FILE (a transcript written by host or join) "
            "after a crash, kill -9 or reboot: the settings stored beside it "
            "(FILE.meta.json, FILE.secret) rebuild the session; a joiner redials the host, "
            "a host listens again on the same port so the invite still works. The opponent "
            "must still be waiting (within its --grace)."
        ),
    )
    resume.add_argument("transcript", metavar="FILE", help=_("the transcript to continue"))
    add_bot_arg(
        resume,
        default=None,
        help=_("let this bot play for you (default: you play in the terminal)"),
    )
    resume.add_argument("--seed", type=int, default=None, help=_("seed the bot's choices"))
    resume.add_argument(
        "--json", action="store_true", help=_("print the result as one JSON object")
    )
    resume.add_argument("--quiet", action="store_true", help=_("do not narrate a bot's game"))
    resume.add_argument("--ascii", action="store_true", help=_("plain-ASCII cards (7S, not 7♠)"))
    add_web_args(resume)
    resume.set_defaults(func=_resume)

    play = subparsers.add_parser(
        "play",
        help=_("play against a bot on this machine (over loopback TCP)"),
        description=_(
            "You play a bot through the full protocol over a loopback TCP "
            "connection: no second machine needed. Keys: 1-3 play a card, r raise, m my rest, "
            "a accept, x refuse, f fold, d redeal, n decline, ? help, q quit."
        ),
    )
    add_bot_arg(
        play,
        default=DEFAULT_OPPONENT,
        help=_("the opponent bot (default {default})", default=DEFAULT_OPPONENT),
    )
    play.add_argument(
        "--identity", metavar="FILE", default=None, help=_("your key file (default: a one-off key)")
    )
    _common_args(play, human=False)
    add_web_args(play)
    play.set_defaults(func=_play)


def _asks_to_leave(player: object) -> Callable[[], bool] | bool:
    """Whether a lone Ctrl-C should only ask (a person at a terminal plays a game; a
    host still waiting for its opponent just stops)."""
    if isinstance(player, TerminalPlayer) and _stdin_is_tty():
        return lambda: player.model.game is not None
    return False


def _stdin_is_tty() -> bool:
    try:
        return os.isatty(sys.stdin.fileno())
    except (OSError, ValueError):
        return False


def _info_stream(args: argparse.Namespace) -> TextIO:
    return sys.stderr if args.json else sys.stdout


def _player(args: argparse.Namespace, name: str, ascii: bool) -> tuple[Strategy, EventHook | None]:
    out = _info_stream(args)
    if getattr(args, "bot", None):
        bot = BotStrategy(make_bot(args.bot, args.seed))
        quiet = args.quiet or args.json
        return bot, None if quiet else Narrator(
            name, ascii=ascii, out=out, verbose=getattr(args, "verbose", False)
        )
    web = web_player(args, name)
    if web is not None:
        return web, web
    human = TerminalPlayer(
        StdinLines(),
        name,
        ascii=ascii,
        out=out,
        echo=not _stdin_is_tty(),
        move_seconds=getattr(args, "timeout", None),
        verbose=getattr(args, "verbose", False),
    )
    return human, human


def _setup(args: argparse.Namespace, *, fallback: str) -> tuple[Any, Identity, str] | int:
    try:
        ruleset = ruleset_from_args(args)
    except (RulesError, ValueError) as exc:
        print(
            f"truc-p2p {args.command}: " + _("bad ruleset option: {reason}", reason=exc),
            file=sys.stderr,
        )
        return 2
    name = args.name or default_name(fallback)
    if not (1 <= len(name) <= 40 and name.isprintable()):
        print(
            f"truc-p2p {args.command}: " + _("--name must be 1 to 40 printable characters"),
            file=sys.stderr,
        )
        return 2
    try:
        ident = load_or_create_identity(args.identity)
    except IdentityError as exc:
        print(f"truc-p2p {args.command}: {identity_error_text(exc)}", file=sys.stderr)
        return 2
    if ident.created and ident.path is not None:
        print(
            _("created your identity key in {path} (mode 0600)", path=ident.path),
            file=sys.stderr,
        )
    return ruleset, ident, name


def _host(args: argparse.Namespace, record: MatchRecord | None = None) -> int:
    try:
        if args.advertise:
            Invite(args.advertise, 1, "0" * 64)
        if not 0 <= args.port <= 65535:
            raise InviteError(_("--port must be in 0..65535, not {port}", port=args.port))
        relay = parse_host_port(args.relay, what="--relay") if args.relay else None
    except InviteError as exc:
        print(f"truc-p2p host: {exc}", file=sys.stderr)
        return 2
    if args.public and relay is None:
        print(
            "truc-p2p host: " + _("--public lists the game on a relay: add --relay HOST:PORT"),
            file=sys.stderr,
        )
        return 2
    allow: frozenset[str] | None = None
    if args.allow:
        bad = [a for a in args.allow if not re.fullmatch(r"[0-9a-fA-F]{64}", a)]
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
        allow = frozenset(a.lower() for a in args.allow)
    if args.max_games is not None and not 1 <= args.max_games <= 256:
        print("truc-p2p host: " + _("--max-games must be in 1..256"), file=sys.stderr)
        return 2
    if args.max_games is not None and not (args.forever and args.bot):
        print("truc-p2p host: " + _("--max-games needs --forever and --bot"), file=sys.stderr)
        return 2
    capacity = (args.max_games or 8) if (args.forever and args.bot) else 1
    out_problem = check_out_dir(args.out, args.command)
    if out_problem is not None:
        return out_problem
    setup = _setup(args, fallback="host")
    if isinstance(setup, int):
        return setup
    ruleset, ident, name = setup
    if record is None:  # hosting again after a crash: the game the joiner waits for
        back = _host_again(args, ident)
        if back is not None:
            return back
    ascii = use_ascii(args.ascii)
    info = _info_stream(args)
    strategy, hook = _player(args, name, ascii)
    games_played = [0]

    def players() -> tuple[Strategy, EventHook | None]:
        if capacity > 1:  # games at once: each needs its own bot and narrator
            games_played[0] += 1
            seed = None if args.seed is None else args.seed + games_played[0]
            bot = BotStrategy(make_bot(args.bot, seed))
            quiet = args.quiet or args.json
            return bot, None if quiet else Narrator(
                name, ascii=ascii, out=info, verbose=getattr(args, "verbose", False)
            )
        return strategy, hook

    def on_outcome(outcome: GameOutcome) -> None:
        if args.forever:
            print_outcome(outcome, as_json=args.json, quiet=args.quiet)

    def on_invite(invite: Invite) -> None:
        where = args.bind or _("all interfaces")
        print(
            _(
                "hosting as {name}, key fingerprint {fingerprint}",
                name=name,
                fingerprint=ident.fingerprint,
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
        show_invite(strategy, invite, relay=args.relay)  # host --web: on the page too
        if invite.relay is not None:
            print(
                _(
                    "registered with the relay {relay} (one-time code {code}); "
                    "your friend can join from behind NAT, no port forwarding needed",
                    relay=args.relay,
                    code=invite.code,
                ),
                file=info,
            )
        if args.public:
            print(
                _(
                    "listed in the relay's lobby as {name}: anyone can join with "
                    "truc-p2p join --relay {relay}",
                    name=name,
                    relay=args.relay,
                ),
                file=info,
            )
        if not args.advertise and not args.quiet and invite.relay is None:
            try:
                address = ipaddress.ip_address(invite.host)
                private = address.is_private and not address.is_loopback
            except ValueError:
                private = False
            if private:
                print(
                    _(
                        "(this address works on your LAN; over the internet forward TCP "
                        "port {port} on your router to this machine and add "
                        "--advertise YOUR_PUBLIC_ADDRESS)",
                        port=invite.port,
                    ),
                    file=info,
                )
        print(_("waiting for an opponent (Ctrl-C to stop)..."), file=info, flush=True)

    def on_notice(text: str) -> None:
        print(notice_text(text), file=sys.stderr, flush=True)

    def on_path(path: str, peer: str) -> None:
        print(_path_line(path, peer), file=info, flush=True)

    if record is None:
        record = MatchRecord(games=args.match, folder=Path(args.out))
    port = [args.port]  # a rematch listens again where the invite points

    def on_invite_again(invite: Invite) -> None:
        print(
            _(
                "waiting for your opponent to join again on port {port} (the same "
                "invite; Ctrl-C to stop)...",
                port=invite.port,
            ),
            file=info,
            flush=True,
        )

    def remember_port(invite: Invite) -> None:
        port[0] = invite.port
        (on_invite if not record.played else on_invite_again)(invite)

    async def main(stop: trio.Event) -> int:
        while True:
            try:
                outcome = await host_game(
                    strategy,
                    identity=ident.key,
                    settings=replace(
                        _game_settings(args, ruleset, name),
                        series=record.series(),
                        played=record.followed(),
                    ),
                    listen=Listen(
                        bind=args.bind,
                        port=port[0],
                        advertise=args.advertise,
                        relay=relay,
                        portmap=not args.no_portmap,
                        announce=not args.no_announce,
                        capacity=capacity,
                        allow=allow,
                        public=args.public,
                    ),
                    storage=Storage(
                        out_dir=args.out,
                        meta={**_meta(args, name, ident), **_match_meta(record, args)},
                    ),
                    report=Reporting(
                        on_invite=remember_port,
                        on_event=hook,
                        on_notice=on_notice,
                        on_outcome=on_outcome,
                        on_path=on_path,
                    ),
                    stop=stop,
                    forever=args.forever,
                    players=players,
                )
            except ConnectError as exc:
                print(f"truc-p2p host: {exc}", file=sys.stderr)
                return 4
            except OSError as exc:
                print(
                    "truc-p2p host: "
                    + _(
                        "cannot listen on {where} port {port}: {reason}",
                        where=args.bind or _("all interfaces"),
                        port=port[0],
                        reason=exc.strerror or exc,
                    ),
                    file=sys.stderr,
                )
                return 2
            if args.forever:
                await show_web_result(strategy, outcome)
                return 0 if stop.is_set() else exit_status(outcome, stop)
            if not await _after_game(strategy, outcome, record, args, stop):
                return exit_status(outcome, stop)

    return run_until_interrupted(
        with_web(args, strategy, with_terminal(strategy, main)), confirm=_asks_to_leave(strategy)
    )


def _host_again(args: argparse.Namespace, ident: Identity) -> int | None:
    """An unfinished game of this host: resumed when the opponent may still wait for
    it (written within the grace), else the command that resumes it, in one line."""
    recent = None
    if not args.forever:
        recent = find_unfinished(args.out, role="host", identity=ident.path, within=args.grace)
    if recent is not None:
        return _come_back(args, recent)
    older = find_unfinished(args.out, role="host", identity=ident.path)
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


def _game_settings(args: argparse.Namespace, ruleset: Ruleset, name: str) -> GameSettings:
    """The game and its clocks, as the command line gives them (a joiner: with what
    the invite says the host plays, :func:`_adopt_host_settings`)."""
    return GameSettings(
        ruleset=ruleset,
        name=name,
        audit=getattr(args, "host_audit", None) or "game",
        deck=getattr(args, "host_deck", None) or "v2",
        pipeline=pipeline_of(args),
        turn_timeout=args.timeout,
        hello_timeout=args.hello_timeout,
        grace=args.grace,
    )


def _meta(args: argparse.Namespace, name: str, ident: Identity) -> dict[str, Any]:
    """What ``truc-p2p resume`` needs to continue this game (no secrets)."""
    return {
        "name": name,
        "ruleset": {
            "target": args.target,
            "ladder": args.ladder,
            "rest_refused": args.rest_refused,
        },
        "audit": getattr(args, "host_audit", None) or "game",
        "identity": str(ident.path.resolve()) if ident.path is not None else None,
        "bind": getattr(args, "bind", None),
        "timeout": args.timeout,
        "grace": getattr(args, "grace", DEFAULT_GRACE),
        "hello_timeout": getattr(args, "hello_timeout", DEFAULT_HELLO_TIMEOUT),
    }


#: How a peer was reached (``on_path``'s path).
_PATHS = {"direct": N_("direct"), "punched": N_("punched"), "relayed": N_("relayed")}


def _path_word(path: str) -> str:
    return _(_PATHS[path]) if path in _PATHS else path


def _path_line(path: str, peer: str) -> str:
    """The host's line on a new connection."""
    return _("connection from {peer} ({path} path)", peer=peer, path=_path_word(path))


def _connected_line(path: str, *, again: bool) -> str:
    """The joiner's line on its (re)connection."""
    if again:
        return _("reconnected ({path} path)", path=_path_word(path))
    return _("connected ({path} path)", path=_path_word(path))


def _pick_lan_game(args: argparse.Namespace) -> Invite | int:
    """List the LAN's games on stderr and read the chosen number from stdin."""
    out = sys.stderr
    print(
        _("looking for games on this LAN ({seconds} s)...", seconds=f"{args.wait:g}"),
        file=out,
        flush=True,
    )
    games = trio.run(find_games, args.wait)
    if not games:
        print("truc-p2p join: " + _("no game found on this LAN; ask for an invite"), file=out)
        return 4
    for i, game in enumerate(games, 1):
        print(f"{i}. {describe(game)}", file=out)
    if args.pick is not None:
        line = str(args.pick)
    else:
        print(_("which game (1-{last})? ", last=len(games)), end="", file=out, flush=True)
        line = sys.stdin.readline().strip()
    if not line.isdigit() or not 1 <= int(line) <= len(games):
        print("\ntruc-p2p join: " + _("no game picked ({line})", line=repr(line)), file=out)
        return 2
    return games[int(line) - 1].invite


def _pick_relay_game(args: argparse.Namespace) -> Invite | int:
    """The game picked from the lobby of ``--relay``: on the terminal, or with
    ``--web`` (and no ``--pick``) on the lobby page."""
    from truc_p2p.cli._lobby import adopt_listing, parse_relay, pick_relay_game

    try:
        relay = parse_relay(args.relay)
    except InviteError as exc:
        print(f"truc-p2p join: {exc}", file=sys.stderr)
        return 2
    if getattr(args, "web", False) and args.pick is None and not getattr(args, "bot", None):
        from truc_p2p.cli._lobby_web import pick_on_page

        picked = pick_on_page(args, relay)
    else:
        picked = pick_relay_game(args, relay)
    if isinstance(picked, int):
        return picked
    adopt_listing(args, picked)
    return picked.invite


#: setting key -> (the join option that sets it, its dest)
_JOIN_OPTIONS = {
    "target": ("--target", "target"),
    "ladder": ("--ladder", "ladder"),
    "rest": ("--rest-refused", "rest_refused"),
    "pipeline": ("--no-pipeline", "no_pipeline"),
}


def _adopt_host_settings(args: argparse.Namespace, invite: Invite) -> str | None:
    """Play what the invite says the host plays (connect.md 1.1): each setting the
    user gave no option for is taken from the invite.  Returns the one line to print
    (then exit 2, before any connection) when a given option conflicts, else None."""
    host = invite.settings
    if host.empty:
        return None  # an older host's invite: a mismatch shows only in its hello
    given = explicit_options(args)
    if host.match is not None:  # the host's match length (wire.md 4.1)
        if "match" in given and args.match != host.match:
            return "truc-p2p join: " + match_differs(_("the host"), host.match)
        args.match = host.match
    mine = HostSettings(
        target=args.target if "target" in given else None,
        ladder=args.ladder if "ladder" in given else None,
        rest=args.rest_refused if "rest_refused" in given else None,
        pipeline=False if "no_pipeline" in given else None,
    )
    clashes = host.conflicts(mine)
    if clashes:
        fixes = []
        for key in clashes:
            option = _JOIN_OPTIONS[key][0]
            if key == "pipeline":
                fixes.append(_("leave out {option}", option=option))
            else:
                fixes.append(
                    _(
                        "use {option} {value} or leave the option out",
                        option=option,
                        value=host.fields()[key],
                    )
                )
        return "truc-p2p join: " + _(
            "the host plays {settings}; {fixes}.",
            settings=settings_words(host),
            fixes="; ".join(fixes),
        )
    if host.target is not None:
        args.target = host.target
    if host.ladder is not None:
        args.ladder = host.ladder
    if host.rest is not None:
        args.rest_refused = host.rest
    if host.pipeline is False:
        args.no_pipeline = True
    args.host_audit, args.host_deck = host.audit, host.deck
    return None


def _join(args: argparse.Namespace, record: MatchRecord | None = None) -> int:
    if args.invite is not None and args.relay is not None:
        print(
            "truc-p2p join: "
            + _(
                "an invite names its own relay; --relay is for picking a game "
                "from a relay's lobby without one"
            ),
            file=sys.stderr,
        )
        return 2
    if args.pick is not None and args.invite is not None:
        print(
            "truc-p2p join: " + _("--pick takes a game from a list: give no invite"),
            file=sys.stderr,
        )
        return 2
    if args.relay is not None:
        picked = _pick_relay_game(args)
        if isinstance(picked, int):
            return picked
        invite = picked
    elif args.invite is None:
        picked = _pick_lan_game(args)
        if isinstance(picked, int):
            return picked
        invite = picked
    else:
        try:
            invite = Invite.parse(args.invite)
        except InviteError as exc:
            print("truc-p2p join: " + _("bad invite: {reason}", reason=exc), file=sys.stderr)
            return 2
    clash = _adopt_host_settings(args, invite)
    if clash is not None:
        print(clash, file=sys.stderr)
        return 2
    out_problem = check_out_dir(args.out, args.command)
    if out_problem is not None:
        return out_problem
    setup = _setup(args, fallback="guest")
    if isinstance(setup, int):
        return setup
    ruleset, ident, name = setup
    if invite.fingerprint == ident.fingerprint:
        print(
            "truc-p2p join: "
            + _(
                "this invite carries your own key; to play yourself on one "
                "machine give one side another key with --identity FILE"
            ),
            file=sys.stderr,
        )
        return 2
    if record is None:  # the same join again after a crash: that game goes on
        unfinished = find_unfinished(
            args.out, role="join", identity=ident.path, host_fingerprint=invite.fingerprint
        )
        if unfinished is not None and (back := _come_back(args, unfinished)) is not None:
            return back
    ascii = use_ascii(args.ascii)
    strategy, hook = _player(args, name, ascii)
    print(
        _(
            "joining {invite} as {name}; the host must present key {fingerprint}…",
            invite=invite,
            name=name,
            fingerprint=invite.fingerprint[:16],
        ),
        file=_info_stream(args),
        flush=True,
    )
    if not invite.settings.empty:
        print(
            _("the host plays {settings}", settings=settings_words(invite.settings)),
            file=_info_stream(args),
            flush=True,
        )

    connections = [0]

    def on_path(path: str, peer: str) -> None:
        again = connections[0] > 0
        connections[0] += 1
        print(_connected_line(path, again=again), file=_info_stream(args), flush=True)

    if record is None:
        record = MatchRecord(games=args.match, folder=Path(args.out))

    async def one_game(stop: trio.Event) -> GameOutcome:
        """Join (again): after a game the host may still be deciding, or not yet
        listening again, so a refused connection is retried for a while."""
        waited = 0.0
        while True:
            outcome = await join_game(
                invite,
                strategy,
                identity=ident.key,
                settings=replace(_game_settings(args, ruleset, name), series=record.series()),
                dial=Dial(connect_timeout=args.connect_timeout),
                storage=Storage(
                    out_dir=args.out, meta={**_meta(args, name, ident), **_match_meta(record, args)}
                ),
                report=Reporting(on_event=hook, on_path=on_path),
                stop=stop,
            )
            if not record.played or outcome.end is not End.CONNECTION_FAILED:
                return outcome
            if waited == 0.0:
                print(
                    _("waiting for the host to start the next game (Ctrl-C to stop)..."),
                    file=_info_stream(args),
                    flush=True,
                )
            if waited >= args.again_wait or stop.is_set():
                return GameOutcome.told(
                    outcome.end,
                    "no-next-game",
                    {"kind": outcome.kind, "facts": outcome.facts},
                    me=outcome.me,
                )
            await trio.sleep(0.5)
            waited += 0.5

    async def main(stop: trio.Event) -> int:
        while True:
            outcome = await one_game(stop)
            again = await _after_game(strategy, outcome, record, args, stop)
            if outcome.kind == "refused-busy":  # what to run: once, after the reason
                hint = busy_hint(
                    args.out,
                    identity=ident.path,
                    host_fingerprint=invite.fingerprint,
                    command=_join_command(args, invite),
                )
                print(hint, file=sys.stderr, flush=True)
            if not again:
                return exit_status(outcome, stop)

    return run_until_interrupted(
        with_web(args, strategy, with_terminal(strategy, main)), confirm=_asks_to_leave(strategy)
    )


def _join_command(args: argparse.Namespace, invite: Invite) -> str:
    """The command line of this join, to type again."""
    argv = [str(a) for a in getattr(args, "argv", [])]
    if not argv:
        argv = ["join", str(invite)]
    return "truc-p2p " + " ".join(shlex.quote(a) for a in argv)


def _play(
    args: argparse.Namespace,
    record: MatchRecord | None = None,
    keys: tuple[Identity, Ed25519PrivateKey] | None = None,
) -> int:
    """``keys``: the player's and the bot's keys of a match resumed after a crash."""
    out_problem = check_out_dir(args.out, "play")
    if out_problem is not None:
        return out_problem
    try:
        ruleset = ruleset_from_args(args)
    except (RulesError, ValueError) as exc:
        print("truc-p2p play: " + _("bad ruleset option: {reason}", reason=exc), file=sys.stderr)
        return 2
    try:
        if keys is not None:
            ident = keys[0]
        else:
            ident = load_identity(args.identity) if args.identity else Identity.ephemeral()
    except IdentityError as exc:
        print(f"truc-p2p play: {identity_error_text(exc)}", file=sys.stderr)
        return 2
    name = args.name or default_name("you")
    if record is None and keys is None:  # the same play again after a crash
        unfinished = find_unfinished(args.out, role="play", bot=args.bot, name=name)
        if unfinished is not None and (back := _come_back(args, unfinished)) is not None:
            return back
    ascii = use_ascii(args.ascii)
    out = _info_stream(args)
    human = web_player(args, name) or TerminalPlayer(
        StdinLines(),
        name,
        ascii=ascii,
        out=out,
        echo=not _stdin_is_tty(),
        move_seconds=args.timeout,
        verbose=getattr(args, "verbose", False),
    )
    if args.verbose:
        print(
            _(
                "{name}, you play the {bot} bot through the full protocol over a loopback "
                "TCP connection.",
                name=name,
                bot=args.bot,
            ),
            file=out,
            flush=True,
        )

    if record is None:
        record = MatchRecord(games=args.match, folder=Path(args.out))
    # the same bot across the games of a match
    bot_key = keys[1] if keys is not None else Identity.ephemeral().key

    # --web: the page may choose the bot's level, first and for each rematch
    ask_level = bot_level(args, human, resumed=bool(record.played))
    # one bot object per level through the games: a rematch meets a bot that
    # remembers how this player played (the strongest level reads it)
    bots: dict[str, Bot] = {}

    def the_bot() -> Bot:
        bot = bots.get(args.bot)
        if bot is None:
            bot = bots[args.bot] = make_bot(args.bot, args.seed)
        return bot

    async def one_game(stop: trio.Event) -> GameOutcome | int:
        bot_name = bot_player_name(args.bot)
        path = transcript_path(args.out, f"play-{name}")
        series = record.series()
        try:
            (path.parent / BOT_DIR).mkdir(exist_ok=True)
            mine = prepare_game(
                identity=ident.key,
                role=Player.P0,
                transcript=path,
                ruleset=ruleset,
                name=name,
                pipeline=pipeline_of(args),
                series=series,
            )
            theirs = prepare_game(
                identity=bot_key,
                role=Player.P1,
                transcript=_opponent_path(path),
                ruleset=ruleset,
                name=bot_name,
                pipeline=pipeline_of(args),
                series=series,
            )
            # What `truc-p2p resume` needs to rebuild both sides after a crash.
            own_key = ident.path
            if own_key is None:
                own_key = path.parent / BOT_DIR / (path.name + ".key")
                write_private_file(own_key, _raw_key(ident.key))
            write_private_file(_opponent_key_path(path), _raw_key(bot_key))
            write_meta(
                path,
                {
                    **_meta(args, name, Identity(ident.key, own_key)),
                    "role": "play",
                    "bot": args.bot,
                    "seed": args.seed,
                    "bot_name": bot_name,
                    **_match_meta(record, args),
                },
            )
        except OSError as exc:
            print(
                "truc-p2p play: "
                + _("cannot write the transcript: {reason}", reason=exc.strerror or exc),
                file=sys.stderr,
            )
            return 1
        outcome = await _play_locally(
            mine.session,
            theirs.session,
            human,
            BotStrategy(the_bot()),
            bot_timeout=args.timeout,
            stop=stop,
            syncs=(mine.sync, theirs.sync),
        )
        mine.close()
        theirs.close()
        return replace(outcome, transcript=mine.transcript)

    async def main(stop: trio.Event) -> int:
        if ask_level and not await ask_bot_level(args, human, stop):
            return 130 if stop.is_set() and not _left(human) else 1
        while True:
            outcome = await one_game(stop)
            if isinstance(outcome, int):
                return outcome
            if not await _after_game(human, outcome, record, args, stop):
                return exit_status(outcome, stop)
            if isinstance(human, WebPlayer) and human.level is not None:
                args.bot = human.level  # the end screen's choice for the rematch

    return run_until_interrupted(
        with_web(args, human, with_terminal(human, main)), confirm=_asks_to_leave(human)
    )


def _left(player: object) -> bool:
    """Whether the player left from the web page (not Ctrl-C)."""
    leave = getattr(player, "leave", None)
    return isinstance(leave, trio.Event) and leave.is_set()


#: The subfolder where ``play`` keeps the bot's side of each game (its transcript,
#: secret and key) and the player's own throwaway key: what ``resume`` needs, out of
#: the player's sight.
BOT_DIR = ".bot"


def _opponent_path(transcript: Path) -> Path:
    """Where ``play`` keeps the bot's own transcript; games from before the
    subfolder kept it beside the player's, and still resume from there."""
    old = transcript.with_name(transcript.name + ".opponent")
    if old.exists():
        return old
    return transcript.parent / BOT_DIR / (transcript.name + ".opponent")


def _opponent_key_path(transcript: Path) -> Path:
    old = transcript.with_name(transcript.name + ".opponent.key")
    if old.exists():
        return old
    return transcript.parent / BOT_DIR / (transcript.name + ".opponent.key")


def _raw_key(key: Ed25519PrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()
    )


async def _play_locally(
    mine: Session,
    theirs: Session,
    human: Strategy,
    bot: Strategy,
    *,
    bot_timeout: float,
    stop: trio.Event,
    syncs: tuple[Callable[[], object], Callable[[], object]],
    resuming: bool = False,
) -> GameOutcome:
    """The player (P0) against the bot (P1) over loopback TCP, both sides in this process."""
    outcome: GameOutcome | None = None
    hook = human if callable(human) else None
    async with serve_game(bind="127.0.0.1", port=0) as listener, trio.open_nursery() as nursery:

        async def bot_side() -> None:
            async with await listener.accept() as stream:
                await play_game(
                    stream,
                    theirs,
                    bot,
                    turn_timeout=bot_timeout,
                    resuming=False if resuming else None,
                    before_send=syncs[1],
                )

        nursery.start_soon(bot_side)
        try:
            async with open_game("127.0.0.1", listener.port) as stream:
                outcome = await play_game(
                    stream,
                    mine,
                    human,
                    turn_timeout=DEFAULT_BOT_TIMEOUT,
                    expected_fingerprint=theirs.fingerprint,
                    on_event=hook,
                    stop=stop,
                    resuming=True if resuming else None,
                    before_send=syncs[0],
                )
        finally:
            nursery.cancel_scope.deadline = trio.current_time() + 5
    assert outcome is not None
    return outcome


def _resume_play(args: argparse.Namespace, path: Path, meta: dict[str, Any]) -> int:
    """Both sides of a ``play`` game died with the process: rebuild both and go on."""
    try:
        ruleset = Ruleset.from_dict(meta["ruleset"])
        ident = load_identity(meta["identity"])
        bot_ident = load_identity(_opponent_key_path(path))
        mine = restore_game(
            path,
            identity=ident.key,
            ruleset=ruleset,
            name=str(meta["name"]),
            audit=str(meta["audit"]),
            role=Player.P0,
        )
        theirs = restore_game(
            _opponent_path(path),
            identity=bot_ident.key,
            ruleset=ruleset,
            name=str(meta["bot_name"]),
            audit=str(meta["audit"]),
            role=Player.P1,
        )
    except (OSError, ValueError, KeyError, TypeError, IdentityError) as exc:
        why = identity_error_text(exc) if isinstance(exc, IdentityError) else exc
        print(
            "truc-p2p resume: " + _("cannot continue {path}: {reason}", path=path, reason=why),
            file=sys.stderr,
        )
        return 2
    out = _info_stream(args)
    if not (mine.session.resumable and theirs.session.resumable):
        print(
            "truc-p2p resume: " + _("nothing to resume: the game of {path} is over", path=path),
            file=sys.stderr,
        )
        return 1
    ascii = use_ascii(args.ascii)
    name = str(meta["name"])
    human = web_player(args, name) or TerminalPlayer(
        StdinLines(),
        name,
        ascii=ascii,
        out=out,
        echo=not _stdin_is_tty(),
        move_seconds=float(meta.get("timeout", DEFAULT_TURN_TIMEOUT)),
        verbose=getattr(args, "verbose", False),
    )
    print(
        _("{name}, your game against the {bot} bot goes on.", name=name, bot=meta["bot"]),
        file=out,
        flush=True,
    )

    async def main(stop: trio.Event) -> int:
        outcome = await _play_locally(
            mine.session,
            theirs.session,
            human,
            BotStrategy(make_bot(str(meta["bot"]), meta.get("seed"))),
            bot_timeout=float(meta.get("timeout", DEFAULT_TURN_TIMEOUT)),
            stop=stop,
            syncs=(mine.writer.sync, theirs.writer.sync),
            resuming=True,
        )
        mine.writer.close()
        theirs.writer.close()
        outcome = replace(outcome, transcript=path)
        if record is not None:  # inside a match: count this game, then maybe go on
            goes_on.append(await _after_game(human, outcome, record, args, stop, ask=False))
            return exit_status(outcome, stop)
        await show_web_result(human, outcome)
        print_outcome(outcome, as_json=args.json, quiet=args.quiet)
        return exit_status(outcome, stop)

    record = _stored_match(meta, path)
    _match_so_far(human, record, Player.P0)
    goes_on: list[bool] = []
    status = run_until_interrupted(
        with_web(args, human, with_terminal(human, main)), confirm=_asks_to_leave(human)
    )
    if record is None or not goes_on or not goes_on[0]:
        return status
    return _go_on_with_match(meta, record, port=None, keys=(ident, bot_ident.key))


def _stored_match(meta: dict[str, Any], path: Path) -> MatchRecord | None:
    """The match a resumed game belongs to, as stored beside it (``None``: no match)."""
    if not isinstance(meta.get("match"), dict):
        return None
    try:
        return MatchRecord.from_json(meta["match"], folder=path.parent)
    except ValueError as exc:
        print(
            "truc-p2p resume: " + _("{reason}; the match does not go on", reason=exc),
            file=sys.stderr,
        )
        return None


def _match_so_far(player: object, record: MatchRecord | None, me: Player) -> None:
    """A resumed game of a match: the screen shows the match score before it, as the
    game started (``new_game`` with the match line)."""
    if record is None or not record.is_match or not record.played or not record.players:
        return
    names = {p: record.players[p]["name"] for p in Player}
    line = _match_words(me, names, record)
    new_game = getattr(player, "new_game", None)
    if new_game is not None:
        new_game(line)
    if isinstance(player, TerminalPlayer):
        player.show_match(line)


def _match_meta(record: MatchRecord, args: argparse.Namespace) -> dict[str, Any]:
    """What ``resume`` needs to go on with a match after the game it resumes: the
    match so far and the command line that started it."""
    if not record.is_match:
        return {}
    return {"match": record.to_json(), "argv": list(getattr(args, "argv", []))}


async def _after_game(
    player: object,
    outcome: GameOutcome,
    record: MatchRecord,
    args: argparse.Namespace,
    stop: trio.Event,
    *,
    ask: bool = True,
) -> bool:
    """Show the end of a game, count it in the match, and say whether another game
    follows: the next game of a match not yet won, or a rematch the player asks for
    (``y``/Enter at the terminal, "play again" on the web table; only when ``ask``)."""
    await show_web_result(player, outcome)
    print_outcome(outcome, as_json=args.json, quiet=args.quiet)
    if not outcome.complete or stop.is_set() or outcome.game_id is None:
        return False
    if outcome.end in (End.QUIT, End.RESIGNED):  # we left: no "play again?", match or not
        return False
    me = outcome.me
    linked = await trio.to_thread.run_sync(_linked_game, outcome)
    if linked is None:
        print("truc-p2p: " + _("this game cannot be linked to another"), file=sys.stderr)
        return False
    record.add(**linked)
    names = {p: record.players[p]["name"] for p in Player}
    voice = Voice({me: _("you"), me.other: names[me.other] or _("opponent")}, me)
    match_line = None
    if record.is_match:
        try:
            where = record.write()
        except OSError as exc:
            print(
                "truc-p2p: " + _("cannot write the match record: {reason}", reason=exc),
                file=sys.stderr,
            )
            where = None
        match_line = voice.match_score(record.wins, games=record.games)
        winner = record.winner
        shown = voice.match_won(winner, record.wins) if winner is not None else match_line
        show = getattr(player, "show_match", None)
        if show is not None:
            show(shown, lambda: _match_words(me, names, record))
        if not args.json:
            if not isinstance(player, TerminalPlayer):
                print(shown, flush=True)
            if where is not None and winner is not None:
                print(_("match record: {path}", path=where), flush=True)
                print(
                    _("verify it with: {command}", command=f"truc-p2p verify --match {where}"),
                    flush=True,
                )
        if winner is not None:
            return False
        # the web end screen stays until "next game" (the terminal goes straight on)
        if isinstance(player, WebPlayer) and not await player.ask_again(next_game=True):
            return False
    else:
        if outcome.end is End.OPPONENT_RESIGNED:
            return False  # a resignation leaves the table: nobody to play again with
        asking = getattr(player, "ask_again", None)
        if not ask or asking is None or not await asking():
            return False
    new_game = getattr(player, "new_game", None)
    if new_game is not None:
        new_game(match_line)
    return True


def match_differs(host: str, games: int) -> str:
    """The one sentence a joiner gets when it asked for another match length than
    the host's ``games`` (1: a single game): what the host plays and what to type."""
    if games == 1:
        return _("{host} plays a single game: join without --match", host=host)
    return _("{host} plays a match of {n} games: join with --match {n}", host=host, n=games)


def settings_words(settings: HostSettings) -> str:
    """A host's settings in words, in the language in use (``HostSettings.describe()``
    in English); option values stay the command line's words."""
    parts = []
    if settings.target is not None:
        parts.append(_("to {target}", target=settings.target))
    if settings.ladder is not None:
        parts.append(_("ladder {ladder}", ladder=settings.ladder))
    if settings.rest is not None:
        parts.append(_("refused rest: {rest}", rest=settings.rest))
    if settings.audit is not None:
        parts.append(_("audit {audit}", audit=settings.audit))
    if settings.deck is not None:
        if settings.pipeline is None:
            parts.append(_("deck {deck}", deck=settings.deck))
        elif settings.pipeline:
            parts.append(_("deck {deck} pipelined", deck=settings.deck))
        else:
            parts.append(_("deck {deck} classic", deck=settings.deck))
    elif settings.pipeline is not None:
        parts.append(_("pipelined deal") if settings.pipeline else _("classic deal"))
    if settings.match is not None and settings.match > 1:
        parts.append(_("match of {n} games", n=settings.match))
    return ", ".join(parts)


def _match_words(me: Player, names: dict[Player, Any], record: MatchRecord) -> str:
    """The match line of the end screen, in the language in use."""
    voice = Voice({me: _("you"), me.other: names[me.other] or _("opponent")}, me)
    if record.winner is not None:
        return voice.match_won(record.winner, record.wins)
    return voice.match_score(record.wins, games=record.games)


def _linked_game(outcome: GameOutcome) -> dict[str, Any] | None:
    """What a match record keeps of a finished game, from its transcript when there is
    one (a resumed game's outcome may not know who dealt first), else the outcome."""
    path = outcome.transcript
    if path is not None:
        try:
            report = verify_transcript(read_transcript(path))
        except (OSError, ValueError):
            return None
        if report.game_id is None or report.first_dealer is None or len(report.players) != 2:
            return None
        return {
            "game_id": bytes.fromhex(report.game_id),
            "first_dealer": Player(report.first_dealer),
            "winner": Player(report.winner) if report.winner is not None else None,
            "transcript": path,
            "names": (report.players[0].name, report.players[1].name),
            "fingerprints": (report.players[0].fingerprint, report.players[1].fingerprint),
        }
    if outcome.first_dealer is None or outcome.game_id is None:
        return None
    if outcome.fingerprint is None or outcome.peer_fingerprint is None:
        return None
    me = outcome.me
    fps = {me: outcome.fingerprint, me.other: outcome.peer_fingerprint}
    names = {p: outcome.names[p] or "" for p in Player}
    return {
        "game_id": outcome.game_id,
        "first_dealer": outcome.first_dealer,
        "winner": outcome.winner,
        "transcript": None,
        "names": (names[Player.P0], names[Player.P1]),
        "fingerprints": (fps[Player.P0], fps[Player.P1]),
    }


#: What ``_resume(..., fallback=True)`` returns when the game cannot go on (the host
#: no longer has it, the opponent never came back): the command starts a new game.
GONE = -1
#: The endings of a resume that leave room for a new game.
_GONE_KINDS = frozenset({"refused-unknown-game", "opponent-gone", "nothing-to-resume-ended"})


def _come_back(args: argparse.Namespace, path: Path) -> int | None:
    """``join``/``play``/``host`` run again with an unfinished game: resume it, saying
    so in one line; ``None`` when it cannot go on and a new game should start."""
    print(
        _(
            "your game {path} did not finish: resuming it ({command})",
            path=path,
            command=resume_command(path),
        ),
        file=_info_stream(args),
        flush=True,
    )
    args.transcript = str(path)
    status = _resume(args, fallback=True)
    if status != GONE:
        return status
    print(
        _("{path} cannot go on; starting a new game instead", path=path),
        file=_info_stream(args),
        flush=True,
    )
    return None


def _resume(args: argparse.Namespace, *, fallback: bool = False) -> int:
    path = Path(args.transcript)
    if not path.is_file():
        print("truc-p2p resume: " + _("no transcript at {path}", path=path), file=sys.stderr)
        return 2
    try:
        meta = read_meta(path)
        if meta.get("role") == "play":
            return _resume_play(args, path, meta)
        role = {"host": Player.P1, "join": Player.P0}[meta["role"]]
        ruleset = Ruleset.from_dict(meta["ruleset"])
        name, audit = str(meta["name"]), str(meta["audit"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        print(
            "truc-p2p resume: "
            + _(
                "cannot read the game settings stored beside {path} ({meta}): {reason}",
                path=path,
                meta=f"{path.name}.meta.json",
                reason=exc,
            ),
            file=sys.stderr,
        )
        return 2
    if meta.get("identity") is None:
        print(
            "truc-p2p resume: " + _("this game used a one-off key; it cannot be resumed"),
            file=sys.stderr,
        )
        return 2
    try:
        ident = load_identity(meta["identity"])
    except IdentityError as exc:
        print(f"truc-p2p resume: {identity_error_text(exc)}", file=sys.stderr)
        return 2
    try:
        restored = restore_game(
            path, identity=ident.key, ruleset=ruleset, name=name, audit=audit, role=role, meta=meta
        )
    except (OSError, ValueError) as exc:
        print(
            "truc-p2p resume: " + _("cannot continue {path}: {reason}", path=path, reason=exc),
            file=sys.stderr,
        )
        return 2 if isinstance(exc, OSError) else 1
    except LocalProtocolError as exc:  # another key or a damaged secret beside it
        print(
            "truc-p2p resume: "
            + _(
                "cannot continue {path}: its key or its secret file does not match the "
                "transcript ({reason})",
                path=path,
                reason=exc,
            ),
            file=sys.stderr,
        )
        return 2
    info = _info_stream(args)
    if restored.torn_bytes:
        print(
            ngettext(  # the same English for both: tests and scripts read "byte(s)"
                "repaired {path}: dropped {n} torn byte(s) at its end (a message cut by the "
                "crash; the opponent sends it again)",
                "repaired {path}: dropped {n} torn byte(s) at its end (a message cut by the "
                "crash; the opponent sends it again)",
                restored.torn_bytes,
                path=path,
            ),
            file=info,
        )
    invite = Invite.parse(meta["invite"]) if role is Player.P0 else None
    try:
        clocks = GameSettings(
            turn_timeout=float(meta.get("timeout", DEFAULT_TURN_TIMEOUT)),
            hello_timeout=float(meta.get("hello_timeout", DEFAULT_HELLO_TIMEOUT)),
            grace=float(meta.get("grace", DEFAULT_GRACE)),
        )
    except (TypeError, ValueError) as exc:
        restored.writer.close()
        print(
            "truc-p2p resume: " + _("bad settings beside {path}: {reason}", path=path, reason=exc),
            file=sys.stderr,
        )
        return 2
    args.timeout = clocks.turn_timeout  # the screen's clock, as the game was started
    strategy, hook = _player(args, name, use_ascii(args.ascii))
    grace = clocks.grace
    relay: tuple[str, int] | None = None
    claim: bytes | None = None
    if invite is None and meta.get("relay") is not None:
        try:
            relay = (str(meta["relay"][0]), int(meta["relay"][1]))
            claim = relay_claim(ident.key, bytes.fromhex(str(meta["relay_nonce"])))
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            print(
                "truc-p2p resume: "
                + _("bad relay settings beside {path}: {reason}", path=path, reason=exc),
                file=sys.stderr,
            )
            return 2
        print(
            _(
                "registering with the relay {relay} again (code {code}, the invite's)",
                relay=f"{relay[0]}:{relay[1]}",
                code=meta.get("relay_code", "?"),
            ),
            file=info,
        )

    def on_listening(port: int) -> None:
        print(
            _(
                "listening again on port {port}; waiting up to {seconds} s for the opponent "
                "to reconnect...",
                port=port,
                seconds=f"{grace:g}",
            ),
            file=info,
            flush=True,
        )

    def on_notice(text: str) -> None:
        print(notice_text(text), file=sys.stderr, flush=True)

    if invite is not None:
        print(
            _(
                "redialling {address} to resume the game...",
                address=f"{invite.host}:{invite.port}",
            ),
            file=info,
        )

    async def main(stop: trio.Event) -> int:
        try:
            outcome = await resume_game(
                restored,
                strategy,
                identity=ident.key,
                listen=Listen(bind=meta.get("bind"), port=int(meta["port"]), relay=relay)
                if invite is None
                else None,
                invite=invite,
                settings=clocks,
                report=Reporting(on_event=hook, on_notice=on_notice, on_listening=on_listening),
                stop=stop,
                claim=claim,
            )
        except OSError as exc:
            print(
                "truc-p2p resume: "
                + _("cannot listen again: {reason}", reason=exc.strerror or exc),
                file=sys.stderr,
            )
            return 2
        if fallback and outcome.kind in _GONE_KINDS and not stop.is_set():
            gone.append(True)  # the command goes on with a new game
            print_outcome(outcome, as_json=False, quiet=True)
            return 1
        if record is not None:  # inside a match: count this game, then maybe go on
            outcome = replace(outcome, transcript=outcome.transcript or path)
            goes_on.append(await _after_game(strategy, outcome, record, args, stop, ask=False))
        else:
            await show_web_result(strategy, outcome)
            print_outcome(outcome, as_json=args.json, quiet=args.quiet)
        return exit_status(outcome, stop)

    record = _stored_match(meta, path)
    _match_so_far(strategy, record, role)
    goes_on: list[bool] = []
    gone: list[bool] = []
    status = run_until_interrupted(
        with_web(args, strategy, with_terminal(strategy, main)), confirm=_asks_to_leave(strategy)
    )
    if gone:
        return GONE
    if record is None or not goes_on or not goes_on[0]:
        return status
    return _go_on_with_match(meta, record, port=meta.get("port"))


def _go_on_with_match(
    meta: dict[str, Any],
    record: MatchRecord,
    *,
    port: object,
    keys: tuple[Identity, Ed25519PrivateKey] | None = None,
) -> int:
    """After ``resume`` finished a game of a match: the next games, as the command
    that started the match would have played them (the host on the same port)."""
    from truc_p2p.cli import build_parser

    argv = meta.get("argv")
    if not isinstance(argv, list) or not argv or argv[0] not in ("host", "join", "play"):
        print("truc-p2p resume: " + _("the match's command line is not stored; it stops here"))
        return 1
    args = build_parser(argv[0]).parse_args([str(a) for a in argv])
    args.argv = argv
    if args.command == "host" and isinstance(port, int):
        args.port = port
    left = record.games - len(record.played)
    print(
        ngettext(
            "the match goes on: {n} game at most to play",
            "the match goes on: {n} games at most to play",
            left,
        )
    )
    if args.command == "play":
        return _play(args, record, keys)
    return _host(args, record) if args.command == "host" else _join(args, record)
