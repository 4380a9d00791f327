"""``truc-p2p games --web``: the history page, each game a link to its replay.

The page (``games.html``) gets the list as one JSON message; a replay link
opens ``replay.html?game=N`` on the same server, whose page asks for game N
(``{"type": "open", "game": N}``) and gets its replay pushed back, built on
first demand with :func:`._replay_steps.build_replay` (only played cards).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from truc_p2p.cli._games import game_row, records_of
from truc_p2p.cli._i18n import _
from truc_p2p.cli._record import GameFile
from truc_p2p.cli._replay_steps import build_replay
from truc_p2p.cli._replay_web import replay_json, serve_page

__all__ = ["HistoryTable", "serve_history"]


class HistoryTable:
    """What the server shows: the list of games, and a game's replay on demand."""

    def __init__(self, folder: Path, games: list[GameFile]) -> None:
        self.games = games
        self.server: Any = None
        self._replays: dict[int, dict[str, Any]] = {}
        header = (_("date"), _("opponent"), _("result"), _("hands"), _("state"), _("verified"))
        self.listing: dict[str, Any] = {
            "type": "games",
            "folder": str(folder),
            "columns": list(header),
            "games": [
                {"game": i, "file": g.path.name, "cells": list(game_row(g)), "ok": g.verifies}
                for i, g in enumerate(games)
            ],
            "records_title": _("your record:"),
            "records": [
                _(
                    "against {name} ({fp}): won {won}, lost {lost}",
                    name=o.name,
                    fp=o.fingerprint[:16],
                    won=won,
                    lost=lost,
                )
                for o, won, lost in records_of(games)
            ],
            "labels": {
                "title": _("your games in {dir}", dir=folder),
                "replay": _("replay"),
                "none": _("no games in {dir}", dir=folder),
            },
        }

    def snapshot(self) -> list[dict[str, Any]]:
        return [self.listing]

    def receive(self, message: dict[str, Any]) -> None:
        """``{"type": "open", "game": N}``: push game N's replay to the pages."""
        game = message.get("game")
        if message.get("type") != "open" or type(game) is not int:
            return
        if not 0 <= game < len(self.games):
            return
        if game not in self._replays:
            self._replays[game] = {**replay_json(build_replay(self.games[game])), "game": game}
        if self.server is not None:
            self.server.publish(self._replays[game])


def serve_history(folder: Path, games: list[GameFile], *, port: int, browser: bool) -> int:
    """``games --web``: the history page until Ctrl-C."""
    return serve_page(
        HistoryTable(folder, games),
        command="games",
        page="games.html",
        title=_("your games in {dir}", dir=folder),
        port=port,
        browser=browser,
    )
