"""``truc-p2p games [DIR]``: the games in a folder, newest first, and a record per opponent.

Every transcript in the folder (default ``games/``, where the commands write)
is read and verified; ``.bot/`` (the bot's side of ``play`` games), hidden
files and the files written beside a transcript (``*.secret``,
``*.meta.json``, ``*.key``) are skipped.  "You" is the player whose secret
(or ``.meta.json``) lies beside the transcript.  ``--web`` shows the list on
a page where each game opens its replay (:mod:`._games_web`).

Exit status: 0 when every game file was read; 1 when the list was printed
but some file could not be read (each named on one line); 2 when the folder
is missing or cannot be read, or the page cannot be served.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from truc_p2p.history._record import GameFile, UnreadableGame, read_game
from truc_p2p.history._replay import port_number
from truc_p2p.rules import Player
from truc_p2p.ui import N_, _, ngettext

__all__ = ["game_row", "list_games", "records_of", "register"]

#: Files the commands write beside a transcript, never transcripts themselves.
SKIPPED_SUFFIXES = (".secret", ".meta.json", ".key", ".tmp", ".opponent")
#: Characters of a fingerprint shown (as in the game screens).
FP = 16


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "games",
        help=_("list the games in a folder: date, opponent, result, verified; record per opponent"),
        description=_(
            "List the game transcripts in DIR (default games/), newest first, "
            "and your record against each opponent. Exit 0 when every file was read, 1 when "
            "some file could not be read (named on its own line), 2 when DIR is missing or "
            "unreadable."
        ),
    )
    parser.add_argument("dir", nargs="?", default="games", metavar="DIR", help=_("default games/"))
    parser.add_argument("--json", action="store_true", help=_("print one JSON object"))
    web = parser.add_argument_group(_("web page"))
    web.add_argument(
        "--web", action="store_true", help=_("show the list in your browser, each game a replay")
    )
    web.add_argument(
        "--web-port", type=port_number, default=0, metavar="N", help=_("port on 127.0.0.1")
    )
    web.add_argument("--no-browser", action="store_true", help=_("with --web: only print the URL"))
    parser.set_defaults(func=_games)


def _candidates(folder: Path) -> list[Path]:
    return sorted(
        p
        for p in folder.iterdir()
        if not p.name.startswith(".") and not p.name.endswith(SKIPPED_SUFFIXES) and not p.is_dir()
    )


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
class _Opponent:
    name: str
    fingerprint: str


def _opponent(game: GameFile) -> _Opponent | None:
    if game.owner is None or len(game.report.players) < 2:
        return None
    info = game.report.players[game.owner.other]
    return _Opponent(info.name, info.fingerprint)


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
        return _("{name} ({fp})", name=opp.name, fp=opp.fingerprint[:FP])
    if len(game.report.players) == 2:
        return _("{a} vs {b}", a=game.name(Player.P0), b=game.name(Player.P1))
    return "?"


def _status_text(game: GameFile) -> str:
    return {
        "finished": _("finished"),
        "unfinished": _("unfinished"),
        "resumable": _("resumable"),
    }[game.status]


def records_of(games: list[GameFile]) -> list[tuple[_Opponent, int, int]]:
    """(opponent, won, lost) over the finished games that verify, most played first."""
    tally: dict[str, tuple[_Opponent, int, int]] = {}
    for game in games:
        opp, word = _opponent(game), _result_word(game)
        if opp is None or word is None or not game.verifies:
            continue
        _o, won, lost = tally.get(opp.fingerprint, (opp, 0, 0))
        tally[opp.fingerprint] = (opp, won + (word == "won"), lost + (word == "lost"))
    return sorted(tally.values(), key=lambda r: (-(r[1] + r[2]), r[0].name))


def abandons_of(games: list[GameFile]) -> dict[str, tuple[_Opponent, int]]:
    """Opponent fingerprint -> (opponent, the games whose chain verifies up to the
    abort where it abandoned us), as our transcripts say: unconfirmed (wire.md 13.4)."""
    tally: dict[str, tuple[_Opponent, int]] = {}
    for game in games:
        opp = _opponent(game)
        # the chain verifies up to the abort (an aborted game never "verifies")
        intact = game.damage is None and game.report.error_code == "aborted"
        if opp is None or not intact or game.owner is None:
            continue
        if game.abandoned_by is game.owner.other:
            _o, n = tally.get(opp.fingerprint, (opp, 0))
            tally[opp.fingerprint] = (opp, n + 1)
    return tally


def _game_json(game: GameFile) -> dict[str, Any]:
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
        "opponent": None if opp is None else {"name": opp.name, "fingerprint": opp.fingerprint},
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
        _("yes") if g.verifies else _("NO"),
    )


def _print_table(games: list[GameFile]) -> None:
    header = (_("date"), _("opponent"), _("result"), _("hands"), _("state"), _("verified"))
    rows = [game_row(g) for g in games]
    widths = [max(len(r[i]) for r in (header, *rows)) for i in range(len(header))]
    for row in (header, *rows):
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())


def _games(args: argparse.Namespace) -> int:
    folder = Path(args.dir)
    try:
        if not folder.is_dir():
            # English in the JSON (language-neutral), translated for the person
            reason = N_("no such folder") if not folder.exists() else N_("not a folder")
            raise NotADirectoryError(reason)
        games, bad = list_games(folder, progress=sys.stderr.isatty())
    except OSError as exc:
        reason = exc.strerror or str(exc)
        if args.json:
            print(json.dumps({"folder": str(folder), "error": reason}))
        print(
            _("truc-p2p games: cannot list {dir}: {reason}", dir=folder, reason=_(reason)),
            file=sys.stderr,
        )
        return 2
    records = records_of(games)
    if args.web:
        from truc_p2p.history._games_web import serve_history

        for b in bad:
            print(
                _("truc-p2p games: cannot read {file}: {reason}", file=b.path, reason=b.reason),
                file=sys.stderr,
            )
        served = serve_history(
            folder,
            games,
            port=args.web_port,
            browser=not args.no_browser,
            lang_pinned=getattr(args, "lang", None) is not None,
        )
        return served if served else (1 if bad else 0)
    if args.json:
        print(
            json.dumps(
                {
                    "folder": str(folder),
                    "games": [_game_json(g) for g in games],
                    "records": [
                        {
                            "opponent": {"name": o.name, "fingerprint": o.fingerprint},
                            "won": won,
                            "lost": lost,
                        }
                        for o, won, lost in records
                    ],
                    "unreadable": [{"file": str(b.path), "error": b.reason} for b in bad],
                }
            )
        )
    else:
        if games:
            _print_table(games)
        else:
            print(_("no games in {dir}", dir=folder))
        abandons = abandons_of(games)
        rows = [(o, won, lost, abandons.pop(o.fingerprint, (o, 0))[1]) for o, won, lost in records]
        rows += [(o, 0, 0, n) for o, n in abandons.values()]
        if rows:
            print()
            print(_("your record:"))
            for opp, won, lost, left in rows:
                facts = {"name": opp.name, "fp": opp.fingerprint[:FP], "won": won, "lost": lost}
                if left:
                    line = _(
                        "against {name} ({fp}): won {won}, lost {lost}, "
                        "abandoned by them {left} (unconfirmed)",
                        left=left,
                        **facts,
                    )
                else:
                    line = _("against {name} ({fp}): won {won}, lost {lost}", **facts)
                print("  " + line)
        total = len(games)
        if total:
            print(ngettext("{n} game", "{n} games", total))
    for b in bad:
        print(
            _("truc-p2p games: cannot read {file}: {reason}", file=b.path, reason=b.reason),
            file=sys.stderr,
        )
    return 1 if bad else 0
