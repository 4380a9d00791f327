"""Coming back to a game: the unfinished transcript that ``join``, ``play`` and
``host`` run again should resume instead of starting a new game.

A game whose process died leaves its transcript in ``games/`` with no ending
(no co-signed result, no signed abort or resignation) and the settings
``resume`` needs beside it.  Running the same command again is the obvious
thing to do, so these commands look for such a transcript first: the newest
one of this player's key against the same opponent (the host's key for
``join``, the bot for ``play``).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from truc_p2p.i18n import _
from truc_p2p.net import Invite, InviteError, read_meta
from truc_p2p.protocol import (
    MessageType,
    ProtocolError,
    VerifyReport,
    decode_envelope,
    verify_transcript,
)
from truc_p2p.transcript import scan_transcript_file, verify_transcript_file
from truc_p2p.ui import is_no, is_yes, no_word, yes_word

if TYPE_CHECKING:
    from truc_p2p.cli._game_args import GameOptions

__all__ = [
    "ask_resume",
    "busy_hint",
    "find_unfinished",
    "game_is_over",
    "games_folders",
    "offers_resume",
    "opponent_name",
    "resume_command",
    "unfinished",
    "unfinished_report",
]

#: Where games were kept before the games folder moved to the data folder: ``games``
#: in the folder the command ran from.
OLD_GAMES = Path("games")


def resume_command(path: Path) -> str:
    """The command that resumes ``path``, as the player would type it."""
    return f"truc-p2p resume {path}"


def _same_key(meta: dict[str, Any], identity: Path | None) -> bool:
    stored = meta.get("identity")
    if identity is None or not isinstance(stored, str):
        return False
    try:
        return Path(stored).resolve() == identity.resolve()
    except OSError:
        return False


def _invited_by(meta: dict[str, Any]) -> str | None:
    """The host key fingerprint of the invite a joiner's game was joined with."""
    try:
        return Invite.parse(str(meta.get("invite"))).fingerprint
    except InviteError:
        return None


def game_is_over(path: Path) -> bool:
    """Whether the transcript of ``path`` holds its game's end (a signed abort, both
    results, a resignation): nothing is left to resume."""
    try:
        scan = scan_transcript_file(path)
        if scan.damage == "corrupt" or len(scan.envelopes) < 2:
            return False
        last = [decode_envelope(raw).type for raw in scan.envelopes[-2:]]
        if last[-1] == MessageType.ABORT or last == [MessageType.RESULT] * 2:
            return True
        return verify_transcript(scan.envelopes).status == "complete"
    except (OSError, ValueError, ProtocolError):
        return False


def unfinished(path: Path) -> bool:
    """Whether the transcript stops without an ending (a crash, a kill -9)."""
    return unfinished_report(path) is not None


def unfinished_report(path: Path) -> VerifyReport | None:
    """The verifier's report on the transcript of ``path`` if it stops without an
    ending (a crash, a kill -9), else ``None``."""
    try:
        scan = scan_transcript_file(path)
    except (OSError, ValueError):
        return None
    if scan.damage == "corrupt" or len(scan.envelopes) < 2:
        return None
    try:  # a signed abort or both results at the end: no need to verify the game
        last = [decode_envelope(raw).type for raw in scan.envelopes[-2:]]
        if last[-1] == MessageType.ABORT or last == [MessageType.RESULT] * 2:
            return None
    except (ValueError, ProtocolError):
        return None
    try:
        report = verify_transcript(scan.envelopes)
    except ValueError:
        return None
    return report if report.status == "unfinished" and report.ended_by is None else None


def games_folders(opts: GameOptions) -> list[Path]:
    """Where this command looks for an unfinished game: its ``--out``, and when
    ``--out`` was not given the old ``./games`` folder too (games were kept there
    before they moved to the data folder)."""
    folders = [Path(opts.out)]
    given = any(w == "--out" or str(w).startswith("--out=") for w in opts.argv)
    try:
        if not given and OLD_GAMES.is_dir() and OLD_GAMES.resolve() != folders[0].resolve():
            folders.append(OLD_GAMES)
    except OSError:
        pass
    return folders


def offers_resume(opts: GameOptions) -> bool:
    """Whether the command may ask before resuming an older game: a person at this
    terminal (no ``--bot``, no ``--json``), its input and output a terminal."""
    if opts.who.bot or opts.screen.json:
        return False
    try:
        return os.isatty(sys.stdin.fileno()) and os.isatty(sys.stdout.fileno())
    except (OSError, ValueError):
        return False


def opponent_name(path: Path, report: VerifyReport | None = None) -> str | None:
    """The opponent's name in the unfinished game of ``path`` (a host is player 1:
    the opponent is player 0, the joiner's opponent player 1), from ``report`` when
    the transcript was verified already."""
    try:
        them = 0 if read_meta(path).get("role") == "host" else 1
        if report is None:
            _scan, report = verify_transcript_file(path)
    except (OSError, ValueError):
        return None
    return report.players[them].name or None if len(report.players) == 2 else None


def ask_resume(path: Path) -> bool:
    """Ask at the terminal whether to resume the unfinished game of ``path`` (Enter or
    a word for yes: yes); a word for no (or the end of the input) starts a new game, and says the
    command that resumes this one later."""
    opponent = opponent_name(path) or _("your opponent")
    # Translators: {Y} and {n} are the words for yes (also Enter) and no ("[O/n]" in French)
    question = _(
        "your game {path} against {opponent} did not finish: resume it? [{Y}/{n}] ",
        path=path,
        opponent=opponent,
        Y=yes_word().upper(),
        n=no_word(),
    )
    while True:
        print(question, end="", flush=True)
        line = sys.stdin.readline()
        if line and (not line.strip() or is_yes(line)):
            return True
        if not line or is_no(line):
            break
    print(
        _(
            "starting a new game; to resume that one later: {command}",
            command=resume_command(path),
        ),
        flush=True,
    )
    return False


def find_unfinished(
    out_dir: str | Path | Sequence[Path],
    *,
    role: str,
    identity: Path | None = None,
    host_fingerprint: str | None = None,
    bot: str | None = None,
    name: str | None = None,
    within: float | None = None,
) -> Path | None:
    """The last game of ``role`` in ``out_dir`` (a folder or several) with this
    ``identity`` (``join``, ``host``), against the host of ``host_fingerprint``
    (``join``) or the ``bot`` as ``name`` (``play``), if it is unfinished;
    ``within``: last written at most that many seconds ago."""
    folders = [Path(out_dir)] if isinstance(out_dir, (str, Path)) else list(out_dir)
    try:
        found = [path for folder in folders for path in folder.glob("*.truc")]
        files = sorted(found, key=lambda p: p.stat().st_mtime, reverse=True)
    except OSError:
        return None
    now = time.time()
    for path in files:
        try:
            meta = read_meta(path)
            age = now - path.stat().st_mtime
        except (OSError, ValueError):
            continue
        if meta.get("role") != role or (within is not None and age > within):
            continue
        if role == "play":
            if meta.get("bot") != bot or (name is not None and _stored_name(meta) != name):
                continue
        elif not _same_key(meta, identity):
            continue
        if host_fingerprint is not None and _invited_by(meta) != host_fingerprint:
            continue
        # only the last game with them: an older one was left behind long ago
        return path if unfinished(path) else None
    return None


def busy_hint(
    out_dir: str | Path | Sequence[Path],
    *,
    identity: Path | None,
    host_fingerprint: str,
    command: str,
) -> str:
    """What to do when the host is busy: resume our own stopped game with it, if
    there is one, else run the same command again later."""
    mine = find_unfinished(
        out_dir, role="join", identity=identity, host_fingerprint=host_fingerprint
    )
    if mine is not None:
        return _("if that game is yours, resume it: {command}", command=resume_command(mine))
    return _("to join again: {command}", command=command)


def _stored_name(meta: dict[str, Any]) -> str | None:
    """The player's name stored beside a game (``None``: unreadable settings)."""
    from truc_p2p.net import GameSettings

    try:
        return GameSettings.stored(meta).session.name
    except (ValueError, KeyError, TypeError):
        return None
