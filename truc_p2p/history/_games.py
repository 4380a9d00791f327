"""The games in a folder, newest first, and a record per opponent (``truc-p2p games``,
:mod:`truc_p2p.cli._games`, lists them).

Every transcript in the folder is read and verified.  The default folder is
the person's own (``games`` in the data folder that also keeps the identity,
:func:`truc_p2p.identity.default_games_dir`), so one person has one history
wherever the commands run; ``games/`` in the current folder, where earlier
versions wrote, is listed with it (a notice on stderr says so).  ``.bot/``
(the bot's side of ``play`` games), hidden files, the files written beside a
transcript (``*.secret``, ``*.meta.json``, ``*.key``) and match records
(``match-*.json``, which group their games) are not read as transcripts.
Games against a level of ``play`` count as one opponent per level (the bot's
key is new each game); connections that never reached the deal are counted,
not listed.  "You" is the player whose secret (or ``.meta.json``) lies beside
the transcript.  ``--web`` shows the list on a page where each game opens its
replay (:mod:`._games_web`).
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from truc_p2p.history._match import MATCH_FORMAT
from truc_p2p.history._record import GameFile, UnreadableGame, read_game
from truc_p2p.i18n import _, ngettext
from truc_p2p.rules import Player
from truc_p2p.ui import bot_player_name

__all__ = [
    "LEGACY_FOLDER",
    "GameGroup",
    "MatchFile",
    "Opponent",
    "abandons_of",
    "game_json",
    "game_row",
    "grouped",
    "list_games",
    "match_heading",
    "read_matches",
    "record_line",
    "records_of",
    "started",
]

#: Files the commands write beside a transcript, never transcripts themselves.
SKIPPED_SUFFIXES = (".secret", ".meta.json", ".away.json", ".key", ".tmp", ".opponent")
#: Characters of a fingerprint shown (as in the game screens).
FP = 16
#: The name :class:`truc_p2p.history._match.MatchRecord` gives its file.
MATCH_FILE = re.compile(r"^match-[0-9a-f]+\.json$")
#: Where commands wrote transcripts before the per-person default (a relative folder).
LEGACY_FOLDER = Path("games")


def _candidates(folder: Path) -> list[Path]:
    return sorted(
        p
        for p in folder.iterdir()
        if not p.name.startswith(".")
        and not p.name.endswith(SKIPPED_SUFFIXES)
        and not MATCH_FILE.match(p.name)
        and not p.is_dir()
    )


@dataclass(frozen=True)
class MatchFile:
    """A match record beside the games (``match-<id>.json``), as far as ``games`` needs."""

    path: Path
    match_id: str
    games: int
    #: wins per seat (the record's ``wins``)
    wins: tuple[int, int]
    winner: int | None
    #: the file names of its games' transcripts, in order
    transcripts: tuple[str, ...]
    #: the seat of the player who resigned and left the match (then it is over)
    left: int | None = None

    @property
    def decided(self) -> int | None:
        """Who won the match: ⌈N/2⌉ games, or the opponent of the one who left it."""
        if self.winner is not None:
            return self.winner
        return None if self.left is None else 1 - self.left


def read_matches(folder: Path) -> tuple[list[MatchFile], list[UnreadableGame]]:
    """The match records in ``folder``, and those that cannot be read."""
    found: list[MatchFile] = []
    bad: list[UnreadableGame] = []
    for path in sorted(folder.iterdir()):
        if not MATCH_FILE.match(path.name) or path.is_dir():
            continue
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(data, dict) or data.get("format") != MATCH_FORMAT:
                raise ValueError("not a match record")
            wins = data["wins"]
            winner = data.get("winner")
            found.append(
                MatchFile(
                    path=path,
                    match_id=str(data["match_id"]),
                    games=int(data["games"]),
                    wins=(int(wins[0]), int(wins[1])),
                    winner=int(winner) if isinstance(winner, int) else None,
                    left=data["left"] if data.get("left") in (0, 1) else None,
                    transcripts=tuple(
                        str(g["transcript"]) for g in data["played"] if "transcript" in g
                    ),
                )
            )
        except OSError as exc:
            bad.append(UnreadableGame(path, exc.strerror or str(exc)))
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            bad.append(UnreadableGame(path, _("not a match record: {reason}", reason=exc)))
    return found, bad


def list_games(
    folder: Path, *, progress: bool = False
) -> tuple[list[GameFile], list[UnreadableGame]]:
    """The readable games, newest first, and the files that could not be read
    (``OSError`` when the folder itself cannot be listed).  ``progress``: say on
    stderr that many transcripts are being verified (about half a second each)."""
    games: list[GameFile] = []
    bad: list[UnreadableGame] = []
    paths = _candidates(folder)
    if progress and len(paths) > 4:
        print(
            ngettext("verifying {n} transcript…", "verifying {n} transcripts…", len(paths)),
            file=sys.stderr,
            flush=True,
        )
    for path in paths:
        try:
            games.append(read_game(path))
        except UnreadableGame as exc:
            bad.append(exc)
    games.sort(key=lambda g: (g.when, g.path.name), reverse=True)
    return games, bad


@dataclass(frozen=True)
class Opponent:
    name: str
    fingerprint: str
    #: the level of a ``play`` bot (its key is new each game: the level is the opponent)
    level: str | None = None

    @property
    def key(self) -> str:
        """What makes two games the same opponent's."""
        return f"level:{self.level}" if self.level is not None else self.fingerprint

    def text(self) -> str:
        """The name, and for a person the start of the key (a level's bot is its name)."""
        if self.level is not None:
            return self.name
        return _("{name} ({fp})", name=self.name, fp=self.fingerprint[:FP])


def _opponent(game: GameFile) -> Opponent | None:
    if game.owner is None or len(game.report.players) < 2:
        return None
    info = game.report.players[game.owner.other]
    if game.bot is not None:
        return Opponent(bot_player_name(game.bot), info.fingerprint, game.bot)
    return Opponent(info.name, info.fingerprint)


def started(game: GameFile) -> bool:
    """The game reached its deal (a failed handshake leaves a transcript that did not),
    or it can be resumed."""
    return game.report.score is not None or game.status == "resumable"


def _result_word(game: GameFile) -> str | None:
    """ "won" / "lost" from the owner's side, or ``None`` (no owner or no winner)."""
    winner = game.report.winner
    if game.owner is None or winner is None or not game.finished:
        return None
    return "won" if winner == game.owner else "lost"


def _scores(game: GameFile) -> tuple[int, int] | None:
    """(yours, theirs), or (P0's, P1's) without an owner."""
    score = game.report.score
    if score is None:
        return None
    if game.owner is Player.P1:
        return score[1], score[0]
    return score[0], score[1]


def _result_text(game: GameFile) -> str:
    scores = _scores(game)
    word = _result_word(game)
    if scores is None:
        return _("not started")
    x, y = scores
    left = game.abandoned_by
    if left is not None:  # only the side that stayed says so (wire.md 13.4)
        return _("abandoned by {name} at {x}–{y} (unconfirmed)", name=game.name(left), x=x, y=y)
    resigned = game.report.resigned_by
    if resigned is not None:
        if game.owner is not None and resigned == game.owner:
            return _("you resigned at {x}–{y}", x=x, y=y)
        if game.owner is not None:
            return _(
                "you won: {name} resigned at {x}–{y}", name=game.name(Player(resigned)), x=x, y=y
            )
        return _("{name} resigned at {x}–{y}", name=game.name(Player(resigned)), x=x, y=y)
    rest = game.report.reason in ("rest-won", "rest-refused")
    if word == "won" and rest:
        return _("you won on “my rest”, {x}–{y}", x=x, y=y)
    if word == "lost" and rest:
        return _("you lost on “my rest”, {x}–{y}", x=x, y=y)
    if word == "won":
        return _("you won {x}–{y}", x=x, y=y)
    if word == "lost":
        return _("you lost {x}–{y}", x=x, y=y)
    winner = game.report.winner
    if winner is not None and game.finished:
        return _("{name} won {x}–{y}", name=game.name(Player(winner)), x=x, y=y)
    return _("at {x}–{y}", x=x, y=y)


def _opponent_text(game: GameFile) -> str:
    opp = _opponent(game)
    if opp is not None:
        return opp.text()
    if len(game.report.players) == 2:
        return _("{a} vs {b}", a=game.name(Player.P0), b=game.name(Player.P1))
    return "?"


def _status_text(game: GameFile) -> str:
    # Translators: the state of a game in the games list (a column)
    return {
        "finished": _("finished"),
        "unfinished": _("unfinished"),
        "resumable": _("resumable"),
    }[game.status]


def records_of(games: list[GameFile]) -> list[tuple[Opponent, int, int]]:
    """(opponent, won, lost) over the finished games that verify, most played first."""
    tally: dict[str, tuple[Opponent, int, int]] = {}
    for game in games:
        opp, word = _opponent(game), _result_word(game)
        if opp is None or word is None or not game.verifies:
            continue
        _o, won, lost = tally.get(opp.key, (opp, 0, 0))
        tally[opp.key] = (opp, won + (word == "won"), lost + (word == "lost"))
    return sorted(tally.values(), key=lambda r: (-(r[1] + r[2]), r[0].name))


def abandons_of(games: list[GameFile]) -> dict[str, tuple[Opponent, int]]:
    """Opponent key (:attr:`Opponent.key`) -> (opponent, the games whose chain verifies up to the
    abort where it abandoned us), as our transcripts say: unconfirmed (wire.md 13.4)."""
    tally: dict[str, tuple[Opponent, int]] = {}
    for game in games:
        opp = _opponent(game)
        # the chain verifies up to the abort (an aborted game never "verifies")
        intact = game.damage is None and game.report.error_code == "aborted"
        if opp is None or not intact or game.owner is None:
            continue
        if game.abandoned_by is game.owner.other:
            _o, n = tally.get(opp.key, (opp, 0))
            tally[opp.key] = (opp, n + 1)
    return tally


def game_json(game: GameFile, match: str | None = None) -> dict[str, Any]:
    report = game.report
    opp = _opponent(game)
    me = None
    if game.owner is not None and game.owner < len(report.players):
        info = report.players[game.owner]
        me = {"name": info.name, "fingerprint": info.fingerprint}
    scores = _scores(game)
    return {
        "file": str(game.path),
        "date": game.when.isoformat(timespec="seconds"),
        "game_id": report.game_id,
        "seat": int(game.owner) if game.owner is not None else None,
        "you": me,
        "opponent": None
        if opp is None
        else {"name": opp.name, "fingerprint": opp.fingerprint, "level": opp.level},
        "players": [{"name": p.name, "fingerprint": p.fingerprint} for p in report.players],
        "result": _result_word(game),
        # the seat that left, as the one who stayed recorded it (unconfirmed)
        "abandoned_by": int(game.abandoned_by) if game.abandoned_by is not None else None,
        "winner": report.winner,
        "reason": report.reason,
        "score": None
        if scores is None
        else {"you": scores[0], "opponent": scores[1]}
        if game.owner is not None
        else None,
        "scores": list(report.score) if report.score is not None else None,
        "hands": report.hands,
        "resigned_by": report.resigned_by,
        "match": match,
        "status": game.status,
        "verifies": game.verifies,
        "error_code": game.damage if game.damage and report.valid else report.error_code,
        "deck": report.deck,
    }


def game_row(g: GameFile) -> tuple[str, str, str, str, str, str]:
    """One game's cells: date, opponent, result, hands, state, verified."""
    return (
        g.when.strftime("%Y-%m-%d %H:%M"),
        _opponent_text(g),
        _result_text(g),
        str(g.report.hands),
        _status_text(g),
        _checked_text(g),
    )


def _checked_text(game: GameFile) -> str:
    # Translators: the "verified" column of the games list; "so far": the game
    # stopped before its end and every message up to there checks
    return {"yes": _("yes"), "so far": _("so far"), "no": _("NO")}[game.checked]


def record_line(opp: Opponent, won: int, lost: int, left: int = 0) -> str:
    """ "against bob (…): won 2 games, lost 1 game" in the language in use."""
    facts = {
        "name": opp.text(),
        "won": ngettext("won {n} game", "won {n} games", won),
        "lost": ngettext("lost {n} game", "lost {n} games", lost),
    }
    if left:
        abandoned = ngettext(
            "abandoned by them {n} time (unconfirmed)",
            "abandoned by them {n} times (unconfirmed)",
            left,
        )
        return _("against {name}: {won}, {lost}, {abandoned}", abandoned=abandoned, **facts)
    return _("against {name}: {won}, {lost}", **facts)


@dataclass(frozen=True)
class GameGroup:
    """One line of the history: a game alone, or a match and its games."""

    games: list[GameFile]
    match: MatchFile | None = None

    @property
    def when(self) -> tuple[Any, str]:
        newest = max(self.games, key=lambda g: (g.when, g.path.name))
        return newest.when, newest.path.name


def grouped(games: list[GameFile], matches: list[MatchFile]) -> list[GameGroup]:
    """The games, newest first, those of a match together (in the order played)
    under the match, placed by its latest game."""
    by_name = {g.path.name: g for g in games}
    groups: list[GameGroup] = []
    taken: set[str] = set()
    for match in matches:
        members = [by_name[n] for n in match.transcripts if n in by_name and n not in taken]
        if members:
            taken.update(g.path.name for g in members)
            groups.append(GameGroup(members, match))
    groups += [GameGroup([g]) for g in games if g.path.name not in taken]
    groups.sort(key=lambda grp: grp.when, reverse=True)
    return groups


def match_heading(match: MatchFile, game: GameFile) -> str:
    """ "match of 3 games against bob: you won 2–1" from the owner's side of ``game``."""
    owner = game.owner
    opp = _opponent(game)
    against = opp.text() if opp is not None else _opponent_text(game)
    mine, theirs = match.wins if owner is not Player.P1 else (match.wins[1], match.wins[0])
    if owner is None:
        state = f"{mine}–{theirs}"
    elif match.decided is None:
        state = _("not finished, you {x}–{y}", x=mine, y=theirs)
    elif match.decided == owner:
        state = _("you won {x}–{y}", x=mine, y=theirs)
    else:
        state = _("you lost {x}–{y}", x=mine, y=theirs)
    return ngettext(
        "match of {n} game against {name}: {state}",
        "match of {n} games against {name}: {state}",
        match.games,
        name=against,
        state=state,
    )
