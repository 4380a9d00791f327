"""``truc-p2p games [DIR]``: the games in a folder, newest first, and a record per
opponent (:mod:`truc_p2p.history` reads and groups the files): which folders it lists,
and the listing as a table, as JSON or served on a page.

Exit status: 0 when every game file was read; 1 when the list was printed
but some file could not be read (each named on one line); 2 when the folder
is missing or cannot be read, or the page cannot be served.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from truc_p2p.cli._parser import COMMAND_HELP
from truc_p2p.cli._replay import port_number
from truc_p2p.history import (
    GAMES_FOLDER_HELP,
    LEGACY_FOLDER,
    GameFile,
    GameGroup,
    MatchFile,
    Opponent,
    UnreadableGame,
    abandons_of,
    default_games_folder,
    game_json,
    game_row,
    grouped,
    list_games,
    match_heading,
    read_matches,
    record_line,
    records_of,
    started,
)
from truc_p2p.i18n import N_, _, ngettext

__all__ = ["games_command", "register"]


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "games",
        help=_(COMMAND_HELP["games"]),
        description=_(
            "List the game transcripts in DIR (default: your games folder, and games/ "
            "in the current folder if there is one), newest first, the games of a match "
            "together, and your record against each opponent (one per bot level). Exit 0 "
            "when every file was read, 1 when some file could not be read (named on its own "
            "line), 2 when DIR is missing or unreadable."
        ),
    )
    parser.add_argument(
        "dir",
        nargs="?",
        default=None,
        metavar="DIR",
        help=_(GAMES_FOLDER_HELP, path=str(default_games_folder()).replace("%", "%%")),
    )
    parser.add_argument("--json", action="store_true", help=_("print one JSON object"))
    web = parser.add_argument_group(_("web page"))
    web.add_argument(
        "--web", action="store_true", help=_("show the list in your browser, each game a replay")
    )
    web.add_argument(
        "--web-port", type=port_number, default=0, metavar="N", help=_("port on 127.0.0.1")
    )
    web.add_argument("--no-browser", action="store_true", help=_("with --web: only print the URL"))
    parser.set_defaults(func=games_command)


def _print_table(groups: list[GameGroup]) -> None:
    # Translators: column headings of the games list: "hands" is how many hands the
    # game lasted, "state" finished / unfinished / resumable, "verified" yes / so far / NO
    header = (_("date"), _("opponent"), _("result"), _("hands"), _("state"), _("verified"))
    lines: list[str | tuple[str, ...]] = [header]
    for group in groups:
        if group.match is not None:
            lines.append(match_heading(group.match, group.games[0]))
            for g in group.games:
                date, *rest = game_row(g)
                lines.append(("  " + date, *rest))
        else:
            lines.append(game_row(group.games[0]))
    rows = [line for line in lines if isinstance(line, tuple)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    for line in lines:
        if isinstance(line, str):
            print(line)
        else:
            print("  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)).rstrip())


def _folders(args: argparse.Namespace) -> tuple[Path, list[Path]]:
    """The folder to list, and the older folders listed with it: ``games/`` here,
    where earlier versions wrote, when no DIR was given and it is another folder."""
    if args.dir is not None:
        return Path(args.dir), []
    folder = default_games_folder()
    try:
        same = LEGACY_FOLDER.resolve() == folder.resolve()
    except OSError:
        same = False
    extra = [LEGACY_FOLDER] if LEGACY_FOLDER.is_dir() and not same else []
    return folder, extra


def _my_fingerprint() -> str | None:
    """The fingerprint of this person's key (``None``: it has none yet)."""
    from truc_p2p.identity import IdentityError, default_identity_path, load_identity

    try:
        return load_identity(default_identity_path()).fingerprint
    except (IdentityError, OSError, ValueError):
        return None


def _yours(game: GameFile, mine: str | None) -> bool:
    """Whether this person played ``game``: its owner ("you") is known and is this
    person's key, or it is a game against a bot of ``play`` (a key of that game only)."""
    owner = game.owner
    if owner is None:
        return False  # whose it is, nothing beside it says: neither player is "you"
    if game.bot is not None:
        return True
    players = game.report.players
    return mine is not None and owner < len(players) and players[owner].fingerprint == mine


@dataclass
class _History:
    """What ``truc-p2p games`` read: the folder, the older ones listed with it, their
    games, matches and unreadable files."""

    folder: Path
    older: list[Path]
    games: list[GameFile]
    matches: list[MatchFile]
    bad: list[UnreadableGame]


def _read_history(args: argparse.Namespace) -> _History | None:
    """The folder (``None``: it cannot be listed, said on stderr and in ``--json``)."""
    folder, older = _folders(args)
    legacy = False  # the folder listed is ./games, which other programs write too
    try:
        if not folder.is_dir():
            if older and not folder.exists():
                # nothing written to the new place yet: the old folder is the history
                print(
                    _(
                        "truc-p2p games: listing {old} in this folder, where earlier "
                        "versions wrote; new games go to {dir}",
                        old=older[0],
                        dir=folder,
                    ),
                    file=sys.stderr,
                )
                folder, older, legacy = older[0], [], True
            else:
                # English in the JSON (language-neutral), translated for the person
                reason = N_("no such folder") if not folder.exists() else N_("not a folder")
                raise NotADirectoryError(reason)
        games, bad = list_games(folder, progress=sys.stderr.isatty())
        matches, bad_matches = read_matches(folder)
        mine = _my_fingerprint() if older or legacy else None
        if legacy:  # only the games this person played (not the demo's bots')
            games = [g for g in games if _yours(g, mine)]
        for extra in older:
            more, more_bad = list_games(extra, progress=sys.stderr.isatty())
            # a folder other programs write too (the demo's bots, a friend's host):
            # only the games this person played
            more = [g for g in more if _yours(g, mine)]
            more_matches, more_bad_matches = read_matches(extra)
            games += more
            bad += more_bad
            matches += more_matches
            bad_matches += more_bad_matches
            if not more and not more_bad:
                continue
            print(
                _(
                    "truc-p2p games: also listing {old} in this folder, where earlier "
                    "versions wrote; move its files into {dir} to keep one history",
                    old=extra,
                    dir=folder,
                ),
                file=sys.stderr,
            )
        bad += bad_matches
    except OSError as exc:
        reason = exc.strerror or str(exc)
        if args.json:
            print(json.dumps({"folder": str(folder), "error": reason}))
        print(
            _("truc-p2p games: cannot list {dir}: {reason}", dir=folder, reason=_(reason)),
            file=sys.stderr,
        )
        return None
    return _History(folder, older, games, matches, bad)


def games_command(args: argparse.Namespace) -> int:
    """``truc-p2p games``: list, print as JSON or serve the history (the exit status
    of the module docstring of :mod:`._games`)."""
    history = _read_history(args)
    if history is None:
        return 2
    folder, bad = history.folder, history.bad
    games = history.games
    never = [g for g in games if not started(g)]
    games = [g for g in games if started(g)]
    games.sort(key=lambda g: (g.when, g.path.name), reverse=True)
    groups = grouped(games, history.matches)
    records = records_of(games)
    if args.web:
        from truc_p2p.cli._review import review_or_none
        from truc_p2p.history import serve_history

        for b in bad:
            print(
                _("truc-p2p games: cannot read {file}: {reason}", file=b.path, reason=b.reason),
                file=sys.stderr,
            )
        matches: list[tuple[int, int, Callable[[], str]]] = []
        first = 0
        for grp in groups:  # a match's heading above its games, as the list prints it
            if grp.match is not None and grp.games:
                said = functools.partial(match_heading, grp.match, grp.games[0])
                matches.append((first, len(grp.games), said))
            first += len(grp.games)
        served = serve_history(
            folder,
            [g for grp in groups for g in grp.games],
            matches=matches,
            port=args.web_port,
            browser=not args.no_browser,
            lang_pinned=getattr(args, "lang", None) is not None,
            review=review_or_none,  # each of the reader's games: the review under the replay
        )
        return served if served else (1 if bad else 0)
    if args.json:
        print(json.dumps(_history_json(history, groups, records, never)))
    else:
        _print_history(folder, games, groups, records, never)
    for b in bad:
        print(
            _("truc-p2p games: cannot read {file}: {reason}", file=b.path, reason=b.reason),
            file=sys.stderr,
        )
    return 1 if bad else 0


def _history_json(
    history: _History,
    groups: list[GameGroup],
    records: list[tuple[Opponent, int, int]],
    never: list[GameFile],
) -> dict[str, Any]:
    """The ``--json`` object: the games by match, the matches, the record per opponent."""
    match_of = {g.path.name: grp.match.match_id for grp in groups if grp.match for g in grp.games}
    return {
        "folder": str(history.folder),
        "also": [str(f) for f in history.older],
        "games": [game_json(g, match_of.get(g.path.name)) for grp in groups for g in grp.games],
        "matches": [
            {
                "file": str(grp.match.path),
                "match_id": grp.match.match_id,
                "games": grp.match.games,
                "wins": list(grp.match.wins),
                "winner": grp.match.decided,
                "left": grp.match.left,
                "transcripts": [str(g.path) for g in grp.games],
            }
            for grp in groups
            if grp.match is not None
        ],
        "records": [
            {
                "opponent": {
                    "name": o.name,
                    "fingerprint": o.fingerprint,
                    "level": o.level,
                },
                "won": won,
                "lost": lost,
            }
            for o, won, lost in records
        ],
        "not_started": [str(g.path) for g in never],
        "unreadable": [{"file": str(b.path), "error": b.reason} for b in history.bad],
    }


def _print_history(
    folder: Path,
    games: list[GameFile],
    groups: list[GameGroup],
    records: list[tuple[Opponent, int, int]],
    never: list[GameFile],
) -> None:
    """The text listing: the table, the record per opponent, the counts."""
    if games:
        _print_table(groups)
    else:
        print(_("no games in {dir}", dir=folder))
    abandons = abandons_of(games)
    rows = [(o, won, lost, abandons.pop(o.key, (o, 0))[1]) for o, won, lost in records]
    rows += [(o, 0, 0, n) for o, n in abandons.values()]
    if rows:
        print()
        print(_("your record:"))
        for opp, won, lost, left in rows:
            print("  " + record_line(opp, won, lost, left))
    total = len(games)
    if total:
        print(ngettext("{n} game", "{n} games", total))
    if never:
        print(
            ngettext(
                "{n} connection that never reached the deal is not listed",
                "{n} connections that never reached the deal are not listed",
                len(never),
            )
        )
