"""Where a person's games are kept: one folder per person by default."""

from __future__ import annotations

from pathlib import Path
from typing import Final

from truc_p2p.i18n import N_

__all__ = ["GAMES_FOLDER_HELP", "default_games_folder"]

#: The ``--out``/``games DIR`` help (``{path}``: the default folder).
GAMES_FOLDER_HELP: Final = N_("folder of your games (default {path}, or $TRUC_P2P_GAMES if set)")


def default_games_folder() -> Path:
    """The games folder the commands write to and ``games`` lists by default
    (:func:`truc_p2p.identity.default_games_dir`); ``games`` in the current
    folder, as before, when there is no home directory to keep it in."""
    from truc_p2p.identity import IdentityError, default_games_dir

    try:
        return default_games_dir()
    except IdentityError:
        return Path("games")
