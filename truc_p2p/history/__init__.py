"""Played games on disk: records, the games list, replay, export, matches.

Other parts import these names from ``truc_p2p.history`` only, never from its
private modules.  Each name is imported from its module on first use (PEP 562),
as in :mod:`truc_p2p.ui`, so that a command loads only what it uses.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._folder import GAMES_FOLDER_HELP, default_games_folder
    from ._match import MatchError, MatchRecord, verify_match
    from ._replay_web import PageLanguage, menu_json

__all__ = [
    "GAMES_FOLDER_HELP",
    "MatchError",
    "MatchRecord",
    "PageLanguage",
    "default_games_folder",
    "menu_json",
    "verify_match",
]

#: The private module each public name lives in.
_HOME: dict[str, str] = {
    **dict.fromkeys(["GAMES_FOLDER_HELP", "default_games_folder"], "_folder"),
    **dict.fromkeys(["MatchError", "MatchRecord", "verify_match"], "_match"),
    **dict.fromkeys(["PageLanguage", "menu_json"], "_replay_web"),
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
