"""``truc-p2p games --web``: the history page, each game a link to its replay.

The page (``games.html``) gets the list as one JSON message; a replay link
opens ``replay.html?game=N`` on the same server, whose page asks for game N
(``{"type": "open", "game": N}``) and gets its replay pushed back, built on
first demand with :func:`._replay_steps.build_replay` (only played cards, and the
owner's own hands when :func:`._replay_own.own_hands` finds them).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from truc_p2p.history._games import game_row, record_line, records_of
from truc_p2p.history._record import GameFile
from truc_p2p.history._replay_own import own_hands
from truc_p2p.history._replay_steps import build_replay
from truc_p2p.history._replay_web import PageLanguage, Review, menu_json, replay_json, serve_page
from truc_p2p.i18n import _, current

__all__ = ["HistoryTable", "serve_history"]


class HistoryTable:
    """What the server shows: the list of games, and a game's replay on demand."""

    def __init__(
        self,
        folder: Path,
        games: list[GameFile],
        *,
        lang_pinned: bool = False,
        matches: Sequence[tuple[int, int, Callable[[], str]]] = (),
        review: Review | None = None,
    ) -> None:
        self.folder = folder
        #: a game's review, shown under its replay (``None``: none)
        self.review = review
        self.games = games
        #: the matches of the list: their first game's index, how many games, and the
        #: heading above them in the language in use ("match of 3 games against bob:
        #: you won 2–1"); the list keeps a match's games together
        self.matches = tuple(matches)
        self.server: Any = None
        self.language = PageLanguage(lang_pinned)
        #: replays by game and language; the games a page opened
        self._replays: dict[tuple[int, str], dict[str, Any]] = {}
        self._opened: set[int] = set()
        self._listings: dict[str, dict[str, Any]] = {}

    @property
    def listing(self) -> dict[str, Any]:
        """The list of games in the language now in use."""
        code = current()
        if code not in self._listings:
            self._listings[code] = self._listing()
        return self._listings[code]

    def _listing(self) -> dict[str, Any]:
        folder, games = self.folder, self.games
        header = (_("date"), _("opponent"), _("result"), _("hands"), _("state"), _("verified"))
        return {
            "type": "games",
            "folder": str(folder),
            "columns": list(header),
            "games": [
                {
                    "game": i,
                    "file": g.path.name,
                    "cells": list(game_row(g)),
                    "ok": g.verifies,
                    "checked": g.checked,
                    "match": next((said() for at, _n, said in self.matches if at == i), None),
                    "in_match": any(at <= i < at + n for at, n, _said in self.matches),
                }
                for i, g in enumerate(games)
            ],
            "records_title": _("your record:"),
            "records": [record_line(o, won, lost) for o, won, lost in records_of(games)],
            "labels": {
                "title": _("your games in {dir}", dir=folder),
                "replay": _("replay"),
                "none": _("no games in {dir}", dir=folder),
            },
            "menu": menu_json(),
        }

    def _replay(self, game: int) -> dict[str, Any]:
        key = (game, current())
        if key not in self._replays:
            record = self.games[game]
            replay = build_replay(record, own=own_hands(record))  # its owner's hands too
            review = None if self.review is None else self.review(record)
            self._replays[key] = {**replay_json(replay, review), "game": game}
        return self._replays[key]

    def greet(self, accept_language: str) -> None:
        self.language.greet(accept_language)

    def snapshot(self) -> list[dict[str, Any]]:
        return [self.listing]

    def receive(self, message: dict[str, Any]) -> None:
        """``{"type": "open", "game": N}``: push game N's replay to the pages; the
        language menu: the list and the open replays again in that language."""
        if self.language.choose(message):
            if self.server is not None:
                self.server.publish(self.listing)
                for opened in sorted(self._opened):
                    self.server.publish(self._replay(opened))
            return
        game = message.get("game")
        if message.get("type") != "open" or type(game) is not int:
            return
        if not 0 <= game < len(self.games):
            return
        self._opened.add(game)
        if self.server is not None:
            self.server.publish(self._replay(game))


def serve_history(
    folder: Path,
    games: list[GameFile],
    *,
    port: int,
    browser: bool,
    lang_pinned: bool = False,
    matches: Sequence[tuple[int, int, Callable[[], str]]] = (),
    review: Review | None = None,
) -> int:
    """``games --web``: the history page until Ctrl-C (``lang_pinned``: ``--lang`` was
    given, the browser's language does not decide; ``review``: each game's review,
    under its replay)."""
    return serve_page(
        HistoryTable(folder, games, lang_pinned=lang_pinned, matches=matches, review=review),
        command="games",
        page="games.html",
        title=_("your games in {dir}", dir=folder),
        port=port,
        browser=browser,
    )
