"""``truc-p2p play``: a game against a bot, both sides in this process over loopback."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import trio
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from truc_p2p.bots import DEFAULT_OPPONENT, Bot, make_bot
from truc_p2p.cli._comeback import find_unfinished
from truc_p2p.cli._common import (
    add_bot_arg,
    check_out_dir,
    exit_status,
    ruleset_from_args,
    run_until_interrupted,
    use_ascii,
    your_name,
)
from truc_p2p.cli._game_args import GameOptions, _common_args, group_options, with_options
from truc_p2p.cli._identity import identity_error_text
from truc_p2p.cli._lifecycle import (
    _after_game,
    _asks_to_leave,
    _info_stream,
    _left,
    _match_meta,
    _meta,
    _stdin_is_tty,
    asks_for_name,
)
from truc_p2p.cli._resume import _come_back
from truc_p2p.cli._web import add_web_args, ask_bot_level, bot_level, web_player, with_web
from truc_p2p.history import MatchRecord
from truc_p2p.identity import (
    Identity,
    IdentityError,
    load_identity,
    write_private_file,
)
from truc_p2p.net import (
    DEFAULT_BOT_TIMEOUT,
    BotStrategy,
    GameOutcome,
    LocalGame,
    Strategy,
    open_game,
    play_game,
    prepare_game,
    serve_game,
    transcript_path,
    write_meta,
)
from truc_p2p.protocol import Session
from truc_p2p.rules import Player, RulesError, Ruleset
from truc_p2p.ui import (
    Clocks,
    StdinLines,
    TerminalPlayer,
    WebPlayer,
    _,
    bot_player_name,
    with_terminal,
)

__all__ = ["register"]


def register(subparsers: Any) -> None:
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
    group_options(play)
    play.set_defaults(func=with_options(_play))


def _setup_play(
    opts: GameOptions, keys: tuple[Identity, Ed25519PrivateKey] | None
) -> tuple[Ruleset, Identity] | int:
    """The ruleset and the player's key (its own, a throwaway one, or a resumed
    match's); exit status 2 and one line when an option is wrong."""
    try:
        ruleset = ruleset_from_args(opts)
    except (RulesError, ValueError) as exc:
        print("truc-p2p play: " + _("bad ruleset option: {reason}", reason=exc), file=sys.stderr)
        return 2
    try:
        if keys is not None:
            ident = keys[0]
        else:
            ident = load_identity(opts.identity) if opts.identity else Identity.ephemeral()
    except IdentityError as exc:
        print(f"truc-p2p play: {identity_error_text(exc)}", file=sys.stderr)
        return 2
    return ruleset, ident


def _keep_for_resume(
    path: Path,
    opts: GameOptions,
    name: str,
    ident: Identity,
    bot_key: Ed25519PrivateKey,
    bot_name: str,
    record: MatchRecord,
) -> None:
    """What ``truc-p2p resume`` needs to rebuild both sides after a crash: both keys
    (the player's throwaway one too) and the meta beside the transcript."""
    own_key = ident.path
    if own_key is None:
        own_key = path.parent / BOT_DIR / (path.name + ".key")
        write_private_file(own_key, _raw_key(ident.key))
    write_private_file(_opponent_key_path(path), _raw_key(bot_key))
    write_meta(
        path,
        {
            **_meta(opts, name, Identity(ident.key, own_key)),
            "role": "play",
            "bot": opts.bot,
            "seed": opts.seed,
            "bot_name": bot_name,
            **_match_meta(record, opts),
        },
    )


def _two_sides(
    path: Path,
    opts: GameOptions,
    ruleset: Ruleset,
    name: str,
    ident: Identity,
    bot_key: Ed25519PrivateKey,
    record: MatchRecord,
) -> tuple[LocalGame, LocalGame] | int:
    """The player's side (P0, into ``path``) and the bot's (P1, in :data:`BOT_DIR`),
    and what a resume needs beside them; exit status 1 when they cannot be written."""
    bot_name = bot_player_name(opts.bot or DEFAULT_OPPONENT)
    series = record.series()
    try:
        (path.parent / BOT_DIR).mkdir(exist_ok=True)
        mine = prepare_game(
            identity=ident.key,
            role=Player.P0,
            transcript=path,
            ruleset=ruleset,
            name=name,
            pipeline=opts.pipeline,
            series=series,
        )
        theirs = prepare_game(
            identity=bot_key,
            role=Player.P1,
            transcript=_opponent_path(path),
            ruleset=ruleset,
            name=bot_name,
            pipeline=opts.pipeline,
            series=series,
        )
        _keep_for_resume(path, opts, name, ident, bot_key, bot_name, record)
    except OSError as exc:
        print(
            "truc-p2p play: "
            + _("cannot write the transcript: {reason}", reason=exc.strerror or exc),
            file=sys.stderr,
        )
        return 1
    return mine, theirs


def _play(
    opts: GameOptions,
    record: MatchRecord | None = None,
    keys: tuple[Identity, Ed25519PrivateKey] | None = None,
) -> int:
    """``keys``: the player's and the bot's keys of a match resumed after a crash."""
    out_problem = check_out_dir(opts.out, "play")
    if out_problem is not None:
        return out_problem
    setup = _setup_play(opts, keys)
    if isinstance(setup, int):
        return setup
    ruleset, ident = setup
    name = opts.name or your_name("you", ask=asks_for_name(replace(opts, bot=None)))
    if record is None and keys is None:  # the same play again after a crash
        unfinished = find_unfinished(opts.out, role="play", bot=opts.bot, name=name)
        if unfinished is not None and (back := _come_back(opts, unfinished)) is not None:
            return back
    ascii = use_ascii(opts.ascii)
    out = _info_stream(opts)
    human = web_player(opts, name) or TerminalPlayer(
        StdinLines(),
        name,
        ascii=ascii,
        out=out,
        echo=not _stdin_is_tty(),
        clocks=Clocks(move_seconds=opts.timeout),
        verbose=opts.verbose,
    )
    at_terminal = isinstance(human, TerminalPlayer) and _stdin_is_tty()
    if record is None and at_terminal and _first_game(Path(opts.out)):
        # a person's first game: offer the guided hand
        print(_("(new to Le Truc? truc-p2p learn plays a guided first hand)"), file=out)
    if opts.verbose:
        print(
            _(
                "{name}, you play the {bot} bot through the full protocol over a loopback "
                "TCP connection.",
                name=name,
                bot=opts.bot,
            ),
            file=out,
            flush=True,
        )

    if record is None:
        record = MatchRecord(games=opts.match, folder=Path(opts.out))
    # the same bot across the games of a match
    bot_key = keys[1] if keys is not None else Identity.ephemeral().key

    # --web: the page may choose the bot's level, first and for each rematch
    ask_level = bot_level(opts, human, resumed=bool(record.played))
    # one bot object per level through the games: a rematch meets a bot that
    # remembers how this player played (the strongest level reads it)
    bots: dict[str, Bot] = {}

    def the_bot() -> Bot:
        level = opts.bot
        assert level is not None  # play's --bot has a default
        bot = bots.get(level)
        if bot is None:
            bot = bots[level] = make_bot(level, opts.seed)
        return bot

    async def one_game(stop: trio.Event) -> GameOutcome | int:
        path = transcript_path(opts.out, f"play-{name}")
        sides = _two_sides(path, opts, ruleset, name, ident, bot_key, record)
        if isinstance(sides, int):
            return sides
        mine, theirs = sides
        outcome = await _play_locally(
            mine.session,
            theirs.session,
            human,
            BotStrategy(the_bot()),
            bot_timeout=opts.turn_timeout,
            stop=stop,
            syncs=(mine.sync, theirs.sync),
        )
        mine.close()
        theirs.close()
        return replace(outcome, transcript=mine.transcript)

    async def main(stop: trio.Event) -> int:
        nonlocal opts
        if ask_level:
            if not await ask_bot_level(human, stop):
                return 130 if stop.is_set() and not _left(human) else 1
            assert isinstance(human, WebPlayer)  # the page asked
            opts = replace(opts, bot=human.level)
        while True:
            outcome = await one_game(stop)
            if isinstance(outcome, int):
                return outcome
            if not await _after_game(human, outcome, record, opts, stop):
                return exit_status(outcome, stop)
            if isinstance(human, WebPlayer) and human.level is not None:
                opts = replace(opts, bot=human.level)  # the end screen's choice for the rematch

    return run_until_interrupted(
        with_web(opts, human, with_terminal(human, main)), confirm=_asks_to_leave(human)
    )


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


def _first_game(folder: Path) -> bool:
    """No game saved in ``folder`` yet (an unreadable folder counts as none)."""
    try:
        return not any(folder.glob("*.truc"))
    except OSError:
        return True
