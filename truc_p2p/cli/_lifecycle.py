"""One lifecycle for every game command.

As crash-only software does it, starting a game is resuming one whose transcript
is empty: ``host``, ``join``, ``play`` and ``resume`` (and a rematch, the next game
of a match, a lobby join) all go through :func:`run_game`.  A :class:`Road` says
only where the settings come from (the options, the invite or the lobby's
listing, the transcript) and how the connection is made; the lifecycle does the
rest, once for every road:

1. the road's settings (:meth:`Road.settle`), the out-dir, the player's name and
   key (:meth:`Road.seat`);
2. the come-back check: an unfinished game of this player (:meth:`Road.unfinished`)
   takes the come-back road instead (:data:`ComeBack`, ``resume``'s road, passed in
   by the command), and a new game starts when it cannot go on;
3. the screen (a bot, the web table or the terminal), made and attached at once,
   run under :func:`~._run.run_until_interrupted` with Ctrl-C handled;
4. game after game (:meth:`Road.game`), each one's end and whether another follows
   (:meth:`Road.after`: the match, a rematch);
5. the road after this one (:meth:`Road.then`: a resumed game's match goes on with
   the command that started it).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import trio

from truc_p2p.bots import make_bot
from truc_p2p.cli._after import after_game, left_the_page, match_meta, tell_match_cost
from truc_p2p.cli._comeback import resume_command
from truc_p2p.cli._common import (
    check_out_dir,
    keep_name,
    ruleset_from_args,
    saved_name,
    saved_name_path,
    use_ascii,
    your_name,
)
from truc_p2p.cli._game_args import (
    GameOptions,
    _common_args,
    _network_args,
    group_options,
    with_options,
)
from truc_p2p.cli._identity import add_identity_arg, identity_error_text
from truc_p2p.cli._resume_lines import going_on_elsewhere
from truc_p2p.cli._run import exit_status, run_until_interrupted
from truc_p2p.cli._web import add_web_args, web_player, with_web
from truc_p2p.history import MatchRecord
from truc_p2p.i18n import _
from truc_p2p.identity import Identity, IdentityError, load_or_create_identity
from truc_p2p.net import (
    DEFAULT_AWAY_BUDGET,
    BotStrategy,
    EventHook,
    GameOutcome,
    GameSettings,
    Storage,
    Strategy,
    TurnServer,
    parse_turn_url,
)
from truc_p2p.net import Clocks as GameClocks
from truc_p2p.protocol import Series, SessionOptions
from truc_p2p.rules import RulesError, Ruleset
from truc_p2p.ui import (
    Clocks,
    Narrator,
    StdinLines,
    TerminalPlayer,
    WebPlayer,
    fit_for,
    with_terminal,
)

if TYPE_CHECKING:
    from truc_p2p.crypto import SigningKey

__all__ = ["GONE", "Road", "Seat", "Table", "asks_for_name", "network_command", "run_game"]


@dataclass(frozen=True)
class Seat:
    """Who plays a road's games: the rules, the player's key and name."""

    ruleset: Ruleset
    ident: Identity
    name: str


@dataclass
class Table:
    """What the lifecycle set up for a road's games: the options (a web page may
    change the bot between games), who plays, the screen and the match so far."""

    opts: GameOptions
    seat: Seat
    player: Strategy
    hook: EventHook | None
    record: MatchRecord

    def settings(self) -> GameSettings:
        """The next game's settings: the options' and the match's so far."""
        seat = self.seat
        return game_settings(self.opts, seat.ruleset, seat.name, self.record.series())

    def storage(self) -> Storage:
        """Where the next game's transcript goes, with what a resume needs beside it."""
        opts, seat = self.opts, self.seat
        meta = {**_meta(opts, self.settings(), seat.ident), **match_meta(self.record, opts)}
        return Storage(out_dir=opts.out, meta=meta)


#: The road after a road's games: the options, the road and the match so far.
Next = tuple[GameOptions, "Road", MatchRecord]

#: The come-back road: given the options of ``resume FILE`` for an unfinished game,
#: its road (an exit status and one line: it cannot be read).  ``resume`` makes it;
#: ``host``, ``join`` and ``play`` pass it into :func:`run_game`, so the lifecycle
#: imports no command.
ComeBack = Callable[[GameOptions], "Road | int"]

#: The next games of a match that a resumed game finished: the options and the road
#: of the command line that started the match (``host``, ``join`` or ``play``; the
#: keys of a ``play`` match: the player's and the bot's).  Passed into ``resume``.
NextGames = Callable[
    [Sequence[str], "tuple[Identity, SigningKey] | None"], "tuple[GameOptions, Road]"
]

#: What a come-back's resume returns when the game cannot go on (the host no longer
#: has it, the opponent never came back): the command starts a new game.
GONE = -1


class Road:
    """Where a game's settings come from and how its connection is made; every
    method but :meth:`game` has the plain command's default."""

    #: The name when none is given or kept (``your_name``'s fallback).
    fallback = "host"

    def settle(self, opts: GameOptions) -> GameOptions | int:
        """The options to play with (a joiner: what the invite says the host plays),
        checked; an exit status and one line when they cannot be."""
        return opts

    def out_dir(self, opts: GameOptions) -> str | None:
        """Where the transcripts go, checked before anything happens."""
        return opts.out

    def seat(self, opts: GameOptions) -> Seat | int:
        return _setup(opts, fallback=self.fallback)

    def unfinished(self, opts: GameOptions, seat: Seat) -> Path | None:
        """The unfinished game of this player that this command should resume."""
        return None

    def screen(self, opts: GameOptions, seat: Seat) -> tuple[Strategy, EventHook | None]:
        return _player(opts, seat.name, use_ascii(opts.screen.ascii))

    def record(self, opts: GameOptions) -> MatchRecord:
        """The match the first game starts (a single game: a match of one)."""
        return MatchRecord(games=opts.rules.match, folder=Path(opts.out))

    def before(self, table: Table) -> int | None:
        """The lines before the games (an exit status: they cannot start)."""
        return None

    async def game(self, table: Table, stop: trio.Event) -> GameOutcome | int:
        """One game on this road (an exit status: it could not be played)."""
        raise NotImplementedError

    async def after(self, table: Table, outcome: GameOutcome, stop: trio.Event) -> bool:
        """The end of a game; whether another one follows on the same screen."""
        return await after_game(table.player, outcome, table.record, table.opts, stop)

    def then(self, table: Table) -> Next | int | None:
        """The road after this one's games (an exit status: it cannot go on)."""
        return None


def network_command(parser: argparse.ArgumentParser, run: Callable[[GameOptions], int]) -> None:
    """What ``host`` and ``join`` take after their own options (the key, the game,
    its clocks, the web table), grouped for ``--help``, and the command to run."""
    add_identity_arg(parser)
    _common_args(parser)
    _network_args(parser)
    add_web_args(parser)
    group_options(parser)
    parser.set_defaults(func=with_options(run))


def run_game(
    opts: GameOptions,
    road: Road,
    record: MatchRecord | None = None,
    *,
    come_back: ComeBack | None = None,
) -> int:
    """Play ``road``'s games (``record``: a match going on), then the roads after it;
    the exit status of the last one.  ``come_back``: the road of this player's
    unfinished game, which goes on instead of a new one (the same command run again
    after a crash)."""
    while True:
        status, following = _drive(opts, road, record, come_back)
        if following is None:
            return status
        if isinstance(following, int):
            return following
        opts, road, record = following


def _drive(
    opts: GameOptions, road: Road, record: MatchRecord | None, come_back: ComeBack | None
) -> tuple[int, Next | int | None]:
    """One road, steps 1 to 4 of the lifecycle; its exit status and what follows."""
    settled = road.settle(opts)
    if isinstance(settled, int):
        return settled, None
    opts = settled
    out_dir = road.out_dir(opts)
    problem = None if out_dir is None else check_out_dir(out_dir, opts.command)
    if problem is not None:
        return problem, None
    seat = road.seat(opts)
    if isinstance(seat, int):
        return seat, None
    if record is None and come_back is not None:  # the same command again after a crash
        path = road.unfinished(opts, seat)
        if path is not None and (back := _come_back(opts, path, come_back)) is not None:
            return back, None
    player, hook = road.screen(opts, seat)
    table = Table(opts, seat, player, hook, road.record(opts) if record is None else record)
    tell_match_cost(player, table.record)
    problem = road.before(table)
    if problem is not None:
        return problem, None

    async def main(stop: trio.Event) -> int:
        while True:
            outcome = await _one_game(road, table, stop)
            if isinstance(outcome, int):
                return outcome
            if not await road.after(table, outcome, stop):
                return exit_status(outcome, stop)

    status = run_until_interrupted(
        with_web(opts.command, opts.screen, player, with_terminal(player, main)),
        confirm=_asks_to_leave(player),
        match_cost=_match_cost(player),
    )
    return status, None if status == GONE else road.then(table)


async def _one_game(road: Road, table: Table, stop: trio.Event) -> GameOutcome | int:
    """One game of the road; conceding it between turns (at the terminal or on the
    web table) stops this game only (the match goes on), as ``stop`` stops them all."""
    player = table.player
    if not isinstance(player, TerminalPlayer | WebPlayer):
        return await road.game(table, stop)
    if _asks_name_on_page(table) and not await _name_from_page(table, stop):
        return 130 if stop.is_set() and not left_the_page(player) else 1
    game_stop = player.conceding = trio.Event()

    async def forward(event: trio.Event) -> None:
        await event.wait()
        game_stop.set()

    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(forward, stop)
            outcome = await road.game(table, game_stop)
            nursery.cancel_scope.cancel()
    finally:
        player.conceding = None
    return outcome


def _asks_name_on_page(table: Table) -> bool:
    """``host --web`` and ``join --web`` on a first game: the page asks the player's
    name, as the terminal does (``play --web`` asks it with the bot's level)."""
    player, opts = table.player, table.opts
    return (
        isinstance(player, WebPlayer)
        and opts.command in ("host", "join")
        and not opts.who.name
        and player.name_given is None
        and not table.record.played
        and saved_name() is None
        and saved_name_path() is not None
    )


async def _name_from_page(table: Table, stop: trio.Event) -> bool:
    """The start panel with the name field only; the name typed (else the one filled
    in) is kept for the next games; ``False`` when the player left first."""
    player = table.player
    assert isinstance(player, WebPlayer)
    player.choose_level = False
    player.name_asked = table.seat.name
    try:
        if not await player.ask_level(stop):
            return False
    finally:
        player.name_asked = None
    name = player.name_given = player.name_given or table.seat.name
    keep_name(name)
    table.seat = replace(table.seat, name=name)
    player.my_name = player.model.my_name = name
    return True


def _come_back(opts: GameOptions, path: Path, come_back: ComeBack) -> int | None:
    """``join``/``play``/``host`` run again with an unfinished game: resume it on the
    come-back road, saying so in one line; ``None`` when it cannot go on and a new
    game should start."""
    playing = going_on_elsewhere(path, opts.command)
    if playing is not None:
        return playing
    stream = _info_stream(opts)
    line = _(
        "your game {path} did not finish: resuming it ({command})",
        path=path,
        command=resume_command(path),
    )
    # at a terminal, wrapped at its width between words (a pipe gets the line whole)
    print(fit_for(line, stream), file=stream, flush=True)
    again = _resume_options(opts, path)
    road = come_back(again)
    status = road if isinstance(road, int) else run_game(again, road)
    if status != GONE:
        return status
    print(
        _("{path} cannot go on; starting a new game instead", path=path),
        file=_info_stream(opts),
        flush=True,
    )
    return None


def _resume_options(opts: GameOptions, path: Path) -> GameOptions:
    """The options of ``resume FILE`` that the command run again gives (the screen
    and the bot as asked; the key as the game stored it)."""
    return replace(opts, transcript=str(path), who=replace(opts.who, identity=None))


def _asks_to_leave(player: object) -> Callable[[], bool] | bool:
    """Whether a lone Ctrl-C should only ask (a person at a terminal plays a game; a
    host still waiting for its opponent just stops)."""
    if isinstance(player, TerminalPlayer) and _stdin_is_tty():
        return lambda: player.model.game is not None
    return False


def _match_cost(player: object) -> Callable[[], tuple[str, str] | None] | None:
    """In a match at the terminal: who wins it if the player leaves now, and the games
    score then (said by the Ctrl-C question, as by ``q``'s)."""
    if not isinstance(player, TerminalPlayer):
        return None

    def cost() -> tuple[str, str] | None:
        said = player.match_cost
        return said() if said is not None and player.model.game is not None else None

    return cost


def _stdin_is_tty() -> bool:
    try:
        return os.isatty(sys.stdin.fileno())
    except (OSError, ValueError):
        return False


def asks_for_name(opts: GameOptions) -> bool:
    """Whether a game without ``--name`` may ask for one: a person plays at this
    terminal (no bot, no web page, no JSON), its input and output a terminal."""
    if opts.who.bot or opts.screen.web or opts.screen.json:
        return False
    try:
        return _stdin_is_tty() and os.isatty(sys.stdout.fileno())
    except (OSError, ValueError):
        return False


def _info_stream(opts: GameOptions) -> TextIO:
    return sys.stderr if opts.screen.json else sys.stdout


def _player(
    opts: GameOptions, name: str, ascii: bool, *, away: float | None = DEFAULT_AWAY_BUDGET
) -> tuple[Strategy, EventHook | None]:
    """The screen of a game: ``--bot``'s bot (and its narrator), the web table, or a
    person at the terminal (``away``: how long a network game lets them be away)."""
    out = _info_stream(opts)
    if opts.who.bot:
        bot = BotStrategy(make_bot(opts.who.bot, opts.who.seed))
        quiet = opts.screen.quiet or opts.screen.json
        return bot, None if quiet else Narrator(
            name, ascii=ascii, out=out, verbose=opts.screen.verbose
        )
    web = web_player(
        opts.screen, name, move_seconds=opts.clocks.timeout, match_games=opts.rules.match
    )
    if web is not None:
        return web, web
    human = TerminalPlayer(
        StdinLines(),
        name,
        ascii=ascii,
        out=out,
        echo=not _stdin_is_tty(),
        clocks=Clocks(move_seconds=opts.clocks.timeout, away_seconds=away),
        verbose=opts.screen.verbose,
    )
    return human, human


def _setup(opts: GameOptions, *, fallback: str) -> Seat | int:
    """The ruleset of the options, the player's name and key (created when missing);
    exit status 2 and one line when one is wrong."""
    try:
        ruleset = ruleset_from_args(opts.rules)
    except (RulesError, ValueError) as exc:
        print(
            f"truc-p2p {opts.command}: " + _("bad ruleset option: {reason}", reason=exc),
            file=sys.stderr,
        )
        return 2
    name = opts.who.name or your_name(fallback, ask=asks_for_name(opts))
    if not (1 <= len(name) <= 40 and name.isprintable()):
        print(
            f"truc-p2p {opts.command}: " + _("--name must be 1 to 40 printable characters"),
            file=sys.stderr,
        )
        return 2
    try:
        ident = load_or_create_identity(opts.who.identity)
    except IdentityError as exc:
        print(f"truc-p2p {opts.command}: {identity_error_text(exc)}", file=sys.stderr)
        return 2
    if ident.created and ident.path is not None:
        line = _("created your identity key in {path} (mode 0600)", path=ident.path)
        print(fit_for(line, sys.stderr), file=sys.stderr)
    return Seat(ruleset, ident, name)


def game_settings(
    opts: GameOptions, ruleset: Ruleset, name: str, series: Series | None = None
) -> GameSettings:
    """The game and its clocks, as the command line gives them (a joiner: with what
    the invite says the host plays, :func:`_adopt_host_settings`): the one place the
    options become the settings below the command line."""
    session = SessionOptions(ruleset=ruleset, name=name, pipeline=opts.rules.pipeline)
    if series is not None:
        session = replace(session, series=series)
    if opts.rules.host_audit is not None:
        session = replace(session, audit=opts.rules.host_audit)
    if opts.rules.host_deck is not None:
        session = replace(session, deck=opts.rules.host_deck)
    clocks = GameClocks(
        turn_timeout=opts.clocks.turn_timeout,
        hello_timeout=opts.clocks.hello_timeout,
        grace=opts.clocks.grace,
    )
    return GameSettings(session=session, clocks=clocks)


def _meta(opts: GameOptions, settings: GameSettings, ident: Identity) -> dict[str, Any]:
    """What ``truc-p2p resume`` needs to continue this game (no secrets): the game's
    settings (:meth:`GameSettings.to_json`), who plays it and where it listened."""
    return {
        "settings": settings.to_json(),
        "identity": str(ident.path.resolve()) if ident.path is not None else None,
        "bind": opts.network.bind,
    }


#: The environment variable a TURN password may come from (not the command line,
#: which other users of the machine can read).
TURN_PASSWORD_VARIABLE = "TRUC_P2P_TURN_PASSWORD"


def add_turn_args(parser: argparse.ArgumentParser, help_turn: str) -> None:
    """``--turn turn:HOST:PORT``, ``--turn-user``, ``--turn-password`` (connect.md §11)."""
    parser.add_argument("--turn", default=None, metavar="turn:HOST:PORT", help=help_turn)
    parser.add_argument(
        "--turn-user", default=None, metavar="NAME", help=_("the TURN server's user name")
    )
    parser.add_argument(
        "--turn-password",
        default=None,
        metavar="PASSWORD",
        help=_(
            "the TURN server's password (or set {variable}; never printed)",
            variable=TURN_PASSWORD_VARIABLE,
        ),
    )


def turn_server_of(
    opts: GameOptions, command: str, *, needs_relay: bool = False
) -> TurnServer | int | None:
    """``--turn`` and its credential checked (exit status 2 and one line when wrong);
    ``needs_relay``: the host has no ``--relay``, which ``--turn`` needs."""
    net = opts.network

    def fail(text: str) -> int:
        print(f"truc-p2p {command}: {text}", file=sys.stderr)
        return 2

    if net.turn is None:
        if net.turn_user is not None or net.turn_password is not None:
            return fail(_("--turn-user and --turn-password need --turn"))
        return None
    if needs_relay:
        return fail(_("--turn offers a path through the relay: add --relay HOST:PORT"))
    try:
        host, port = parse_turn_url(net.turn)
    except ValueError as exc:
        return fail(f"--turn: {exc}")
    password = net.turn_password
    if password is None:
        password = os.environ.get(TURN_PASSWORD_VARIABLE)
    if not net.turn_user or not password:
        return fail(
            _(
                "--turn needs --turn-user and a password (--turn-password or {variable})",
                variable=TURN_PASSWORD_VARIABLE,
            )
        )
    try:
        return TurnServer(host, port, net.turn_user, password)
    except ValueError as exc:  # SASLprep refuses the user name or the password
        return fail(str(exc))
