"""What ``truc-p2p resume`` says when it cannot go on, and what it does instead:
each line names the command to run."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any, TextIO

from truc_p2p.cli._comeback import opponent_name, resume_command
from truc_p2p.i18n import _, ngettext
from truc_p2p.transcript import being_written

__all__ = [
    "cannot_continue",
    "going_on_elsewhere",
    "new_game_command",
    "not_its_key",
    "nothing_to_resume",
    "say_listening",
    "say_repaired",
    "with_key",
]


def going_on_elsewhere(path: Path, command: str = "resume") -> int | None:
    """The one line (exit status 1) when the game of ``path`` is being played now by
    another process (another window): there is nothing to resume, it goes on there;
    ``None`` when it is not."""
    if not being_written(path):
        return None
    print(
        f"truc-p2p {command}: "
        + _(
            "your game against {opponent} is going on in another window ({path}); play it there",
            opponent=opponent_name(path) or _("your opponent"),
            path=path,
        ),
        file=sys.stderr,
    )
    return 1


def not_its_key(path: Path, reason: object) -> None:
    print(
        "truc-p2p resume: "
        + _(
            "cannot continue {path}: its key or its secret file does not match the "
            "transcript ({reason}); if that game was played with another key: {command}",
            path=path,
            reason=reason,
            command=with_key(path),
        ),
        file=sys.stderr,
    )


def nothing_to_resume(path: Path) -> int:
    """The one line (exit status 1) when the game of ``path`` is over already."""
    print(
        "truc-p2p resume: "
        + _(
            "nothing to resume: the game of {path} is over; verify it with "
            "{verify}, or see your games with {games}",
            path=path,
            verify=f"truc-p2p verify {path}",
            games="truc-p2p games",
        ),
        file=sys.stderr,
    )
    return 1


def with_key(path: Path) -> str:
    return f"{resume_command(path)} --identity FILE"


def new_game_command(meta: dict[str, Any]) -> str:
    """The command that starts a new game like the stored one (its command line
    when it was kept, else the command of its role)."""
    argv = meta.get("argv")
    if isinstance(argv, list) and argv and argv[0] in ("host", "join", "play"):
        return "truc-p2p " + shlex.join(str(a) for a in argv)
    return f"truc-p2p {meta.get('role') if meta.get('role') in ('host', 'join') else 'play'}"


def cannot_continue(path: Path, meta: dict[str, Any], reason: object) -> None:
    """The one line when the stored game cannot be rebuilt: what is in it, and how
    to start a new one."""
    print(
        "truc-p2p resume: "
        + _(
            "cannot continue {path}: {reason}; see what it holds with {verify}, or start "
            "a new game: {command}",
            path=path,
            reason=reason,
            verify=f"truc-p2p verify {path}",
            command=new_game_command(meta),
        ),
        file=sys.stderr,
    )


def say_listening(port: int, grace: float, info: TextIO) -> None:
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


def say_repaired(path: Path, torn: int, info: TextIO) -> None:
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
