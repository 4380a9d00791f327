"""The presentation layer: the table model, the texts, the terminal and the web player.

Other parts import these names from ``truc_p2p.ui`` only, never from its private
modules.  Each name is imported from its module on first use (PEP 562), so that
``truc-p2p verify`` loads its texts without the terminal, the web player or trio.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._answers import is_no, is_yes, no_word, yes_word
    from ._lesson import LESSON_STEPS, lesson_end, run_lesson, run_web_lesson
    from ._narrate import Narrator, Tally, describe
    from ._notice_text import notice_text
    from ._outcome_text import headline, headline_key, outcome_text, score_label
    from ._screen import Screen
    from ._table import TableModel, TableView
    from ._texts import bot_player_name, fit, fit_for, screen_width
    from ._tui import Clocks, StdinLines, TerminalPlayer, with_terminal
    from ._variants import VARIANTS, rules_words, variants_json
    from ._voice import Voice
    from ._web import (
        TableFeed,
        TableServer,
        WebPlayer,
        action_buttons,
        bind_table,
        card_json,
        final_message,
        page_texts,
        serve_table,
        table_state,
        verdict_json,
    )

__all__ = [
    "LESSON_STEPS",
    "VARIANTS",
    "Clocks",
    "Narrator",
    "Screen",
    "StdinLines",
    "TableFeed",
    "TableModel",
    "TableServer",
    "TableView",
    "Tally",
    "TerminalPlayer",
    "Voice",
    "WebPlayer",
    "action_buttons",
    "bind_table",
    "bot_player_name",
    "card_json",
    "describe",
    "final_message",
    "fit",
    "fit_for",
    "headline",
    "headline_key",
    "is_no",
    "is_yes",
    "lesson_end",
    "no_word",
    "notice_text",
    "outcome_text",
    "page_texts",
    "rules_words",
    "run_lesson",
    "run_web_lesson",
    "score_label",
    "screen_width",
    "serve_table",
    "table_state",
    "variants_json",
    "verdict_json",
    "with_terminal",
    "yes_word",
]

#: The private module each public name lives in.
_HOME: dict[str, str] = {
    **dict.fromkeys(["is_no", "is_yes", "no_word", "yes_word"], "_answers"),
    **dict.fromkeys(["LESSON_STEPS", "lesson_end", "run_lesson", "run_web_lesson"], "_lesson"),
    **dict.fromkeys(["Narrator", "Tally", "describe"], "_narrate"),
    **dict.fromkeys(["notice_text"], "_notice_text"),
    **dict.fromkeys(["headline", "headline_key", "outcome_text", "score_label"], "_outcome_text"),
    **dict.fromkeys(["Screen"], "_screen"),
    **dict.fromkeys(["TableModel", "TableView"], "_table"),
    **dict.fromkeys(["bot_player_name", "fit", "fit_for", "screen_width"], "_texts"),
    **dict.fromkeys(["VARIANTS", "rules_words", "variants_json"], "_variants"),
    **dict.fromkeys(["Voice"], "_voice"),
    **dict.fromkeys(["Clocks", "StdinLines", "TerminalPlayer", "with_terminal"], "_tui"),
    **dict.fromkeys(
        [
            "TableFeed",
            "TableServer",
            "WebPlayer",
            "action_buttons",
            "bind_table",
            "card_json",
            "final_message",
            "page_texts",
            "serve_table",
            "table_state",
            "verdict_json",
        ],
        "_web",
    ),
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
