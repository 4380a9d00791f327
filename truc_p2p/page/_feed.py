"""The table's model in the page: :class:`~truc_p2p.ui.TableFeed` (the ``--web``
player's own), whose answers go straight to the game instead of waking trio tasks."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from truc_p2p.rules import Action
from truc_p2p.ui import TableFeed, page_texts

__all__ = ["Answers", "PageFeed"]


class Answers(Protocol):
    """Who takes the page's answers (the :class:`~.PageApp`)."""

    def picked(self, choice: Action | None) -> None: ...
    def again(self, yes: bool) -> None: ...
    def level_chosen(self) -> None: ...
    def leave_now(self) -> bool: ...


class PageFeed(TableFeed):
    """The table of the page's player; ``answers`` acts on what the page sends."""

    def __init__(
        self,
        my_name: str,
        *,
        now: Callable[[], float],
        answers: Answers,
        match_games: int = 1,
    ) -> None:
        super().__init__(my_name, now=now, lang_pinned=True, match_games=match_games)
        self._answers = answers

    def publish_texts(self) -> None:
        """The table's fixed texts and the whole table again (after the language)."""
        self._send({"type": "texts", **page_texts()})
        self._push()

    def notice(self, text: str) -> None:
        """One line on the table (a relay's refusal, a step of the handshake)."""
        self._send({"type": "notice", "text": text})

    def _picked(self, choice: Action | None) -> None:
        self._answers.picked(choice)

    def _answer_again(self, yes: bool) -> None:
        self.asking_again = False
        self._answers.again(yes)

    def _answer_level(self) -> None:
        self._answers.level_chosen()

    def _leave_now(self) -> bool:
        return self._answers.leave_now()

    def _concede_now(self) -> bool:
        # ``concedes`` is set: the game's side signs the concession's detail (4.1)
        return self._answers.leave_now()
