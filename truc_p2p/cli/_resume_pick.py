"""``truc-p2p resume`` with no FILE: the unfinished game to go on with.

A player whose game stopped types ``truc-p2p resume`` and expects it to find the
game, as ``join`` run again does.  The games folder (and the old ``./games``) is
searched for the unfinished games with their settings beside them, newest
first: one is resumed at once (and named); of several, a person at a terminal
picks one from a numbered list (Enter: the newest); anyone else is shown the list
and the command that names one.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from truc_p2p.cli._comeback import OLD_GAMES, opponent_name, resume_command, unfinished_report
from truc_p2p.history import default_games_folder
from truc_p2p.i18n import _, ngettext
from truc_p2p.net import read_meta
from truc_p2p.transcript import being_written

__all__ = ["Unfinished", "pick_unfinished", "unfinished_games"]


@dataclass(frozen=True)
class Unfinished:
    """An unfinished game ``resume`` can go on with: its transcript, the side this
    player had (``host``, ``join`` or ``play``) and the opponent's name."""

    path: Path
    role: str
    opponent: str | None
    mtime: float

    def line(self) -> str:
        """The game as one line of the list: when, against whom, as what, the file."""
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(self.mtime))
        side = {
            # Translators: how a game of the resume list was played
            "host": _("you host"),
            "join": _("you joined"),
            "play": _("on this machine"),
        }.get(self.role, self.role)
        return _(
            "{when}  against {opponent} ({side}): {path}",
            when=when,
            opponent=self.opponent or _("your opponent"),
            side=side,
            path=self.path,
        )


def _folders() -> list[Path]:
    folders = [default_games_folder()]
    try:
        if OLD_GAMES.is_dir() and OLD_GAMES.resolve() != folders[0].resolve():
            folders.append(OLD_GAMES)
    except OSError:
        pass
    return folders


def unfinished_games(folders: Sequence[Path], *, live: bool = False) -> list[Unfinished]:
    """The unfinished games in ``folders`` that have their settings beside them,
    newest first (a finished game is told by its last messages, without verifying
    it; only the few unfinished ones are read through); ``live``: the ones being
    played now by another process instead of the stopped ones."""
    found: list[Unfinished] = []
    for folder in folders:
        try:
            paths = list(folder.glob("*.truc"))
        except OSError:
            continue
        for path in paths:
            try:
                role = str(read_meta(path).get("role"))
                mtime = path.stat().st_mtime
            except (OSError, ValueError):
                continue
            if role not in ("host", "join", "play") or being_written(path) != live:
                continue
            report = unfinished_report(path)
            if report is not None:
                found.append(Unfinished(path, role, opponent_name(path, report), mtime))
    found.sort(key=lambda game: (game.mtime, game.path.name), reverse=True)
    return found


def _ask(games: list[Unfinished]) -> Path | None:
    """A number from the list (Enter: 1), asked again until it is one; ``None`` at
    the end of the input."""
    question = _(
        "resume which one? [1-{n}, Enter: 1] ",
        n=len(games),
    )
    while True:
        print(question, end="", flush=True)
        line = sys.stdin.readline()
        if not line:
            print()
            return None
        answer = line.strip() or "1"
        if answer.isdigit() and 1 <= int(answer) <= len(games):
            return games[int(answer) - 1].path
        print(_("type a number from 1 to {n}", n=len(games)), flush=True)


def pick_unfinished(*, ask: bool) -> Path | int:
    """The transcript a bare ``resume`` goes on with, or the exit status after one
    line that says why there is none (``ask``: a person at this terminal may pick
    one of several)."""
    folders = _folders()
    games = unfinished_games(folders)
    if not games:
        playing = unfinished_games(folders, live=True)
        if playing:
            text = _(
                "your game against {opponent} is going on in another window ({path}); "
                "no stopped game to resume",
                opponent=playing[0].opponent or _("your opponent"),
                path=playing[0].path,
            )
        else:
            text = _(
                "no unfinished game in {folder}; {command} lists your games",
                folder=folders[0],
                command="truc-p2p games",
            )
        print("truc-p2p resume: " + text, file=sys.stderr)
        return 1
    if len(games) == 1:
        game = games[0]
        opponent = game.opponent or _("your opponent")
        print(
            _("resuming your game against {opponent}: {path}", opponent=opponent, path=game.path),
            flush=True,
        )
        return game.path
    out = sys.stdout if ask else sys.stderr
    print(
        ngettext("{n} unfinished game:", "{n} unfinished games:", len(games)),
        file=out,
    )
    for number, game in enumerate(games, 1):
        print(f"  [{number}] {game.line()}", file=out)
    if ask:
        chosen = _ask(games)
        if chosen is not None:
            return chosen
    print(
        "truc-p2p resume: "
        + _("name the game to resume: {command}", command=resume_command(Path("FILE"))),
        file=sys.stderr,
    )
    return 2
