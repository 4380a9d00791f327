"""``truc-p2p lobby RELAY``: the open games listed on a relay, and the picking
``join --relay RELAY`` does without an invite (``connect.md`` §2.2).

Every listing is checked here (the host's signature over what it listed and
its relay code) before a person sees it; one that fails is dropped with a
note on stderr.  A picked listing becomes an :class:`~truc_p2p.net.Invite`,
so the join pins the listed key exactly as an invite would.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Any, TextIO

import trio

from truc_p2p.cli._common import positive_seconds
from truc_p2p.cli._lobby_words import describe_game, lobby_filter
from truc_p2p.cli._nostr_lobby import nostr_lobby

if TYPE_CHECKING:
    from truc_p2p.cli._game_args import GameOptions
from truc_p2p.cli._parser import COMMAND_HELP
from truc_p2p.i18n import _
from truc_p2p.net import (
    DEFAULT_RELAY_PORT,
    InviteError,
    ListingError,
    LobbyAnswer,
    LobbyGame,
    fetch_lobby,
    fetch_lobby_answer,
)
from truc_p2p.net._invite import host_port, parse_host_port
from truc_p2p.net._relay_wire import RelayProtocolError

__all__ = [
    "adopt_listing",
    "fetch_lobby_for_page",
    "lobby_json",
    "parse_relay",
    "pick_relay_game",
    "register",
]


#: What asking a relay may raise: unreachable, silent, or answering nonsense.
_UNREACHABLE = (OSError, trio.TooSlowError, RelayProtocolError)


def register(subparsers: Any) -> None:
    lobby = subparsers.add_parser(
        "lobby",
        help=_(COMMAND_HELP["lobby"]),
        description=_(
            "Ask the relay RELAY (HOST[:PORT], a truc-p2p relay) for the games "
            "listed with host --relay RELAY --public: name, key fingerprint, rules, deck, "
            "match length and how long the host has waited. Each listing is signed by its "
            "host; one the relay altered is dropped with a note. Join one with "
            "truc-p2p join --relay RELAY."
        ),
    )
    lobby.add_argument(
        "relay",
        metavar="RELAY",
        nargs="?",
        default=None,
        help=_("HOST[:PORT] (port {port})", port=DEFAULT_RELAY_PORT),
    )
    lobby.add_argument(
        "--nostr",
        action="append",
        default=None,
        metavar="URL",
        help=_(
            "ask this Nostr relay (ws:// or wss://; repeatable) instead: the games of "
            "every relay that answers, merged"
        ),
    )
    lobby.add_argument("--json", action="store_true", help=_("print one JSON object"))
    lobby.add_argument(
        "--name",
        dest="name_filter",  # not a player's --name: empty is fine, no length rule
        default="",
        metavar="TEXT",
        help=_("only games whose name contains TEXT (any case)"),
    )
    lobby.add_argument(
        "--fingerprint",
        default="",
        metavar="HEX",
        help=_("only games whose host key fingerprint starts with HEX"),
    )
    lobby.add_argument(
        "--timeout", type=positive_seconds, default=10.0, metavar="S", help=_("default 10")
    )
    lobby.set_defaults(func=_lobby)


def parse_relay(text: str) -> tuple[str, int]:
    """``HOST[:PORT]`` (IPv6 in brackets) as (host, port); :class:`InviteError` if bad."""
    text = text.strip()
    if (text.startswith("[") and text.endswith("]")) or (":" not in text):
        text = f"{text}:{DEFAULT_RELAY_PORT}"
    return parse_host_port(text, what="relay")


def lobby_json(
    relay: tuple[str, int],
    games: list[LobbyGame],
    notes: list[str],
    answer: LobbyAnswer | None = None,
) -> dict[str, Any]:
    """``lobby --json``; with the relay's ``answer``, also how many listings it holds,
    how many match the filter and how many it showed (connect.md 2.2)."""
    out: dict[str, Any] = {
        "relay": host_port(*relay),
        "games": [g.to_json() for g in games],
        "dropped": notes,
    }
    if answer is not None:
        out["listings_held"] = answer.held
        out["listings_matching"] = answer.matching
        out["listings_shown"] = answer.shown
    return out


def fetch(
    relay: tuple[str, int], timeout: float, command: str, out: TextIO
) -> list[LobbyGame] | None:
    """The verified games (notes for dropped ones to ``out``), or ``None`` after one
    line on ``out`` when the relay cannot be asked."""
    try:
        games, notes = trio.run(_fetch, relay, timeout)
    except _UNREACHABLE as exc:
        reason = "no answer in time" if isinstance(exc, trio.TooSlowError) else str(exc)
        print(
            _(
                "truc-p2p {command}: cannot reach the relay {relay}: {reason}",
                command=command,
                relay=host_port(*relay),
                reason=reason or type(exc).__name__,
            ),
            file=out,
        )
        return None
    for note in notes:
        print(_("truc-p2p {command}: {note}", command=command, note=note), file=out)
    return games


async def fetch_lobby_for_page(
    relay: tuple[str, int], timeout: float
) -> tuple[list[LobbyGame], list[str], str | None]:
    """Like :func:`fetch` inside trio, for the lobby page: games, notes, and the one
    line saying why the relay could not be asked (``None`` when it answered)."""
    try:
        games, notes = await fetch_lobby(relay, timeout=timeout)
    except _UNREACHABLE as exc:
        reason = "no answer in time" if isinstance(exc, trio.TooSlowError) else str(exc)
        return (
            [],
            [],
            _(
                "cannot reach the relay {relay}: {reason}",
                relay=host_port(*relay),
                reason=reason or type(exc).__name__,
            ),
        )
    return games, notes, None


async def _fetch(relay: tuple[str, int], timeout: float) -> tuple[list[LobbyGame], list[str]]:
    return await fetch_lobby(relay, timeout=timeout)


def _lobby(args: argparse.Namespace) -> int:
    if args.nostr and args.relay is not None:
        print("truc-p2p lobby: " + _("name a RELAY or --nostr URL"), file=sys.stderr)
        return 2
    if args.nostr:
        return nostr_lobby(args)
    if args.relay is None:
        print("truc-p2p lobby: " + _("name a RELAY or --nostr URL"), file=sys.stderr)
        return 2
    try:
        relay = parse_relay(args.relay)
    except InviteError as exc:
        print(f"truc-p2p lobby: {exc}", file=sys.stderr)  # the invite parser's words
        return 2
    try:
        wanted = lobby_filter(args.name_filter, args.fingerprint)
    except ListingError as exc:
        print(f"truc-p2p lobby: {exc}", file=sys.stderr)
        return 2
    try:
        answer = trio.run(partial(fetch_lobby_answer, relay, timeout=args.timeout, wanted=wanted))
    except _UNREACHABLE as exc:
        reason = "no answer in time" if isinstance(exc, trio.TooSlowError) else str(exc)
        if args.json:
            print(json.dumps({**lobby_json(relay, [], []), "error": reason}), flush=True)
        else:
            print(
                _(
                    "truc-p2p {command}: cannot reach the relay {relay}: {reason}",
                    command="lobby",
                    relay=host_port(*relay),
                    reason=reason or type(exc).__name__,
                ),
                file=sys.stderr,
            )
        return 4
    if args.json:
        print(json.dumps(lobby_json(relay, answer.games, answer.notes, answer)), flush=True)
        return 0
    for note in answer.notes:
        print(_("truc-p2p {command}: {note}", command="lobby", note=note), file=sys.stderr)
    if answer.matching > answer.shown:
        print(
            _(
                "the relay holds {held} games and showed {shown}: "
                "narrow them with --name or --fingerprint",
                held=answer.matching,
                shown=answer.shown,
            ),
            file=sys.stderr,
        )
    found = answer.games
    if not found:
        print(_("no open game at the relay {relay}", relay=args.relay), file=sys.stderr)
        return 1
    for i, game in enumerate(found, 1):
        print(f"{i}. {describe_game(game)}")
    # the list is out before the hint, which goes to stderr (a script reads only the list)
    sys.stdout.flush()
    print(_("join one with: truc-p2p join --relay {relay}", relay=args.relay), file=sys.stderr)
    return 0


def adopt_listing(opts: GameOptions, game: LobbyGame) -> GameOptions:
    """Play the picked game by its listed rules and deal (the host refuses others)."""
    f = game.listing.fields
    rules = opts.rules
    return replace(
        opts,
        rules=replace(
            rules,
            target=int(f["target"]) if f.get("target", "").isdigit() else rules.target,
            ladder=f.get("ladder", rules.ladder),
            rest_refused=f.get("rest", rules.rest_refused),
            no_pipeline=f["pipeline"] == "0" if "pipeline" in f else rules.no_pipeline,
        ),
    )
    # the match length travels in the invite (game.invite.settings.match), which
    # the join adopts like an invite's, checking it against an explicit --match


def pick_relay_game(opts: GameOptions, relay: tuple[str, int]) -> LobbyGame | int:
    """``join --relay R`` without an invite: list the lobby on stderr and take the game
    numbered ``--pick N`` or read from stdin; the game, or an exit status."""
    out = sys.stderr
    games = fetch(relay, opts.clocks.connect_timeout, "join", out)
    if games is None:
        return 4
    if not games:
        print(
            _("truc-p2p join: no open game at the relay {relay}", relay=opts.network.relay),
            file=out,
        )
        return 4
    for i, game in enumerate(games, 1):
        print(f"{i}. {describe_game(game)}", file=out)
    if opts.network.pick is not None:
        line = str(opts.network.pick)
    else:
        print(_("which game (1-{n})? ", n=len(games)), end="", file=out, flush=True)
        line = sys.stdin.readline().strip()
    if not line.isdigit() or not 1 <= int(line) <= len(games):
        print(_("truc-p2p join: no game picked ({line})", line=repr(line)), file=out)
        return 2
    return games[int(line) - 1]
