"""``truc-p2p play``: a game against a bot, both sides in this process over loopback."""

from __future__ import annotations

import sys
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any, TextIO

import trio

from truc_p2p.bots import DEFAULT_OPPONENT, Bot, make_bot
from truc_p2p.cli._after import left_the_page, match_meta, tell_match_cost
from truc_p2p.cli._comeback import find_unfinished, games_folders
from truc_p2p.cli._common import (
    add_bot_arg,
    keep_name,
    ruleset_from_args,
    saved_name,
    saved_name_path,
    use_ascii,
    your_name,
)
from truc_p2p.cli._game_args import GameOptions, _common_args, group_options, with_options
from truc_p2p.cli._identity import identity_error_text
from truc_p2p.cli._lifecycle import (
    ComeBack,
    Road,
    Seat,
    Table,
    _meta,
    _player,
    _stdin_is_tty,
    asks_for_name,
    game_settings,
    run_game,
)
from truc_p2p.cli._loopback import BOT_DIR, opponent_key_path, opponent_path, play_locally
from truc_p2p.cli._parser import COMMAND_HELP
from truc_p2p.cli._web import add_web_args, ask_bot_level, bot_level
from truc_p2p.crypto import SigningKey
from truc_p2p.history import MatchRecord
from truc_p2p.i18n import _
from truc_p2p.identity import Identity, IdentityError, load_identity, write_private_file
from truc_p2p.net import (
    BotStrategy,
    EventHook,
    GameOutcome,
    GameSettings,
    LocalGame,
    Strategy,
    prepare_game,
    transcript_path,
    write_meta,
)
from truc_p2p.rules import Player, RestRefused, RulesError
from truc_p2p.ui import VARIANTS, TerminalPlayer, WebPlayer, bot_player_name, fit_for

__all__ = ["ask_variants", "offered_variants", "register", "with_variants"]

#: The options that choose the game: ``play`` typed with none of them asks, at the
#: terminal, whether to play a longer game (:func:`ask_variants`).
_GAME_WORDS = ("--bot", "--think", "--seed", "--target", "--ladder", "--rest-refused", "--match")
#: The key of each variant at the terminal's question.
_VARIANT_KEYS = {"value": "v", "best3": "3"}


def register(subparsers: Any, *, come_back: ComeBack) -> None:
    """``play``; ``come_back``: the road of an unfinished game of this player's."""
    play = subparsers.add_parser(
        "play",
        help=_(COMMAND_HELP["play"]),
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
    group_options(play)
    play.set_defaults(func=with_options(partial(_play, come_back=come_back)))


def _keep_for_resume(
    path: Path,
    opts: GameOptions,
    seat: Seat,
    bot_key: SigningKey,
    bot_name: str,
    record: MatchRecord,
    settings: GameSettings,
) -> None:
    """What ``truc-p2p resume`` needs to rebuild both sides after a crash: both keys
    (the player's throwaway one too) and the meta beside the transcript."""
    ident = seat.ident
    own_key = ident.path
    if own_key is None:
        own_key = path.parent / BOT_DIR / (path.name + ".key")
        write_private_file(own_key, _raw_key(ident.key))
    write_private_file(opponent_key_path(path), _raw_key(bot_key))
    write_meta(
        path,
        {
            **_meta(opts, settings, Identity(ident.key, own_key)),
            "role": "play",
            "bot": opts.who.bot,
            "seed": opts.who.seed,
            "bot_name": bot_name,
            **match_meta(record, opts),
        },
    )


def _two_sides(
    path: Path, opts: GameOptions, seat: Seat, bot_key: SigningKey, record: MatchRecord
) -> tuple[LocalGame, LocalGame] | int:
    """The player's side (P0, into ``path``) and the bot's (P1, in :data:`BOT_DIR`),
    and what a resume needs beside them; exit status 1 when they cannot be written."""
    bot_name = bot_player_name(opts.who.bot or DEFAULT_OPPONENT)
    settings = game_settings(opts, seat.ruleset, seat.name, record.series())
    try:
        (path.parent / BOT_DIR).mkdir(exist_ok=True)
        mine = prepare_game(
            identity=seat.ident.key, role=Player.P0, transcript=path, options=settings.session
        )
        theirs = prepare_game(
            identity=bot_key,
            role=Player.P1,
            transcript=opponent_path(path),
            options=replace(settings.session, name=bot_name),
        )
        _keep_for_resume(path, opts, seat, bot_key, bot_name, record, settings)
    except OSError as exc:
        print(
            "truc-p2p play: "
            + _("cannot write the transcript: {reason}", reason=exc.strerror or exc),
            file=sys.stderr,
        )
        return 1
    return mine, theirs


class PlayRoad(Road):
    """``play``: the settings from the options, the bot's side in this process; the
    connection: loopback TCP between the two, a new pair of sessions each game."""

    fallback = "you"

    def __init__(self, keys: tuple[Identity, SigningKey] | None = None) -> None:
        #: The player's and the bot's keys of a match resumed after a crash.
        self.keys = keys
        # the same bot across the games of a match
        self.bot_key = keys[1] if keys is not None else Identity.ephemeral().key
        # one bot object per level through the games: a rematch meets a bot that
        # remembers how this player played (the strongest level reads it)
        self.bots: dict[str, Bot] = {}
        self.ask_level = False
        self.ask_name = False

    def settle(self, opts: GameOptions) -> GameOptions | int:
        """At the terminal, ``play`` typed without a game option first asks whether to
        play a longer game (the rule variants of :mod:`truc_p2p.ui._variants`)."""
        words = {str(w).split("=", 1)[0] for w in opts.argv}
        if self.keys is not None or words & set(_GAME_WORDS):
            return opts
        if not asks_for_name(_without_bot(opts)):  # a person at this terminal only
            return opts
        return with_variants(opts, ask_variants(offered_variants(opts)))

    def seat(self, opts: GameOptions) -> Seat | int:
        """The ruleset and the player's key (its own, a throwaway one, or a resumed
        match's); exit status 2 and one line when an option is wrong."""
        try:
            ruleset = ruleset_from_args(opts.rules)
        except (RulesError, ValueError) as exc:
            print(
                "truc-p2p play: " + _("bad ruleset option: {reason}", reason=exc),
                file=sys.stderr,
            )
            return 2
        try:
            if self.keys is not None:
                ident = self.keys[0]
            else:
                ident = (
                    load_identity(opts.who.identity) if opts.who.identity else Identity.ephemeral()
                )
        except IdentityError as exc:
            print(f"truc-p2p play: {identity_error_text(exc)}", file=sys.stderr)
            return 2
        name = opts.who.name or your_name("you", ask=asks_for_name(_without_bot(opts)))
        return Seat(ruleset, ident, name)

    def unfinished(self, opts: GameOptions, seat: Seat) -> Path | None:
        if self.keys is not None:
            return None
        return find_unfinished(games_folders(opts), role="play", bot=opts.who.bot, name=seat.name)

    def screen(self, opts: GameOptions, seat: Seat) -> tuple[Strategy, EventHook | None]:
        # --bot is the opponent here; a game on this machine has no away budget
        return _player(_without_bot(opts), seat.name, use_ascii(opts.screen.ascii), away=None)

    def before(self, table: Table) -> int | None:
        opts, human, out = table.opts, table.player, table.opts.screen.info
        at_terminal = isinstance(human, TerminalPlayer) and _stdin_is_tty()
        if not table.record.played and at_terminal and _first_game(Path(opts.out)):
            # a person's first game: offer the guided hand
            print(_("(new to Le Truc? truc-p2p learn plays a guided first hand)"), file=out)
        if opts.screen.verbose:
            print(
                _(
                    "{name}, you play the {bot} bot through the full protocol over a loopback "
                    "TCP connection.",
                    name=table.seat.name,
                    bot=opts.who.bot,
                ),
                file=out,
                flush=True,
            )
        # --web: the page may choose the bot's level, first and for each rematch
        self.ask_level = bot_level(
            opts.who.bot, opts.argv, human, resumed=bool(table.record.played)
        )
        # with the level, the variants of a longer game not chosen on the command line
        if self.ask_level and isinstance(human, WebPlayer):
            human.variants_offered = offered_variants(opts)
        # and on a first game, the player's name, as the terminal asks it (issue 43)
        self.ask_name = (
            isinstance(human, WebPlayer)
            and not opts.who.name
            and not table.record.played
            and saved_name() is None
            and saved_name_path() is not None
        )
        return None

    def _longer(self, table: Table, chosen: frozenset[str]) -> None:
        """The start panel's variants: the ruleset and the match they make."""
        table.opts = with_variants(table.opts, chosen)
        table.seat = replace(table.seat, ruleset=ruleset_from_args(table.opts.rules))
        if table.opts.rules.match != table.record.games:
            table.record = self.record(table.opts)
            if isinstance(table.player, WebPlayer):
                table.player.match_games = table.record.games
            tell_match_cost(table.player, table.record)

    def _bot(self, level: str | None, seed: int | None) -> Bot:
        assert level is not None  # play's --bot has a default
        bot = self.bots.get(level)
        if bot is None:
            bot = self.bots[level] = make_bot(level, seed)
        return bot

    async def game(self, table: Table, stop: trio.Event) -> GameOutcome | int:
        human = table.player
        if self.ask_level or self.ask_name:
            assert isinstance(human, WebPlayer)  # only the page asks
            human.choose_level = self.ask_level
            human.name_asked = table.seat.name if self.ask_name else None
            if not await ask_bot_level(human, stop):
                return 130 if stop.is_set() and not left_the_page(human) else 1
            if self.ask_level:
                table.opts = replace(table.opts, who=replace(table.opts.who, bot=human.level))
            if human.variants_chosen:
                self._longer(table, human.variants_chosen)
            human.variants_offered = human.variants_chosen = frozenset()
            if self.ask_name:
                name = human.name_given or table.seat.name
                keep_name(name)
                table.seat = replace(table.seat, name=name)
                human.my_name = human.model.my_name = name
            self.ask_level = self.ask_name = False
        opts, seat = table.opts, table.seat
        path = transcript_path(opts.out, f"play-{seat.name}")
        sides = _two_sides(path, opts, seat, self.bot_key, table.record)
        if isinstance(sides, int):
            return sides
        mine, theirs = sides
        outcome = await play_locally(
            mine.session,
            theirs.session,
            human,
            BotStrategy(self._bot(opts.who.bot, opts.who.seed)),
            bot_timeout=opts.clocks.turn_timeout,
            stop=stop,
            syncs=(mine.sync, theirs.sync),
        )
        mine.close()
        theirs.close()
        return replace(outcome, transcript=mine.transcript)

    async def after(self, table: Table, outcome: GameOutcome, stop: trio.Event) -> bool:
        if not await super().after(table, outcome, stop):
            return False
        human = table.player
        if isinstance(human, WebPlayer) and human.level is not None:
            table.opts = replace(
                table.opts, who=replace(table.opts.who, bot=human.level)
            )  # the end screen's choice
        return True


def _play(opts: GameOptions, *, come_back: ComeBack) -> int:
    return run_game(opts, PlayRoad(), come_back=come_back)


def _raw_key(key: SigningKey) -> bytes:
    return key.to_bytes()


def _first_game(folder: Path) -> bool:
    """No game saved in ``folder`` yet (an unreadable folder counts as none)."""
    try:
        return not any(folder.glob("*.truc"))
    except OSError:
        return True


def offered_variants(opts: GameOptions) -> frozenset[str]:
    """The variants of a longer game that ``play`` may offer: those whose option the
    command line did not give (and that would change something)."""
    given = opts.rules.explicit_options
    offered = set()
    if "rest_refused" not in given and opts.rules.rest_refused == RestRefused.GAME.value:
        offered.add("value")
    if "match" not in given and opts.rules.match == 1:
        offered.add("best3")
    return frozenset(offered)


def with_variants(opts: GameOptions, chosen: frozenset[str]) -> GameOptions:
    """``opts`` with the variants ``chosen`` (``value``: ``--rest-refused value``;
    ``best3``: ``--match 3``), as if typed: the command line kept for a resumed
    match says them too."""
    rules, argv = opts.rules, list(opts.argv)
    if "value" in chosen:
        rules = replace(
            rules,
            rest_refused=RestRefused.VALUE.value,
            explicit_options=rules.explicit_options | {"rest_refused"},
        )
        argv += ["--rest-refused", RestRefused.VALUE.value]
    if "best3" in chosen:
        rules = replace(rules, match=3, explicit_options=rules.explicit_options | {"match"})
        argv += ["--match", "3"]
    return replace(opts, rules=rules, argv=tuple(argv))


def ask_variants(
    offered: frozenset[str], *, stdin: TextIO | None = None, out: TextIO | None = None
) -> frozenset[str]:
    """The terminal's question: a longer game?  Each variant ``offered`` with its key
    and the line saying what it changes; Enter (or anything else): none."""
    if not offered:
        return frozenset()
    out = out or sys.stderr
    print(fit_for(_("A longer game? Enter: one game to 12, as usual."), out), file=out)
    for code, (name, text) in VARIANTS.items():
        if code in offered:
            print(f"  {_VARIANT_KEYS[code]}  {_(name)}", file=out)
            print(fit_for(f"     {_(text)}", out), file=out)
    keys = ", ".join(_VARIANT_KEYS[c] for c in VARIANTS if c in offered)
    print(_("your choice ({keys}, both, or Enter): ", keys=keys), end="", file=out, flush=True)
    typed = (stdin or sys.stdin).readline().strip().lower()
    both = typed == _("both").lower() or typed.replace(" ", "") in ("v3", "3v")
    chosen = frozenset(
        code for code in offered if both or _VARIANT_KEYS[code] in typed.replace(" ", "")
    )
    for code in VARIANTS:
        if code in chosen:
            print(f"  → {_(VARIANTS[code][0])}", file=out)
    return chosen


def _without_bot(opts: GameOptions) -> GameOptions:
    """``opts`` with no bot playing for the player (the player plays the bot)."""
    return replace(opts, who=replace(opts.who, bot=None))
