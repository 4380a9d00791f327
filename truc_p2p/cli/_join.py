"""``truc-p2p join``: reach a host (invite, LAN pick or relay lobby) and play."""

from __future__ import annotations

import argparse
import shlex
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import trio

from truc_p2p.cli._comeback import busy_hint, find_unfinished
from truc_p2p.cli._common import (
    check_out_dir,
    exit_status,
    explicit_options,
    positive_seconds,
    run_until_interrupted,
    use_ascii,
)
from truc_p2p.cli._game_args import REMATCH_WAIT, _common_args, _network_args
from truc_p2p.cli._hosts import describe
from truc_p2p.cli._identity import add_identity_arg
from truc_p2p.cli._lifecycle import (
    _after_game,
    _asks_to_leave,
    _connected_line,
    _game_settings,
    _info_stream,
    _match_meta,
    _meta,
    _player,
    _setup,
    match_differs,
    settings_words,
)
from truc_p2p.cli._resume import _come_back
from truc_p2p.history._match import MatchRecord
from truc_p2p.net import (
    Dial,
    End,
    GameOutcome,
    HostSettings,
    Invite,
    InviteError,
    Reporting,
    Storage,
    find_games,
    join_game,
)
from truc_p2p.ui._i18n import _
from truc_p2p.ui._tui import with_terminal
from truc_p2p.ui._web import (
    add_web_args,
    with_web,
)

__all__ = ["register"]


def register(subparsers: Any) -> None:
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
