"""What every game command does around a game: set up the player and identity,
the settings and the stored meta, the lines on connection, and after a game the
match: its record, the words for it, and whether to play again."""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

import trio

from truc_p2p.bots import make_bot
from truc_p2p.cli._common import (
    print_outcome,
    ruleset_from_args,
    your_name,
)
from truc_p2p.cli._game_args import GameOptions
from truc_p2p.cli._identity import identity_error_text
from truc_p2p.cli._web import show_web_result, web_player
from truc_p2p.history import MatchRecord
from truc_p2p.identity import (
    Identity,
    IdentityError,
    load_or_create_identity,
)
from truc_p2p.net import (
    DEFAULT_AWAY_BUDGET,
    BotStrategy,
    End,
    EventHook,
    GameOutcome,
    GameSettings,
    HostSettings,
    Strategy,
)
from truc_p2p.protocol import verify_transcript
from truc_p2p.rules import Player, RulesError, Ruleset
from truc_p2p.transcript import read_transcript
from truc_p2p.ui import (
    N_,
    Clocks,
    Narrator,
    Screen,
    StdinLines,
    TerminalPlayer,
    Voice,
    WebPlayer,
    _,
    ngettext,
)

__all__: list[str] = []


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


def asks_for_name(opts: GameOptions) -> bool:
    """Whether a game without ``--name`` may ask for one: a person plays at this
    terminal (no bot, no web page, no JSON), its input and output a terminal."""
    if opts.bot or opts.web or opts.json:
        return False
    try:
        return _stdin_is_tty() and os.isatty(sys.stdout.fileno())
    except (OSError, ValueError):
        return False


def _info_stream(opts: GameOptions) -> TextIO:
    return sys.stderr if opts.json else sys.stdout


def _player(opts: GameOptions, name: str, ascii: bool) -> tuple[Strategy, EventHook | None]:
    out = _info_stream(opts)
    if opts.bot:
        bot = BotStrategy(make_bot(opts.bot, opts.seed))
        quiet = opts.quiet or opts.json
        return bot, None if quiet else Narrator(name, ascii=ascii, out=out, verbose=opts.verbose)
    web = web_player(opts, name)
    if web is not None:
        return web, web
    human = TerminalPlayer(
        StdinLines(),
        name,
        ascii=ascii,
        out=out,
        echo=not _stdin_is_tty(),
        # a game over the network: how long away too
        clocks=Clocks(move_seconds=opts.timeout, away_seconds=DEFAULT_AWAY_BUDGET),
        verbose=opts.verbose,
    )
    return human, human


def _setup(opts: GameOptions, *, fallback: str) -> tuple[Any, Identity, str] | int:
    try:
        ruleset = ruleset_from_args(opts)
    except (RulesError, ValueError) as exc:
        print(
            f"truc-p2p {opts.command}: " + _("bad ruleset option: {reason}", reason=exc),
            file=sys.stderr,
        )
        return 2
    name = opts.name or your_name(fallback, ask=asks_for_name(opts))
    if not (1 <= len(name) <= 40 and name.isprintable()):
        print(
            f"truc-p2p {opts.command}: " + _("--name must be 1 to 40 printable characters"),
            file=sys.stderr,
        )
        return 2
    try:
        ident = load_or_create_identity(opts.identity)
    except IdentityError as exc:
        print(f"truc-p2p {opts.command}: {identity_error_text(exc)}", file=sys.stderr)
        return 2
    if ident.created and ident.path is not None:
        print(
            _("created your identity key in {path} (mode 0600)", path=ident.path),
            file=sys.stderr,
        )
    return ruleset, ident, name


def _game_settings(opts: GameOptions, ruleset: Ruleset, name: str) -> GameSettings:
    """The game and its clocks, as the command line gives them (a joiner: with what
    the invite says the host plays, :func:`_adopt_host_settings`)."""
    return GameSettings(
        ruleset=ruleset,
        name=name,
        audit=opts.host_audit or "game",
        deck=opts.host_deck or "v2",
        pipeline=opts.pipeline,
        turn_timeout=opts.turn_timeout,
        hello_timeout=opts.hello_timeout,
        grace=opts.grace,
    )


def _meta(opts: GameOptions, name: str, ident: Identity) -> dict[str, Any]:
    """What ``truc-p2p resume`` needs to continue this game (no secrets)."""
    return {
        "name": name,
        "ruleset": {
            "target": opts.target,
            "ladder": opts.ladder,
            "rest_refused": opts.rest_refused,
        },
        "audit": opts.host_audit or "game",
        "identity": str(ident.path.resolve()) if ident.path is not None else None,
        "bind": opts.bind,
        "timeout": opts.timeout,
        "grace": opts.grace,
        "hello_timeout": opts.hello_timeout,
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


def _left(player: object) -> bool:
    """Whether the player left from the web page (not Ctrl-C)."""
    return isinstance(player, Screen) and player.leave is not None and player.leave.is_set()


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
    if isinstance(player, Screen):
        player.new_game(line)
    if isinstance(player, TerminalPlayer):
        player.show_match(line)


def _match_meta(record: MatchRecord, opts: GameOptions) -> dict[str, Any]:
    """What ``resume`` needs to go on with a match after the game it resumes: the
    match so far and the command line that started it."""
    if not record.is_match:
        return {}
    return {"match": record.to_json(), "argv": list(opts.argv)}


async def _after_game(
    player: object,
    outcome: GameOutcome,
    record: MatchRecord,
    opts: GameOptions,
    stop: trio.Event,
    *,
    ask: bool = True,
) -> bool:
    """Show the end of a game, count it in the match, and say whether another game
    follows: the next game of a match not yet won, or a rematch the player asks for
    (``y``/Enter at the terminal, "play again" on the web table; only when ``ask``)."""
    await show_web_result(player, outcome)
    print_outcome(outcome, as_json=opts.json, quiet=opts.quiet)
    if not outcome.complete or stop.is_set() or outcome.game_id is None:
        return False
    if outcome.end in (End.QUIT, End.RESIGNED):  # we left: no "play again?", match or not
        _resigned_match(player, outcome, record)
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
        # the one who resigned has left the match: both ends say it is over
        left = winner is None and outcome.resignation is not None
        if left and outcome.resignation is not None:
            shown = voice.match_resigned(outcome.resignation.by, record.wins)
        if isinstance(player, Screen):
            player.show_match(shown, lambda: _match_words(me, names, record, left=left))
        if not opts.json:
            if not isinstance(player, TerminalPlayer):
                print(shown, flush=True)
            if where is not None and winner is not None:
                print(_("match record: {path}", path=where), flush=True)
                print(
                    _("verify it with: {command}", command=f"truc-p2p verify --match {where}"),
                    flush=True,
                )
        if winner is not None or left:
            return False
        # the web end screen stays until "next game" (the terminal goes straight on)
        if isinstance(player, WebPlayer) and not await player.ask_again(next_game=True):
            return False
    else:
        if outcome.end is End.OPPONENT_RESIGNED:
            return False  # a resignation leaves the table: nobody to play again with
        if not ask or not isinstance(player, Screen) or not await player.ask_again():
            return False
    if isinstance(player, Screen):
        player.new_game(match_line)
    return True


def match_differs(host: str, games: int) -> str:
    """The one sentence a joiner gets when it asked for another match length than
    the host's ``games`` (1: a single game): what the host plays and what to type."""
    if games == 1:
        return _("{host} plays a single game: join without --match", host=host)
    return _("{host} plays a match of {n} games: join with --match {n}", host=host, n=games)


def settings_words(settings: HostSettings, *, verbose: bool = False) -> str:
    """A host's settings in a player's words, in the language in use: the points to
    play to, what refusing "my rest" costs, an uncommon raise ladder, a match; how
    the deck is dealt and audited only with ``verbose``, in the technical words
    (``HostSettings.describe()`` in English)."""
    if verbose:
        return _technical_settings_words(settings)
    parts = []
    if settings.target is not None:
        parts.append(ngettext("to {n} point", "to {n} points", settings.target))
    if settings.rest == "game":
        parts.append(_("refusing “my rest” loses the game"))
    elif settings.rest == "value":
        parts.append(_("refusing “my rest” costs only the points at stake"))
    if settings.ladder == "even":
        parts.append(_("raises go 1, 2, 4, 6, 8…"))
    if settings.match is not None and settings.match > 1:
        parts.append(_("match of {n} games", n=settings.match))
    return functools.reduce(_and_then, parts) if parts else ""


def _and_then(first: str, second: str) -> str:
    # Translators: the separator between two of a host's settings ("to 12 points;
    # refusing “my rest” loses the game"); French puts a space before the semicolon
    return _("{first}; {second}", first=first, second=second)


def _technical_settings_words(settings: HostSettings) -> str:
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


def _resigned_match(player: object, outcome: GameOutcome, record: MatchRecord) -> None:
    """We resigned a game of a match and leave it: our end screen says the match is
    over, as the opponent's does (the games score counts this game)."""
    resignation = outcome.resignation
    if not record.is_match or resignation is None or record.winner is not None:
        return
    me = outcome.me
    wins = dict(record.wins)
    wins[resignation.winner] += 1
    peer = outcome.names[me.other] or _("opponent")

    def line() -> str:
        return Voice({me: _("you"), me.other: peer}, me).match_resigned(resignation.by, wins)

    if isinstance(player, Screen):
        player.show_match(line(), line)
    elif not isinstance(player, TerminalPlayer):
        print(line(), flush=True)


def _match_words(
    me: Player, names: dict[Player, Any], record: MatchRecord, *, left: bool = False
) -> str:
    """The match line of the end screen, in the language in use (``left``: the
    opponent resigned and left the match)."""
    voice = Voice({me: _("you"), me.other: names[me.other] or _("opponent")}, me)
    if left:
        return voice.match_resigned(me.other, record.wins)
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
