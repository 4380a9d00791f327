"""Helpers shared by the sub-commands: ruleset options, argument checks, output,
Ctrl-C handling.

Argument problems are reported as one line ``truc-p2p COMMAND: reason`` on
stderr with exit status 2 (bad usage): a command either returns 2 itself or
raises :class:`UsageError`, which :func:`truc_p2p.cli.main` prints.
"""

from __future__ import annotations

import argparse
import errno
import getpass
import json
import os
import re
import signal
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Final, TextIO, TypeVar

from truc_p2p.rules import MAX_TARGET, Ladder, RestRefused, RulesError, Ruleset

if TYPE_CHECKING:  # imported where used: `verify` must not load trio or the network
    import trio

    from truc_p2p.net import GameOutcome

__all__ = [
    "MAX_NAME",
    "UsageError",
    "add_bot_arg",
    "add_ruleset_args",
    "bot_name",
    "check_name",
    "check_out_dir",
    "check_shared_args",
    "default_name",
    "exit_status",
    "first_exception",
    "player_name",
    "positive_seconds",
    "print_outcome",
    "ruleset_from_args",
    "run_until_interrupted",
    "use_ascii",
]

#: Longest player name the protocol carries (``hello.name``: 1..40 printable characters).
MAX_NAME: Final = 40


class UsageError(ValueError):
    """A bad argument: :func:`truc_p2p.cli.main` prints ``truc-p2p COMMAND: <message>``
    and exits with status 2."""


_SAMPLE = "♠♥♦♣“”·–"


def add_ruleset_args(parser: argparse.ArgumentParser) -> None:
    """Options that choose the Ruleset (both peers must pass the same ones)."""
    parser.add_argument("--target", type=int, default=12, help="points to win (default 12)")
    parser.add_argument(
        "--ladder",
        choices=[x.value for x in Ladder],
        default=Ladder.LITERAL.value,
        help="raise ladder: literal 1,2,6,8,10... (default) or even 1,2,4,6,8...",
    )
    parser.add_argument(
        "--rest-refused",
        choices=[x.value for x in RestRefused],
        default=RestRefused.GAME.value,
        help="a refused 'my rest' wins the game (default) or scores the round value",
    )


def ruleset_from_args(args: argparse.Namespace) -> Ruleset:
    """The Ruleset chosen by :func:`add_ruleset_args`'s options.

    Raises :class:`UsageError` (a ``ValueError``) naming the option, e.g. for
    ``--target 0``.
    """
    if not 1 <= args.target <= MAX_TARGET:
        raise UsageError(f"--target must be between 1 and {MAX_TARGET} points, not {args.target}")
    try:
        return Ruleset.from_dict(
            {"target": args.target, "ladder": args.ladder, "rest_refused": args.rest_refused}
        )
    except RulesError as exc:
        raise UsageError(f"bad ruleset option: {exc}") from None


def check_name(name: str, option: str = "--name") -> str:
    """``name`` if the protocol can carry it (1 to 40 printable characters), else
    :class:`UsageError` saying why."""
    if not name:
        raise UsageError(f"{option} must not be empty")
    if len(name) > MAX_NAME:
        raise UsageError(
            f"{option} must be at most {MAX_NAME} characters, not {len(name)}: {name[:20]!r}..."
        )
    if not name.isprintable():
        raise UsageError(f"{option} must be printable characters only, not {name!r}")
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
        fd, probe = tempfile.mkstemp(prefix=".truc-p2p-check-", dir=where)
        try:
            os.write(fd, b"\n")
        finally:
            os.close(fd)
            os.unlink(probe)
    except (OSError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        print(f"truc-p2p {command}: cannot write transcripts to {path}: {reason}", file=sys.stderr)
        return 2
    return None


def bot_name(text: str) -> str:
    """argparse type: a bot name as :func:`~truc_p2p.bots.make_bot` takes it."""
    try:
        from truc_p2p.bots import parse_bot_name

        parse_bot_name(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
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
        help=f"{help}; one of {names}",
    )
    parser.add_argument(
        "--think",
        type=positive_seconds,
        default=None,
        action=_BotAction,
        metavar="S",
        help="let the search bot think S seconds per decision instead of a fixed "
        "number of iterations (not reproducible under --seed)",
    )


def positive_seconds(text: str) -> float:
    """argparse type: a number of seconds > 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError("must be more than 0 seconds")
    return value


def default_name(fallback: str) -> str:
    """The login name made protocol-safe (1-40 printable characters), else ``fallback``."""
    try:
        name = getpass.getuser()
    except Exception:  # no login name in containers without a passwd entry
        return fallback
    name = re.sub(r"[^\w.-]+", "", name)[:MAX_NAME]
    return name if name.isprintable() and name else fallback


def use_ascii(requested: bool, stream: TextIO | None = None) -> bool:
    """ASCII cards if asked for, or if ``stream`` cannot encode suit symbols."""
    if requested:
        return True
    stream = stream if stream is not None else sys.stdout
    encoding = getattr(stream, "encoding", None) or "ascii"
    try:
        _SAMPLE.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return True
    return False


def print_outcome(outcome: GameOutcome, *, as_json: bool, quiet: bool = False) -> None:
    """The last lines of host, join and play."""
    if as_json:
        print(json.dumps(outcome.to_json()), flush=True)
        return
    stream = sys.stdout if outcome.valid else sys.stderr
    print(("" if outcome.valid else "game not finished: ") + outcome.message, file=stream)
    if outcome.transcript is not None:
        print(f"transcript: {outcome.transcript}", flush=True)
        if not quiet:
            print(f"verify it with: truc-p2p verify {outcome.transcript}", flush=True)


#: The signals that set the stop event in this run (none when the player left
#: another way, e.g. from the web table).
_stopped_by: list[int] = []


def exit_status(outcome: GameOutcome, stop: trio.Event) -> int:
    """The command's exit status: 128 + the signal when one ended the game, else the
    outcome's (also when the player left from the web table)."""
    from truc_p2p.net import End

    if outcome.end is End.QUIT and stop.is_set() and _stopped_by:
        return 128 + _stopped_by[-1]  # 130 for Ctrl-C, 143 for SIGTERM, 129 for SIGHUP
    return outcome.exit_code


#: Seconds within which a second Ctrl-C confirms leaving a game played at the terminal.
CONFIRM_WINDOW = 3.0


def run_until_interrupted(
    main: Callable[[trio.Event], Awaitable[int]], *, confirm: bool = False
) -> int:
    """Run ``main(stop)`` under trio; the first Ctrl-C sets ``stop`` (leave cleanly and
    tell the opponent), a second one gives up at once (exit 130).

    With ``confirm`` (a person playing at the terminal), a lone Ctrl-C only asks:
    leaving resigns the game, so it takes a second Ctrl-C within
    :data:`CONFIRM_WINDOW` seconds.  SIGTERM and SIGHUP never ask."""

    import trio

    from truc_p2p.cli._i18n import _

    async def runner() -> int:
        _stopped_by.clear()
        stop = trio.Event()
        status: list[int] = []
        async with trio.open_nursery() as nursery:

            async def watch_signals() -> None:
                # SIGTERM and SIGHUP (a closed terminal) leave like Ctrl-C: a signed quit.
                with trio.open_signal_receiver(
                    signal.SIGINT, signal.SIGTERM, signal.SIGHUP
                ) as signals:
                    asked: float | None = None
                    async for signum in signals:
                        if confirm and signum == signal.SIGINT and not stop.is_set():
                            now = trio.current_time()
                            if asked is None or now - asked > CONFIRM_WINDOW:
                                asked = now
                                print(
                                    "\n"
                                    + _(
                                        "press Ctrl-C again within {seconds} s to leave: "
                                        "you resign the game",
                                        seconds=f"{CONFIRM_WINDOW:g}",
                                    ),
                                    file=sys.stderr,
                                    flush=True,
                                )
                                continue
                        if stop.is_set():
                            print("\ninterrupted again: giving up", file=sys.stderr)
                            status.append(128 + signum)
                            nursery.cancel_scope.cancel()
                            return
                        _stopped_by.append(signum)
                        what = signal.Signals(signum).name
                        what = "interrupted" if signum == signal.SIGINT else what
                        print(f"\n{what}: leaving the game...", file=sys.stderr)
                        stop.set()

            nursery.start_soon(watch_signals)
            status.append(await main(stop))
            nursery.cancel_scope.cancel()
        return status[0]

    return trio.run(runner)
