"""``truc-p2p resume``: go on with an unfinished game (and the rest of its match)."""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any, TextIO

import trio

from truc_p2p.bots import make_bot
from truc_p2p.cli._after import after_game, match_so_far, stored_match
from truc_p2p.cli._comeback import (
    OLD_GAMES,
    game_is_over,
    offers_resume,
    opponent_name,
    resume_command,
)
from truc_p2p.cli._common import add_bot_arg, use_ascii
from truc_p2p.cli._game_args import GameOptions, group_options, with_options
from truc_p2p.cli._identity import identity_error_text
from truc_p2p.cli._lifecycle import (
    GONE,
    ComeBack,
    Next,
    NextGames,
    Road,
    Seat,
    Table,
    _player,
    run_game,
)
from truc_p2p.cli._loopback import opponent_key_path, opponent_path, play_locally
from truc_p2p.cli._parser import COMMAND_HELP
from truc_p2p.cli._resume_lines import (
    cannot_continue,
    going_on_elsewhere,
    new_game_command,
    not_its_key,
    nothing_to_resume,
    say_listening,
    say_repaired,
    with_key,
)
from truc_p2p.cli._resume_pick import pick_unfinished
from truc_p2p.cli._run import print_outcome
from truc_p2p.cli._web import add_web_args, show_web_result
from truc_p2p.crypto import SigningKey
from truc_p2p.history import MatchRecord, default_games_folder
from truc_p2p.i18n import _, ngettext
from truc_p2p.identity import Identity, IdentityError, load_identity
from truc_p2p.net import (
    BotStrategy,
    EventHook,
    GameOutcome,
    GameSettings,
    Invite,
    Listen,
    Reporting,
    Restored,
    Strategy,
    host_port,
    read_meta,
    restore_game,
    resume_game,
)
from truc_p2p.protocol import LocalProtocolError
from truc_p2p.rules import Player
from truc_p2p.ui import bot_player_name, notice_text

__all__ = ["come_back_road", "register", "resume_road"]


def register(subparsers: Any, *, next_games: NextGames) -> None:
    """``resume``; ``next_games``: the road of a match's next games after the resumed one."""
    resume = subparsers.add_parser(
        "resume",
        help=_(COMMAND_HELP["resume"]),
        description=_(
            "Continue the game of FILE (a transcript written by host or join) "
            "after a crash, kill -9 or reboot: the settings stored beside it "
            "(FILE.meta.json, FILE.secret) rebuild the session; a joiner redials the host, "
            "a host listens again on the same port so the invite still works. The opponent "
            "must still be waiting (within its --grace). Without FILE, the unfinished game "
            "in the games folder is resumed (of several, you pick one)."
        ),
    )
    resume.add_argument(
        "transcript",
        metavar="FILE",
        nargs="?",
        default=None,
        help=_(
            "the transcript to continue (default: your unfinished game in the games "
            "folder, or a choice when there are several)"
        ),
    )
    add_bot_arg(
        resume,
        default=None,
        help=_("let this bot play for you (default: you play in the terminal)"),
    )
    resume.add_argument(
        "--identity",
        metavar="FILE",
        default=None,
        help=_("the key file the game was played with (default: the one stored beside it)"),
    )
    resume.add_argument("--seed", type=int, default=None, help=_("seed the bot's choices"))
    resume.add_argument(
        "--json", action="store_true", help=_("print the result as one JSON object")
    )
    resume.add_argument("--quiet", action="store_true", help=_("do not narrate a bot's game"))
    resume.add_argument("--ascii", action="store_true", help=_("plain-ASCII cards (7S, not 7♠)"))
    add_web_args(resume)
    group_options(resume)
    resume.set_defaults(func=with_options(partial(_resume, next_games=next_games)))


@dataclass(frozen=True)
class _Stored:
    """What the meta beside a network game says of it: its side and its settings."""

    role: Player
    settings: GameSettings


def _resume(opts: GameOptions, *, next_games: NextGames) -> int:
    road = resume_road(opts, fallback=False, next_games=next_games)
    return road if isinstance(road, int) else run_game(opts, road)


def come_back_road(next_games: NextGames) -> ComeBack:
    """The come-back road that ``host``, ``join`` and ``play`` pass into
    :func:`~._lifecycle.run_game`: the unfinished game goes on, and a new game starts
    when it cannot (:data:`~._lifecycle.GONE`)."""
    return partial(resume_road, fallback=True, next_games=next_games)


def resume_road(opts: GameOptions, *, fallback: bool, next_games: NextGames) -> Road | int:
    """The road of ``opts.transcript``'s game, as stored beside it: both sides rebuilt
    in this process (a ``play`` game) or a network game's side (``fallback``: the
    command run again goes on with a new game when this one cannot, :data:`GONE`)."""
    if opts.transcript is None:
        picked = pick_unfinished(ask=offers_resume(opts))
        if isinstance(picked, int):
            return picked
        opts = replace(opts, transcript=str(picked))
    path = _transcript(opts)
    if path is None:
        print(
            "truc-p2p resume: "
            + _(
                "no transcript at {path}; {command} lists your games",
                path=opts.transcript or "",
                command="truc-p2p games",
            ),
            file=sys.stderr,
        )
        return 2
    if game_is_over(path):
        return nothing_to_resume(path)
    playing = going_on_elsewhere(path)
    if playing is not None:
        return playing
    try:
        meta = read_meta(path)
        if meta.get("role") == "play":
            return _LocalResume(path, meta, next_games)
        role = {"host": Player.P1, "join": Player.P0}[meta["role"]]
        stored = _Stored(role, GameSettings.stored(meta))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        print(
            "truc-p2p resume: "
            + _(
                "cannot read the game settings stored beside {path} ({meta}): {reason}; "
                "see what the game holds with {command}",
                path=path,
                meta=f"{path.name}.meta.json",
                reason=exc,
                command=f"truc-p2p verify {path}",
            ),
            file=sys.stderr,
        )
        return 2
    return _NetworkResume(path, meta, next_games, stored, fallback=fallback)


def _transcript(opts: GameOptions) -> Path | None:
    """The transcript to resume: the path given, else (a bare name) the file of that
    name in the games folder or in the old ``./games`` folder (where games were
    kept before the games folder moved to the data folder)."""
    given = Path(opts.transcript or "")
    if given.is_file():
        return given
    if given.parent != Path(".") or not given.name:
        return None
    for folder in (default_games_folder(), OLD_GAMES):
        if (folder / given.name).is_file():
            return folder / given.name
    return None


class _Resume(Road):
    """A game that goes on from its transcript: the settings from the meta stored
    beside it; after it, a match goes on with the command that started it."""

    def __init__(self, path: Path, meta: dict[str, Any], next_games: NextGames) -> None:
        self.path, self.meta, self.next_games = path, meta, next_games
        self.match: MatchRecord | None = None
        self.goes_on = False

    def out_dir(self, opts: GameOptions) -> str | None:
        return None  # the game goes on where it is

    def record(self, opts: GameOptions) -> MatchRecord:
        return MatchRecord(games=1, folder=self.path.parent)

    def _match_so_far(self, table: Table, me: Player) -> None:
        self.match = stored_match(self.meta, self.path)
        if self.match is not None:
            table.record = self.match
        match_so_far(table.player, self.match, me)

    async def after(self, table: Table, outcome: GameOutcome, stop: trio.Event) -> bool:
        opts = table.opts
        if self.match is not None:  # inside a match: count this game, then maybe go on
            outcome = replace(outcome, transcript=outcome.transcript or self.path)
            self.goes_on = await after_game(
                table.player, outcome, self.match, opts, stop, ask=False
            )
        else:
            await show_web_result(table.player, outcome)
            print_outcome(outcome, as_json=opts.screen.json, quiet=opts.screen.quiet)
        return False

    def then(self, table: Table) -> Next | int | None:
        if self.match is None or not self.goes_on:
            return None
        return self._next_games(self.match)

    def _next_games(self, record: MatchRecord) -> Next | int:
        return _match_road(self.meta, record, self.next_games, port=self.meta.get("port"))


class _NetworkResume(_Resume):
    """A network game: a joiner redials the host, a host listens again on the same
    port (and registers with its relay again) so that the invite still works."""

    def __init__(
        self,
        path: Path,
        meta: dict[str, Any],
        next_games: NextGames,
        stored: _Stored,
        *,
        fallback: bool,
    ) -> None:
        super().__init__(path, meta, next_games)
        self.stored, self.new_game_if_gone = stored, fallback
        self.invite: Invite | None = None
        #: A host that registered with a relay: the relay and the nonce of its claim again.
        self.relay: tuple[str, int] | None = None
        self.relay_nonce: bytes | None = None

    def seat(self, opts: GameOptions) -> Seat | int:
        path, meta = self.path, self.meta
        back = _restore(path, meta, self.stored, identity=opts.who.identity)
        if isinstance(back, int):
            return back
        ident, self.restored = back
        if self.restored.torn_bytes:
            say_repaired(path, self.restored.torn_bytes, opts.screen.info)
        self.invite = Invite.parse(meta["invite"]) if self.stored.role is Player.P0 else None
        session = self.stored.settings.session
        return Seat(session.ruleset, ident, session.name)

    def screen(self, opts: GameOptions, seat: Seat) -> tuple[Strategy, EventHook | None]:
        # the screen's clock, as the game was started
        timed = replace(
            opts, clocks=replace(opts.clocks, timeout=self.stored.settings.clocks.turn_timeout)
        )
        return _player(timed, seat.name, use_ascii(opts.screen.ascii))

    def before(self, table: Table) -> int | None:
        info = table.opts.screen.info
        if self.invite is None and self.meta.get("relay") is not None:
            again = _relay_again(self.meta, table.seat.ident, self.path, info)
            if isinstance(again, int):
                return again
            self.relay, self.relay_nonce = again
        if self.invite is not None:
            print(
                _("redialling {address} to resume the game...", address=self.invite.address),
                file=info,
            )
        self._match_so_far(table, self.stored.role)
        return None

    def _reporting(self, table: Table) -> Reporting:
        info, grace = table.opts.screen.info, self.stored.settings.clocks.grace
        return Reporting(
            on_event=table.hook,
            on_notice=lambda text: print(notice_text(text), file=sys.stderr, flush=True),
            on_listening=lambda port: say_listening(port, grace, info),
        )

    async def game(self, table: Table, stop: trio.Event) -> GameOutcome | int:
        meta = self.meta
        listen = None
        if self.invite is None:
            listen = Listen(
                bind=meta.get("bind"),
                port=int(meta["port"]),
                relay=self.relay,
                relay_nonce=self.relay_nonce,
            )
        first_wait = _stale_wait(self.path, self.stored.settings.clocks.grace)
        if first_wait is not None:
            print(
                _(
                    "this game stopped longer ago than {name} waits for a comeback, so "
                    "{name} has most likely ended it: waiting {wait} s only",
                    name=opponent_name(self.path) or _("your opponent"),
                    wait=round(first_wait),
                ),
                file=table.opts.screen.info,
                flush=True,
            )
        try:
            outcome = await resume_game(
                self.restored,
                table.player,
                identity=table.seat.ident.key,
                listen=listen,
                invite=self.invite,
                report=self._reporting(table),
                stop=stop,
                first_wait=first_wait,
            )
        except OSError as exc:
            print(
                "truc-p2p resume: "
                + _(
                    "cannot listen again: {reason}; once the port is free: {command}",
                    reason=exc.strerror or exc,
                    command=resume_command(self.path),
                ),
                file=sys.stderr,
            )
            return 2
        if self.new_game_if_gone and outcome.kind in _GONE_KINDS and not stop.is_set():
            print_outcome(outcome, as_json=False, quiet=True)
            return GONE  # the command goes on with a new game
        return outcome


#: How much longer than its grace a stopped game may be before ``resume`` takes it as
#: ended by the opponent (which records it abandoned once its grace runs out).
STALE_AFTER = 60.0
#: How long ``resume`` then waits for the opponent (it may have crashed too, and be
#: resuming now), instead of the whole grace.
STALE_WAIT = 20.0


def _stale_wait(path: Path, grace: float) -> float | None:
    """The shorter first wait for a game that stopped long before now (its transcript
    untouched for longer than the opponent waits for a comeback), else ``None``."""
    try:
        age = time.time() - path.stat().st_mtime
    except OSError:
        return None
    return STALE_WAIT if age > grace + STALE_AFTER and grace > STALE_WAIT else None


class _LocalResume(_Resume):
    """A ``play`` game: both sides died with the process; both are rebuilt here."""

    def seat(self, opts: GameOptions) -> Seat | int:
        path, meta = self.path, self.meta
        try:
            settings = self.settings = GameSettings.stored(meta)
            bot = replace(settings, session=replace(settings.session, name=meta["bot_name"]))
            ident = load_identity(opts.who.identity or meta["identity"])
            self.bot_ident = load_identity(opponent_key_path(path))
            self.mine, self.theirs = (
                restore_game(transcript, identity=key, settings=chosen, role=role)
                for transcript, key, chosen, role in (
                    (path, ident.key, settings, Player.P0),
                    (opponent_path(path), self.bot_ident.key, bot, Player.P1),
                )
            )
        except LocalProtocolError as exc:  # another key or a damaged secret beside it
            not_its_key(path, exc)
            return 2
        except (OSError, ValueError, KeyError, TypeError, IdentityError) as exc:
            why = identity_error_text(exc) if isinstance(exc, IdentityError) else exc
            cannot_continue(path, meta, why)
            return 2
        self.ident = ident
        if not (self.mine.session.resumable and self.theirs.session.resumable):
            return nothing_to_resume(path)
        return Seat(settings.session.ruleset, ident, settings.session.name)

    def screen(self, opts: GameOptions, seat: Seat) -> tuple[Strategy, EventHook | None]:
        timed = replace(
            opts,
            who=replace(opts.who, bot=None),
            clocks=replace(opts.clocks, timeout=self._timeout()),
        )
        return _player(timed, seat.name, use_ascii(opts.screen.ascii), away=None)

    def _timeout(self) -> float:
        return self.settings.clocks.turn_timeout

    def before(self, table: Table) -> int | None:
        print(
            _(
                "{name}, your game against {opponent} goes on.",
                name=table.seat.name,
                # the name the bot plays under in this game (its signed hello), not
                # today's language's name for its level
                opponent=str(self.meta.get("bot_name") or bot_player_name(str(self.meta["bot"]))),
            ),
            file=table.opts.screen.info,
            flush=True,
        )
        self._match_so_far(table, Player.P0)
        return None

    async def game(self, table: Table, stop: trio.Event) -> GameOutcome | int:
        mine, theirs = self.mine, self.theirs
        outcome = await play_locally(
            mine.session,
            theirs.session,
            table.player,
            BotStrategy(make_bot(str(self.meta["bot"]), self.meta.get("seed"))),
            bot_timeout=self._timeout(),
            stop=stop,
            syncs=(mine.writer.sync, theirs.writer.sync),
            resuming=True,
        )
        mine.writer.close()
        theirs.writer.close()
        return replace(outcome, transcript=self.path)

    def _next_games(self, record: MatchRecord) -> Next | int:
        keys = (self.ident, self.bot_ident.key)
        return _match_road(self.meta, record, self.next_games, port=None, keys=keys)


#: The endings of a resume that leave room for a new game.
_GONE_KINDS = frozenset({"refused-unknown-game", "opponent-gone", "nothing-to-resume-ended"})


def _restore(
    path: Path, meta: dict[str, Any], stored: _Stored, *, identity: str | None
) -> tuple[Identity, Restored] | int:
    """The player's key (``identity``: ``--identity``, else the one stored beside the
    game) and the game rebuilt from ``path``; an exit status and one line, naming
    what to run instead, when it cannot be."""
    key_file = identity or meta.get("identity")
    if key_file is None:
        print(
            "truc-p2p resume: "
            + _(
                "this game used a one-off key; it cannot be resumed. Start a new one "
                "({command}), with --identity FILE to be able to resume it next time",
                command=new_game_command(meta),
            ),
            file=sys.stderr,
        )
        return 2
    try:
        ident = load_identity(key_file)
    except IdentityError as exc:
        print(
            f"truc-p2p resume: {identity_error_text(exc)}; "
            + _("give the key that game was played with: {command}", command=with_key(path)),
            file=sys.stderr,
        )
        return 2
    try:
        restored = restore_game(
            path,
            identity=ident.key,
            settings=stored.settings,
            role=stored.role,
            meta=meta,
        )
    except (OSError, ValueError) as exc:
        cannot_continue(path, meta, exc)
        return 2 if isinstance(exc, OSError) else 1
    except LocalProtocolError as exc:  # another key or a damaged secret beside it
        not_its_key(path, exc)
        return 2
    return ident, restored


def _relay_again(
    meta: dict[str, Any], ident: Identity, path: Path, info: TextIO
) -> tuple[tuple[str, int], bytes] | int:
    """A host that registered with a relay: the relay and the nonce of its claim again
    (the same code), said in one line; exit status 2 when the stored settings are bad."""
    try:
        relay = (str(meta["relay"][0]), int(meta["relay"][1]))
        nonce = bytes.fromhex(str(meta["relay_nonce"]))
    except (KeyError, IndexError, TypeError, ValueError) as exc:
        print(
            "truc-p2p resume: "
            + _(
                "bad relay settings beside {path}: {reason}; see what the game holds "
                "with {command}",
                path=path,
                reason=exc,
                command=f"truc-p2p verify {path}",
            ),
            file=sys.stderr,
        )
        return 2
    print(
        _(
            "registering with the relay {relay} again (code {code}, the invite's)",
            relay=host_port(*relay),
            code=meta.get("relay_code", "?"),
        ),
        file=info,
    )
    return relay, nonce


def _match_road(
    meta: dict[str, Any],
    record: MatchRecord,
    next_games: NextGames,
    *,
    port: object,
    keys: tuple[Identity, SigningKey] | None = None,
) -> Next | int:
    """After ``resume`` finished a game of a match: the road of the next games, as
    the command that started the match would have played them (the host on the
    same port)."""
    argv = meta.get("argv")
    if not isinstance(argv, list) or not argv or argv[0] not in ("host", "join", "play"):
        print(
            "truc-p2p resume: "
            + _(
                "the match's command line is not stored; it stops here (a new match: "
                "truc-p2p host, join or play with --match N)"
            )
        )
        return 1
    opts, road = next_games([str(a) for a in argv], keys)
    if opts.command == "host" and isinstance(port, int):
        opts = replace(opts, network=replace(opts.network, port=port))
    left = record.games - len(record.played)
    print(
        ngettext(
            "the match goes on: {n} game at most to play",
            "the match goes on: {n} games at most to play",
            left,
        )
    )
    return opts, road, record
