"""``truc-p2p resume``: go on with an unfinished game (and the rest of its match)."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import Any, TextIO

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from truc_p2p.bots import make_bot
from truc_p2p.cli._comeback import resume_command
from truc_p2p.cli._common import (
    add_bot_arg,
    exit_status,
    print_outcome,
    run_until_interrupted,
    use_ascii,
)
from truc_p2p.cli._game_args import GameOptions, group_options, with_options
from truc_p2p.cli._identity import identity_error_text
from truc_p2p.cli._lifecycle import (
    _after_game,
    _asks_to_leave,
    _info_stream,
    _match_so_far,
    _player,
    _stdin_is_tty,
    _stored_match,
)
from truc_p2p.cli._web import add_web_args, show_web_result, web_player, with_web
from truc_p2p.history import MatchRecord
from truc_p2p.identity import (
    Identity,
    IdentityError,
    load_identity,
)
from truc_p2p.net import (
    DEFAULT_GRACE,
    DEFAULT_HELLO_TIMEOUT,
    DEFAULT_TURN_TIMEOUT,
    BotStrategy,
    GameSettings,
    Invite,
    Listen,
    Reporting,
    Restored,
    host_port,
    read_meta,
    relay_claim,
    restore_game,
    resume_game,
)
from truc_p2p.protocol import LocalProtocolError
from truc_p2p.rules import Player, Ruleset
from truc_p2p.ui import Clocks, StdinLines, TerminalPlayer, _, ngettext, notice_text, with_terminal

__all__ = ["register"]


def register(subparsers: Any) -> None:
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
    group_options(resume)
    resume.set_defaults(func=with_options(_resume))


def _resume_play(opts: GameOptions, path: Path, meta: dict[str, Any]) -> int:
    """Both sides of a ``play`` game died with the process: rebuild both and go on."""
    from truc_p2p.cli._play import _opponent_key_path, _opponent_path, _play_locally

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
    out = _info_stream(opts)
    if not (mine.session.resumable and theirs.session.resumable):
        print(
            "truc-p2p resume: " + _("nothing to resume: the game of {path} is over", path=path),
            file=sys.stderr,
        )
        return 1
    ascii = use_ascii(opts.ascii)
    name = str(meta["name"])
    human = web_player(opts, name) or TerminalPlayer(
        StdinLines(),
        name,
        ascii=ascii,
        out=out,
        echo=not _stdin_is_tty(),
        clocks=Clocks(move_seconds=float(meta.get("timeout", DEFAULT_TURN_TIMEOUT))),
        verbose=opts.verbose,
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
            goes_on.append(await _after_game(human, outcome, record, opts, stop, ask=False))
            return exit_status(outcome, stop)
        await show_web_result(human, outcome)
        print_outcome(outcome, as_json=opts.json, quiet=opts.quiet)
        return exit_status(outcome, stop)

    record = _stored_match(meta, path)
    _match_so_far(human, record, Player.P0)
    goes_on: list[bool] = []
    status = run_until_interrupted(
        with_web(opts, human, with_terminal(human, main)), confirm=_asks_to_leave(human)
    )
    if record is None or not goes_on or not goes_on[0]:
        return status
    return _go_on_with_match(meta, record, port=None, keys=(ident, bot_ident.key))


#: What ``_resume(..., fallback=True)`` returns when the game cannot go on (the host
#: no longer has it, the opponent never came back): the command starts a new game.
GONE = -1
#: The endings of a resume that leave room for a new game.
_GONE_KINDS = frozenset({"refused-unknown-game", "opponent-gone", "nothing-to-resume-ended"})


def _come_back(opts: GameOptions, path: Path) -> int | None:
    """``join``/``play``/``host`` run again with an unfinished game: resume it, saying
    so in one line; ``None`` when it cannot go on and a new game should start."""
    from truc_p2p.ui import fit, screen_width

    stream = _info_stream(opts)
    line = _(
        "your game {path} did not finish: resuming it ({command})",
        path=path,
        command=resume_command(path),
    )
    # at a terminal, wrapped at its width between words (a pipe gets the line whole)
    print(fit(line, screen_width(stream)) if stream.isatty() else line, file=stream, flush=True)
    status = _resume(replace(opts, transcript=str(path)), fallback=True)
    if status != GONE:
        return status
    print(
        _("{path} cannot go on; starting a new game instead", path=path),
        file=_info_stream(opts),
        flush=True,
    )
    return None


def _restore(
    path: Path, meta: dict[str, Any], *, ruleset: Ruleset, name: str, audit: str, role: Player
) -> tuple[Identity, Restored] | int:
    """The player's key and the game rebuilt from ``path``; an exit status and one
    line when it cannot be."""
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
    return ident, restored


def _relay_again(
    meta: dict[str, Any], ident: Identity, path: Path, info: TextIO
) -> tuple[tuple[str, int], bytes] | int:
    """A host that registered with a relay: the relay and its claim again (the same
    code), said in one line; exit status 2 when the stored settings are bad."""
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
            relay=host_port(*relay),
            code=meta.get("relay_code", "?"),
        ),
        file=info,
    )
    return relay, claim


def _say_listening(port: int, grace: float, info: TextIO) -> None:
    """The host's line when it listens again for the opponent of a resumed game."""
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


def _say_repaired(path: Path, torn: int, info: TextIO) -> None:
    """The line when the crash cut a message at the transcript's end."""
    print(
        ngettext(  # the same English for both: tests and scripts read "byte(s)"
            "repaired {path}: dropped {n} torn byte(s) at its end (a message cut by the "
            "crash; the opponent sends it again)",
            "repaired {path}: dropped {n} torn byte(s) at its end (a message cut by the "
            "crash; the opponent sends it again)",
            torn,
            path=path,
        ),
        file=info,
    )


def _stored_clocks(meta: dict[str, Any], path: Path) -> GameSettings | int:
    """The clocks the game was started with, as stored beside it; exit status 2 and
    one line when they are bad."""
    try:
        return GameSettings(
            turn_timeout=float(meta.get("timeout", DEFAULT_TURN_TIMEOUT)),
            hello_timeout=float(meta.get("hello_timeout", DEFAULT_HELLO_TIMEOUT)),
            grace=float(meta.get("grace", DEFAULT_GRACE)),
        )
    except (TypeError, ValueError) as exc:
        print(
            "truc-p2p resume: " + _("bad settings beside {path}: {reason}", path=path, reason=exc),
            file=sys.stderr,
        )
        return 2


def _resume(opts: GameOptions, *, fallback: bool = False) -> int:
    path = Path(opts.transcript or "")
    if not path.is_file():
        print("truc-p2p resume: " + _("no transcript at {path}", path=path), file=sys.stderr)
        return 2
    try:
        meta = read_meta(path)
        if meta.get("role") == "play":
            return _resume_play(opts, path, meta)
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
    back = _restore(path, meta, ruleset=ruleset, name=name, audit=audit, role=role)
    if isinstance(back, int):
        return back
    ident, restored = back
    info = _info_stream(opts)
    if restored.torn_bytes:
        _say_repaired(path, restored.torn_bytes, info)
    invite = Invite.parse(meta["invite"]) if role is Player.P0 else None
    clocks = _stored_clocks(meta, path)
    if isinstance(clocks, int):
        restored.writer.close()
        return clocks
    opts = replace(opts, timeout=clocks.turn_timeout)  # the screen's clock, as the game was started
    strategy, hook = _player(opts, name, use_ascii(opts.ascii))
    grace = clocks.grace
    relay: tuple[str, int] | None = None
    claim: bytes | None = None
    if invite is None and meta.get("relay") is not None:
        again = _relay_again(meta, ident, path, info)
        if isinstance(again, int):
            return again
        relay, claim = again

    def on_listening(port: int) -> None:
        _say_listening(port, grace, info)

    def on_notice(text: str) -> None:
        print(notice_text(text), file=sys.stderr, flush=True)

    if invite is not None:
        print(_("redialling {address} to resume the game...", address=invite.address), file=info)

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
            reason = exc.strerror or exc
            print(
                "truc-p2p resume: " + _("cannot listen again: {reason}", reason=reason),
                file=sys.stderr,
            )
            return 2
        if fallback and outcome.kind in _GONE_KINDS and not stop.is_set():
            gone.append(True)  # the command goes on with a new game
            print_outcome(outcome, as_json=False, quiet=True)
            return 1
        if record is not None:  # inside a match: count this game, then maybe go on
            outcome = replace(outcome, transcript=outcome.transcript or path)
            goes_on.append(await _after_game(strategy, outcome, record, opts, stop, ask=False))
        else:
            await show_web_result(strategy, outcome)
            print_outcome(outcome, as_json=opts.json, quiet=opts.quiet)
        return exit_status(outcome, stop)

    record = _stored_match(meta, path)
    _match_so_far(strategy, record, role)
    goes_on: list[bool] = []
    gone: list[bool] = []
    status = run_until_interrupted(
        with_web(opts, strategy, with_terminal(strategy, main)), confirm=_asks_to_leave(strategy)
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
    from truc_p2p.cli._host import _host
    from truc_p2p.cli._join import _join
    from truc_p2p.cli._play import _play

    argv = meta.get("argv")
    if not isinstance(argv, list) or not argv or argv[0] not in ("host", "join", "play"):
        print("truc-p2p resume: " + _("the match's command line is not stored; it stops here"))
        return 1
    args = build_parser(argv[0]).parse_args([str(a) for a in argv])
    opts = replace(GameOptions.from_args(args), argv=tuple(str(a) for a in argv))
    if opts.command == "host" and isinstance(port, int):
        opts = replace(opts, port=port)
    left = record.games - len(record.played)
    print(
        ngettext(
            "the match goes on: {n} game at most to play",
            "the match goes on: {n} games at most to play",
            left,
        )
    )
    if opts.command == "play":
        return _play(opts, record, keys)
    return _host(opts, record) if opts.command == "host" else _join(opts, record)
