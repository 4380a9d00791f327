"""``truc-p2p join``: reach a host (invite, LAN pick or relay lobby) and play."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any, TextIO

import trio

from truc_p2p.cli._after import after_game
from truc_p2p.cli._comeback import busy_hint, find_unfinished, games_folders
from truc_p2p.cli._common import bounded_int, positive_seconds
from truc_p2p.cli._game_args import REMATCH_WAIT, GameOptions
from truc_p2p.cli._hosts import describe
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
from truc_p2p.cli._path_words import connected_line, tries_line
from truc_p2p.cli._settings_words import match_differs, settings_words
from truc_p2p.i18n import _
from truc_p2p.net import (
    Dial,
    End,
    GameOutcome,
    HostSettings,
    Invite,
    InviteError,
    LobbyGame,
    Reporting,
    TurnServer,
    find_games,
    join_game,
)
from truc_p2p.ui import fit_for, notice_text

__all__ = ["register"]


def register(subparsers: Any, *, come_back: ComeBack) -> None:
    """``join``; ``come_back``: the road of an unfinished game of this player's."""
    join = subparsers.add_parser(
        "join",
        help=_(COMMAND_HELP["join"]),
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
        "--nostr",
        action="append",
        default=None,
        metavar="URL",
        help=_("without an invite: pick a game listed on this Nostr relay (repeatable)"),
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
        help=_("without an invite: listen S seconds for LAN games (default 2 seconds)"),
    )
    join.add_argument(
        "--connect-timeout",
        type=positive_seconds,
        default=15.0,
        metavar="S",
        help=_("seconds to reach the host before giving up (default 15 seconds)"),
    )
    join.add_argument(
        "--again-wait",
        type=positive_seconds,
        default=REMATCH_WAIT,
        metavar="S",
        help=_(
            "after a game you want to play again (or inside a match): how long to wait "
            "for the host to listen again (default {default} seconds)",
            default=f"{REMATCH_WAIT:g}",
        ),
    )
    join.add_argument(
        "--rematches",
        type=bounded_int(0, 999),
        default=0,
        metavar="N",
        help=_(
            "with --bot: after a single game, play again up to N times, each time the "
            "host plays again, as a person answering y would (default 0: one game)"
        ),
    )
    add_turn_args(
        join,
        _(
            "offer the host a path through your own TURN server (RFC 6062 over TCP, e.g. "
            "coturn), for when neither side's NAT can be punched"
        ),
    )
    network_command(join, partial(_join, come_back=come_back))


def _pick_lan_game(opts: GameOptions) -> Invite | int:
    """List the LAN's games on stderr and read the chosen number from stdin."""
    out = sys.stderr
    print(
        _("looking for games on this LAN ({seconds} s)...", seconds=f"{opts.clocks.wait:g}"),
        file=out,
        flush=True,
    )
    games = trio.run(find_games, opts.clocks.wait)
    if not games:
        print("truc-p2p join: " + _("no game found on this LAN; ask for an invite"), file=out)
        return 4
    for i, game in enumerate(games, 1):
        print(f"{i}. {describe(game)}", file=out)
    if opts.network.pick is not None:
        line = str(opts.network.pick)
    else:
        print(_("which game (1-{last})? ", last=len(games)), end="", file=out, flush=True)
        line = sys.stdin.readline().strip()
    if not line.isdigit() or not 1 <= int(line) <= len(games):
        print("\ntruc-p2p join: " + _("no game picked ({line})", line=repr(line)), file=out)
        return 2
    return games[int(line) - 1].invite


def _pick_relay_game(opts: GameOptions) -> LobbyGame | int:
    """The game picked from the lobby of ``--relay``: on the terminal, or with
    ``--web`` (and no ``--pick``) on the lobby page."""
    from truc_p2p.cli._lobby import parse_relay, pick_relay_game

    assert opts.network.relay is not None  # join --relay
    try:
        relay = parse_relay(opts.network.relay)
    except InviteError as exc:
        print(f"truc-p2p join: {exc}", file=sys.stderr)
        return 2
    if opts.screen.web and opts.network.pick is None and not opts.who.bot:
        from truc_p2p.cli._lobby_web import pick_on_page

        picked = pick_on_page(opts, relay)
    else:
        picked = pick_relay_game(opts, relay)
    return picked


#: setting key -> (the join option that sets it, its dest)
_JOIN_OPTIONS = {
    "target": ("--target", "target"),
    "ladder": ("--ladder", "ladder"),
    "rest": ("--rest-refused", "rest_refused"),
    "pipeline": ("--no-pipeline", "no_pipeline"),
}


def _adopt_host_settings(opts: GameOptions, invite: Invite) -> GameOptions | str:
    """Play what the invite says the host plays (connect.md 1.1): each setting the
    user gave no option for is taken from the invite.  Returns the options to play
    with, or the one line to print (then exit 2, before any connection) when a given
    option conflicts."""
    host = invite.settings
    if host.empty:
        return opts  # an older host's invite: a mismatch shows only in its hello
    given = opts.rules.given
    if host.match is not None:  # the host's match length (wire.md 4.1)
        if "match" in given and opts.rules.match != host.match:
            return "truc-p2p join: " + match_differs(_("the host"), host.match)
        opts = replace(opts, rules=replace(opts.rules, match=host.match))
    mine = HostSettings(
        target=opts.rules.target if "target" in given else None,
        ladder=opts.rules.ladder if "ladder" in given else None,
        rest=opts.rules.rest_refused if "rest_refused" in given else None,
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
            # the options' own words: the fixes name --ladder even, --rest-refused value
            settings=settings_words(host, verbose=True),
            fixes="; ".join(fixes),
        )
    rules = opts.rules
    return replace(
        opts,
        rules=replace(
            rules,
            target=rules.target if host.target is None else host.target,
            ladder=rules.ladder if host.ladder is None else host.ladder,
            rest_refused=rules.rest_refused if host.rest is None else host.rest,
            no_pipeline=True if host.pipeline is False else rules.no_pipeline,
            host_audit=host.audit,
            host_deck=host.deck,
        ),
    )


def _say_joining(invite: Invite, name: str, info: TextIO, *, verbose: bool = False) -> None:
    """The joiner's first lines: whom it joins, as whom, and what the host plays
    (at a terminal or with ``$COLUMNS``, wrapped between words)."""
    line = _(
        "joining {invite} as {name}; the host must present key {fingerprint}…",
        invite=invite,
        name=name,
        fingerprint=invite.fingerprint[:16],
    )
    print(fit_for(line, info), file=info, flush=True)
    if not invite.settings.empty:
        line = _(
            "the host plays {settings}",
            settings=settings_words(invite.settings, verbose=verbose),
        )
        print(fit_for(line, info), file=info, flush=True)


def _invite_of(opts: GameOptions) -> tuple[Invite, GameOptions] | int:
    """The invite to join (given, picked on the LAN or from a relay's lobby) and the
    options to play it with (the host's settings adopted); an exit status if none."""
    if opts.network.invite is not None and opts.network.relay is not None:
        print(
            "truc-p2p join: "
            + _(
                "an invite names its own relay; --relay is for picking a game "
                "from a relay's lobby without one"
            ),
            file=sys.stderr,
        )
        return 2
    if opts.network.pick is not None and opts.network.invite is not None:
        print(
            "truc-p2p join: " + _("--pick takes a game from a list: give no invite"),
            file=sys.stderr,
        )
        return 2
    if opts.network.nostr and (opts.network.invite is not None or opts.network.relay is not None):
        print(
            "truc-p2p join: " + _("--nostr picks a game from a list: give no invite or --relay"),
            file=sys.stderr,
        )
        return 2
    if opts.network.relay is not None or opts.network.nostr:
        from truc_p2p.cli._lobby import adopt_listing
        from truc_p2p.cli._nostr_lobby import pick_nostr_game

        listed = pick_nostr_game(opts) if opts.network.nostr else _pick_relay_game(opts)
        if isinstance(listed, int):
            return listed
        opts = adopt_listing(opts, listed)
        invite = listed.invite
    elif opts.network.invite is None:
        picked = _pick_lan_game(opts)
        if isinstance(picked, int):
            return picked
        invite = picked
    else:
        try:
            invite = Invite.parse(opts.network.invite)
        except InviteError as exc:
            print("truc-p2p join: " + _("bad invite: {reason}", reason=exc), file=sys.stderr)
            return 2
    adopted = _adopt_host_settings(opts, invite)
    if isinstance(adopted, str):
        print(adopted, file=sys.stderr)
        return 2
    opts = adopted
    return invite, opts


class JoinRoad(Road):
    """``join``: the settings from the invite (given, picked on the LAN or from a
    relay's lobby); the connection: dial the host, again for each next game."""

    fallback = "guest"

    def __init__(self) -> None:
        self.invite = Invite("127.0.0.1", 1, "0" * 64)
        self.connections = 0
        self.rematches = 0  # the rematches a bot asked for (--rematches)
        self.turn: TurnServer | None = None  # --turn: the joiner's own TURN server

    def settle(self, opts: GameOptions) -> GameOptions | int:
        turn = turn_server_of(opts, "join")
        if isinstance(turn, int):
            return turn
        self.turn = turn
        chosen = _invite_of(opts)
        if isinstance(chosen, int):
            return chosen
        self.invite, opts = chosen
        return opts

    def seat(self, opts: GameOptions) -> Seat | int:
        seat = super().seat(opts)
        if not isinstance(seat, int) and self.invite.fingerprint == seat.ident.fingerprint:
            print(
                "truc-p2p join: "
                + _(
                    "this invite carries your own key; to play yourself on one "
                    "machine give one side another key with --identity FILE"
                ),
                file=sys.stderr,
            )
            return 2
        return seat

    def unfinished(self, opts: GameOptions, seat: Seat) -> Path | None:
        return find_unfinished(
            games_folders(opts),
            role="join",
            identity=seat.ident.path,
            host_fingerprint=self.invite.fingerprint,
        )

    def before(self, table: Table) -> int | None:
        opts = table.opts
        _say_joining(self.invite, table.seat.name, opts.screen.info, verbose=opts.screen.verbose)
        return None

    def _on_path(self, opts: GameOptions) -> Callable[[str, str], None]:
        def on_path(path: str, peer: str) -> None:
            again = self.connections > 0
            self.connections += 1
            print(
                fit_for(connected_line(path, again=again), opts.screen.info),
                file=opts.screen.info,
                flush=True,
            )

        return on_path

    async def game(self, table: Table, stop: trio.Event) -> GameOutcome:
        """Join (again): after a game the host may still be deciding, or not yet
        listening again, so a refused connection is retried for a while."""
        opts, record = table.opts, table.record
        waited = 0.0
        self.connections = 0  # the next game of a match is connected, not reconnected
        while True:
            outcome = await join_game(
                self.invite,
                table.player,
                identity=table.seat.ident.key,
                settings=table.settings(),
                dial=Dial(connect_timeout=opts.clocks.connect_timeout, turn=self.turn),
                storage=table.storage(),
                report=Reporting(
                    on_event=table.hook,
                    on_path=self._on_path(opts),
                    on_tries=lambda tries: print(
                        fit_for(tries_line([t.as_json() for t in tries]), opts.screen.info),
                        file=opts.screen.info,
                        flush=True,
                    ),
                    on_notice=lambda text: print(notice_text(text), file=sys.stderr, flush=True),
                ),
                stop=stop,
            )
            if not record.played or outcome.end is not End.CONNECTION_FAILED:
                return outcome
            if waited == 0.0:
                print(
                    _("waiting for the host to start the next game (Ctrl-C to stop)..."),
                    file=opts.screen.info,
                    flush=True,
                )
            if waited >= opts.clocks.again_wait or stop.is_set():
                return GameOutcome.told(
                    outcome.end,
                    "no-next-game",
                    {"kind": outcome.kind, "facts": outcome.facts},
                    me=outcome.me,
                )
            await trio.sleep(0.5)
            waited += 0.5

    async def after(self, table: Table, outcome: GameOutcome, stop: trio.Event) -> bool:
        # a bot has nobody to say y: it says it for each rematch --rematches allows
        # (the host, a person or --forever, decides whether it plays again)
        opts = table.opts
        bot_again = bool(opts.who.bot) and self.rematches < opts.network.rematches
        again = await after_game(
            table.player, outcome, table.record, opts, stop, bot_again=bot_again
        )
        if again and bot_again and not table.record.is_match:
            self.rematches += 1
        if outcome.kind == "refused-busy":  # what to run: once, after the reason
            hint = busy_hint(
                games_folders(table.opts),
                identity=table.seat.ident.path,
                host_fingerprint=self.invite.fingerprint,
                command=_join_command(table.opts, self.invite),
            )
            print(hint, file=sys.stderr, flush=True)
        return again


def _join(opts: GameOptions, *, come_back: ComeBack) -> int:
    return run_game(opts, JoinRoad(), come_back=come_back)


def _join_command(opts: GameOptions, invite: Invite) -> str:
    """The command line of this join, to type again."""
    argv = [str(a) for a in opts.argv]
    if not argv:
        argv = ["join", str(invite)]
    return "truc-p2p " + " ".join(shlex.quote(a) for a in argv)
