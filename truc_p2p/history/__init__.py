"""Played games on disk: records, the games list, replay, export, matches (the
commands that show them, ``games``, ``replay`` and ``export``, are :mod:`truc_p2p.cli`'s).

Other parts import these names from ``truc_p2p.history`` only, never from its
private modules.  Each name is imported from its module on first use (PEP 562),
as in :mod:`truc_p2p.ui`, so that a command loads only what it uses.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._export import FORMAT, ParsedRecord, export_record, parse_record
    from ._folder import GAMES_FOLDER_HELP, default_games_folder
    from ._games import (
        LEGACY_FOLDER,
        GameGroup,
        MatchFile,
        Opponent,
        abandons_of,
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
    from ._games_web import HistoryTable, serve_history
    from ._match import MATCH_FORMAT, MatchError, MatchRecord, MatchReport, to_win, verify_match
    from ._record import Checked, GameFile, Move, Status, UnreadableGame, public_moves, read_game
    from ._replay_own import own_hands
    from ._replay_steps import Replay, ReplayStep, build_replay
    from ._replay_web import PageLanguage, ReplayTable, menu_json, replay_json, serve_replay

__all__ = [
    "FORMAT",
    "GAMES_FOLDER_HELP",
    "LEGACY_FOLDER",
    "MATCH_FORMAT",
    "Checked",
    "GameFile",
    "GameGroup",
    "HistoryTable",
    "MatchError",
    "MatchFile",
    "MatchRecord",
    "MatchReport",
    "Move",
    "Opponent",
    "PageLanguage",
    "ParsedRecord",
    "Replay",
    "ReplayStep",
    "ReplayTable",
    "Status",
    "UnreadableGame",
    "abandons_of",
    "build_replay",
    "default_games_folder",
    "export_record",
    "game_json",
    "game_row",
    "grouped",
    "list_games",
    "match_heading",
    "menu_json",
    "own_hands",
    "parse_record",
    "public_moves",
    "read_game",
    "read_matches",
    "record_line",
    "records_of",
    "replay_json",
    "serve_history",
    "serve_replay",
    "started",
    "to_win",
    "verify_match",
]

#: The private module each public name lives in.
_HOME: dict[str, str] = {
    **dict.fromkeys(["FORMAT", "ParsedRecord", "export_record", "parse_record"], "_export"),
    **dict.fromkeys(["GAMES_FOLDER_HELP", "default_games_folder"], "_folder"),
    **dict.fromkeys(
        [
            "GameGroup",
            "LEGACY_FOLDER",
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
        ],
        "_games",
    ),
    **dict.fromkeys(["HistoryTable", "serve_history"], "_games_web"),
    **dict.fromkeys(
        ["MATCH_FORMAT", "MatchError", "MatchRecord", "MatchReport", "to_win", "verify_match"],
        "_match",
    ),
    **dict.fromkeys(
        ["Checked", "GameFile", "Move", "Status", "UnreadableGame", "public_moves", "read_game"],
        "_record",
    ),
    **dict.fromkeys(["own_hands"], "_replay_own"),
    **dict.fromkeys(["Replay", "ReplayStep", "build_replay"], "_replay_steps"),
    **dict.fromkeys(
        ["PageLanguage", "ReplayTable", "menu_json", "replay_json", "serve_replay"], "_replay_web"
    ),
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
