"""Helpers shared by the sub-commands: ruleset options, argument checks, names,
the transcript's verdict (a game's run, its Ctrl-C and last lines: :mod:`._run`).

Argument problems are reported as one line ``truc-p2p COMMAND: reason`` on
stderr with exit status 2 (bad usage): a command either returns 2 itself or
raises :class:`UsageError`, which :func:`truc_p2p.cli.main` prints.
"""

from __future__ import annotations

import argparse
import errno
import math
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final, Protocol, TextIO, TypeVar

from truc_p2p.i18n import _, use_ascii
from truc_p2p.rules import MAX_TARGET, Ladder, RestRefused, RulesError, Ruleset

__all__ = [
    "MAX_COUNT",
    "MAX_NAME",
    "MAX_SECONDS",
    "StoreExplicit",
    "UsageError",
    "add_bot_arg",
    "add_pipeline_arg",
    "add_ruleset_args",
    "bot_name",
    "bounded_int",
    "check_name",
    "check_out_dir",
    "check_shared_args",
    "count",
    "cpu_jobs",
    "default_name",
    "first_exception",
    "pipeline_of",
    "player_name",
    "positive_seconds",
    "ruleset_from_args",
    "transcript_verdict",
    "use_ascii",
    "your_name",
]

#: Longest player name the protocol carries (``hello.name``: 1..40 printable characters).
MAX_NAME: Final = 40


class UsageError(ValueError):
    """A bad argument: :func:`truc_p2p.cli.main` prints ``truc-p2p COMMAND: <message>``
    and exits with status 2."""


class StoreExplicit(argparse.Action):
    """``store``, and remember that the option was given (in ``explicit_options``)."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        setattr(namespace, self.dest, values)
        given: frozenset[str] = getattr(namespace, "explicit_options", frozenset())
        namespace.explicit_options = frozenset(given) | {self.dest}


def add_ruleset_args(parser: argparse.ArgumentParser) -> None:
    """Options that choose the Ruleset (both peers must pass the same ones)."""
    parser.add_argument(
        "--target",
        type=int,
        default=12,
        action=StoreExplicit,
        help=_("points to win the game (default 12 points)"),
    )
    parser.add_argument(
        "--ladder",
        action=StoreExplicit,
        choices=[x.value for x in Ladder],
        default=Ladder.LITERAL.value,
        help=_("raise ladder: literal 1,2,6,8,10... (default) or even 1,2,4,6,8..."),
    )
    parser.add_argument(
        "--rest-refused",
        action=StoreExplicit,
        choices=[x.value for x in RestRefused],
        default=RestRefused.GAME.value,
        help=_("a refused 'my rest' wins the game (default) or scores the round value"),
    )


def add_pipeline_arg(parser: argparse.ArgumentParser) -> None:
    """``--no-pipeline``: the classic deck v2 deal (both peers must choose the same)."""
    parser.add_argument(
        "--no-pipeline",
        action="store_true",
        help=_(
            "shuffle and deal each hand only after the previous one ended, instead of "
            "while it is played (a little wait between hands); both players must choose "
            "the same"
        ),
    )


def pipeline_of(args: argparse.Namespace) -> bool | None:
    """The session's ``pipeline``: False with ``--no-pipeline``, else the default."""
    return False if getattr(args, "no_pipeline", False) else None


class RulesetOptions(Protocol):
    """What :func:`ruleset_from_args` reads: argparse's namespace or typed options."""

    @property
    def target(self) -> int: ...
    @property
    def ladder(self) -> str: ...
    @property
    def rest_refused(self) -> str: ...


def ruleset_from_args(args: RulesetOptions) -> Ruleset:
    """The Ruleset chosen by :func:`add_ruleset_args`'s options.

    Raises :class:`UsageError` (a ``ValueError``) naming the option, e.g. for
    ``--target 0``.
    """
    if not 1 <= args.target <= MAX_TARGET:
        raise UsageError(
            _(
                "--target must be between 1 and {most} points, not {value}",
                most=MAX_TARGET,
                value=args.target,
            )
        )
    try:
        return Ruleset.from_dict(
            {"target": args.target, "ladder": args.ladder, "rest_refused": args.rest_refused}
        )
    except RulesError as exc:
        raise UsageError(_("bad ruleset option: {reason}", reason=exc)) from None


def check_name(name: str, option: str = "--name") -> str:
    """``name`` if the protocol can carry it (1 to 40 printable characters), else
    :class:`UsageError` saying why."""
    if not name:
        raise UsageError(_("{option} must not be empty", option=option))
    if len(name) > MAX_NAME:
        raise UsageError(
            _(
                "{option} must be at most {most} characters, not {length}: {start}...",
                option=option,
                most=MAX_NAME,
                length=len(name),
                start=repr(name[:20]),
            )
        )
    if not name.isprintable():
        raise UsageError(
            _(
                "{option} must be printable characters only, not {name}",
                option=option,
                name=repr(name),
            )
        )
    return name


def player_name(name: str | None, fallback: str) -> str:
    """The ``--name`` option checked with :func:`check_name`, or the login name
    (made protocol-safe), else ``fallback``, when it was not given."""
    return check_name(name) if name is not None else default_name(fallback)


def check_shared_args(args: argparse.Namespace) -> None:
    """Check the options several commands share, before any command runs.

    Called by :func:`truc_p2p.cli.main` right after parsing: the ruleset
    options of :func:`add_ruleset_args` (``--target`` in range...) and
    ``--name`` wherever a command has them.  Raises :class:`UsageError`.
    """
    if all(hasattr(args, key) for key in ("target", "ladder", "rest_refused")):
        ruleset_from_args(args)
    name = getattr(args, "name", None)
    if isinstance(name, str):
        check_name(name)


E = TypeVar("E", bound=BaseException)


def first_exception(exc: BaseException, kind: type[E]) -> E | None:
    """``exc`` if it is a ``kind``, else the first ``kind`` in a (nested) exception group."""
    if isinstance(exc, kind):
        return exc
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            found = first_exception(inner, kind)
            if found is not None:
                return found
    return None


#: ``--out`` / ``games DIR`` help (``{path}``: :func:`default_games_folder`).
def check_out_dir(path: str | os.PathLike[str], command: str) -> int | None:
    """Make sure transcripts can be written into directory ``path``, before anything happens.

    Creates the directory (and its parents) when missing, then creates, writes
    one byte to and deletes a temporary file in it, so a read-only or full file
    system, a permission problem or a file in the way is found now.  Returns
    ``None`` when all is well; otherwise prints ``truc-p2p COMMAND: cannot write
    transcripts to PATH: reason`` to stderr and returns 2 (the exit status).
    """
    where = Path(path)
    try:
        if where.exists() and not where.is_dir():
            raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(where))
        where.mkdir(parents=True, exist_ok=True)
        import tempfile  # only the commands that write games need it

        fd, probe = tempfile.mkstemp(prefix=".truc-p2p-check-", dir=where)
        try:
            os.write(fd, b"\n")
        finally:
            os.close(fd)
            os.unlink(probe)
    except (OSError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        print(
            f"truc-p2p {command}: "
            + _("cannot write transcripts to {path}: {reason}", path=path, reason=reason),
            file=sys.stderr,
        )
        return 2
    return None


def bot_name(text: str) -> str:
    """argparse type: a bot name as :func:`~truc_p2p.bots.make_bot` takes it."""
    from truc_p2p.bots import BOT_NAMES, parse_bot_name

    try:
        parse_bot_name(text)
    except ValueError:
        # ``--bot Medium``: the names are lower case, and a capital is no other bot
        try:
            parse_bot_name(text.lower())
            return text.lower()
        except ValueError:
            pass
        kind, _colon, level = text.partition(":")
        levels = [n.partition(":")[2] for n in BOT_NAMES if n.startswith(kind + ":")]
        if level and levels:
            why = _(
                "bad level {level} for the {kind} bot: use {levels}, a number of "
                "iterations ({kind}:5000) or seconds ({kind}:0.5s)",
                level=repr(level),
                kind=kind,
                levels=", ".join(["default", *levels] if "default" not in levels else levels),
            )
        else:
            why = _(
                "unknown bot {name}; choose from {names}",
                name=repr(text),
                names=", ".join(BOT_NAMES),
            )
        raise argparse.ArgumentTypeError(why) from None
    return text


class _BotAction(argparse.Action):
    """Stores ``--bot`` / ``--think`` and folds a think time into the search bot's name."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        setattr(namespace, self.dest, values)
        bot, think = getattr(namespace, "bot", None), getattr(namespace, "think", None)
        if bot is not None and think is not None:
            try:
                from truc_p2p.bots import with_think

                namespace.bot = with_think(bot, think)
            except ValueError as exc:
                if bot != parser.get_default("bot"):
                    parser.error(str(exc))
                # --think with the default level, which does not think: the bot
                # that does (a later --bot still picks another one).
                namespace.bot = with_think("strongest", think)


def add_bot_arg(parser: argparse.ArgumentParser, *, default: str | None, help: str) -> None:
    """``--bot NAME`` and ``--think S`` (a search bot's time per decision)."""
    from truc_p2p.bots import BOT_NAMES

    names = ", ".join(BOT_NAMES)
    parser.add_argument(
        "--bot",
        type=bot_name,
        default=default,
        action=_BotAction,
        metavar="NAME",
        help=_("{what}; one of {names}", what=help, names=names),
    )
    parser.add_argument(
        "--think",
        type=positive_seconds,
        default=None,
        action=_BotAction,
        metavar="S",
        help=_(
            "let the bot weigh each decision for S seconds: the longer, the stronger "
            "and slower it plays (without --bot: the strongest level); its choices then "
            "differ from run to run even with --seed"
        ),
    )


#: The longest duration any option takes (a week): more turns a timer off in effect.
MAX_SECONDS: Final = 7 * 24 * 3600.0
#: The largest count any option takes (games, hands): more only never ends.
MAX_COUNT: Final = 1_000_000


def positive_seconds(text: str) -> float:
    """argparse type: a finite number of seconds, more than 0 and at most a week
    (``inf``, ``nan``, negatives and absurd sizes are usage errors, exit 2)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            _("not a number of seconds: {text}", text=repr(text))
        ) from None
    if not (math.isfinite(value) and 0 < value <= MAX_SECONDS):
        raise argparse.ArgumentTypeError(
            _(
                "must be a number of seconds more than 0 and at most {most} (a week), not {text}",
                most=f"{MAX_SECONDS:g}",
                text=repr(text),
            )
        )
    return value


def bounded_int(low: int, high: int) -> Callable[[str], int]:
    """argparse type: a whole number from ``low`` to ``high``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                _("not a whole number: {text}", text=repr(text))
            ) from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(
                _("must be from {low} to {high}, not {value}", low=low, high=high, value=value)
            )
        return value

    return parse


def count(text: str) -> int:
    """argparse type: how many (games, hands): from 1 to :data:`MAX_COUNT`."""
    return bounded_int(1, MAX_COUNT)(text)


def cpu_jobs(text: str) -> int:
    """argparse type: worker processes, from 1 to the number of CPUs of this machine."""
    return bounded_int(1, os.cpu_count() or 1)(text)


#: Login names of system accounts, never offered as the player's name.
SYSTEM_ACCOUNTS: Final = frozenset({"root", "admin", "administrator", "nobody", "user"})


def default_name(fallback: str) -> str:
    """The login name made protocol-safe (1-40 printable characters), else ``fallback``
    (also for a system account's name, ``root`` in a container: not a person's name,
    and the opponent would read it as one)."""
    import getpass  # only the commands that name the player need it

    try:
        name = getpass.getuser()
    except Exception:  # no login name in containers without a passwd entry
        return fallback
    name = re.sub(r"[^\w.-]+", "", name)[:MAX_NAME]
    if name.lower() in SYSTEM_ACCOUNTS:
        return fallback
    return name if name.isprintable() and name else fallback


#: The file in the data folder (beside the identity key) that keeps your name.
NAME_FILE: Final = "name"


def saved_name_path() -> Path | None:
    """Where your name is kept (the data folder), ``None`` when there is no home."""
    from truc_p2p.identity import IdentityError, default_data_dir

    try:
        return default_data_dir() / NAME_FILE
    except IdentityError:
        return None


def _usable(name: str) -> bool:
    return 1 <= len(name) <= MAX_NAME and name.isprintable()


def saved_name() -> str | None:
    """The name kept in the data folder, ``None`` before the first game asked it."""
    path = saved_name_path()
    if path is None:
        return None
    try:
        saved = path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return saved if _usable(saved) else None


def keep_name(name: str) -> None:
    """Keep ``name`` for the next games (and say so), as a first game does."""
    path = saved_name_path()
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(name + "\n", encoding="utf-8")
    except OSError:
        return  # not kept: asked again next time
    line = _(
        "you play as {name} from now on (kept in {path}; --name changes it for a game)",
        name=name,
        path=path,
    )
    from truc_p2p.ui import fit_for  # at a terminal, wrapped between words

    print(fit_for(line, sys.stderr), file=sys.stderr)


def your_name(fallback: str, *, ask: bool, stdin: TextIO | None = None) -> str:
    """The name shown to the opponent when no ``--name`` is given: the one kept in
    the data folder; else, when ``ask`` (a person at a terminal, on a first game),
    the one typed at the prompt, kept for the next games (Enter: the login name, or
    for a system account "player-" and four hex digits, in the player's language);
    else the login name (:func:`default_name`)."""
    saved = saved_name()
    if saved is not None:
        return saved
    default = default_name(fallback)
    if not ask or saved_name_path() is None:
        return default
    if default == fallback:  # no login name a person owns (root in a container): the
        # role's English word would become their name; offer one in their language
        import secrets

        default = _("player-{id}", id=secrets.token_hex(2))
    print(
        _("your name, shown to your opponent (Enter: {default}): ", default=default),
        end="",
        file=sys.stderr,
        flush=True,
    )
    typed = (stdin or sys.stdin).readline().strip()
    name = typed if _usable(typed) else default
    keep_name(name)
    return name


def transcript_report(path: str | os.PathLike[str]) -> object:
    """The verifier's report on a transcript (with its damage), or the exception that
    made it unreadable: the language-neutral part of :func:`transcript_verdict`."""
    from truc_p2p.protocol import TranscriptFormatError
    from truc_p2p.transcript import verify_transcript_file
    from truc_p2p.verdict import with_damage

    try:
        scan, report = verify_transcript_file(path)
    except (OSError, TranscriptFormatError) as exc:
        return exc
    return with_damage(report, scan)


def verdict_words(report: object) -> dict[str, object]:
    """:func:`transcript_verdict` of a :func:`transcript_report`, in the language in use."""
    from truc_p2p.verdict import verdict_words as words

    return words(report)


def transcript_verdict(path: str | os.PathLike[str]) -> dict[str, object]:
    """The verifier's verdict on a game's transcript, for the end-of-game screens.

    The same words and statuses as ``truc-p2p verify``: ``status`` is
    ``"complete"`` (a co-signed result or a resignation), ``"unfinished"`` (the
    game stopped, or a player left without resigning: not a cheat),
    ``"violation"`` or ``"unreadable"``; ``headline`` is its one plain sentence
    with the players' names, ``summary`` the whole report, ``valid`` true only
    when complete.  Views should colour by ``status``, not by ``valid``, so a game
    that merely stopped is never shown as a cheat.
    """
    return verdict_words(transcript_report(path))
