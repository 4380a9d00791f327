"""The presentation layer: the table model, the texts, the terminal and the web player, i18n.

Other parts import these names from ``truc_p2p.ui`` only, never from its private
modules.  Each name is imported from its module on first use (PEP 562), so that
``truc-p2p verify`` loads its texts without the terminal, the web player or trio.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._answers import is_no, is_yes, no_word, yes_word
    from ._glyphs import use_ascii
    from ._i18n import (
        LANGUAGES,
        N_,
        UnknownLanguage,
        _,
        completeness,
        current,
        decimal,
        english,
        from_accept_language,
        install_argparse,
        ngettext,
        resolve,
        use_language,
    )
    from ._lesson import LESSON_STEPS, lesson_end, run_lesson, run_web_lesson
    from ._narrate import Narrator, Tally, describe
    from ._notice_text import notice_text
    from ._outcome_text import headline, headline_key, outcome_text, score_label
    from ._screen import Screen
    from ._table import TableModel, TableView
    from ._texts import bot_player_name, fit, fit_for, screen_width
    from ._tui import Clocks, StdinLines, TerminalPlayer, with_terminal
    from ._verdict import (
        EXIT_STATUS,
        report_json,
        scan_json,
        verdict_words,
        verify_bytes,
        verify_json,
        with_damage,
    )
    from ._verify_text import (
        EDITED,
        damage_line,
        evidence_said,
        reason_word,
        verify_headline,
        verify_summary,
    )
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
    "EDITED",
    "EXIT_STATUS",
    "LANGUAGES",
    "LESSON_STEPS",
    "N_",
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
    "UnknownLanguage",
    "Voice",
    "WebPlayer",
    "_",
    "action_buttons",
    "bind_table",
    "bot_player_name",
    "card_json",
    "completeness",
    "current",
    "damage_line",
    "decimal",
    "describe",
    "english",
    "evidence_said",
    "final_message",
    "fit",
    "fit_for",
    "from_accept_language",
    "headline",
    "headline_key",
    "install_argparse",
    "is_no",
    "is_yes",
    "lesson_end",
    "ngettext",
    "no_word",
    "notice_text",
    "outcome_text",
    "page_texts",
    "reason_word",
    "report_json",
    "resolve",
    "run_lesson",
    "run_web_lesson",
    "scan_json",
    "score_label",
    "screen_width",
    "serve_table",
    "table_state",
    "use_ascii",
    "use_language",
    "verdict_json",
    "verdict_words",
    "verify_bytes",
    "verify_headline",
    "verify_json",
    "verify_summary",
    "with_damage",
    "with_terminal",
    "yes_word",
]

#: The private module each public name lives in.
_HOME: dict[str, str] = {
    **dict.fromkeys(["is_no", "is_yes", "no_word", "yes_word"], "_answers"),
    **dict.fromkeys(["use_ascii"], "_glyphs"),
    **dict.fromkeys(
        [
            "LANGUAGES",
            "N_",
            "UnknownLanguage",
            "_",
            "completeness",
            "current",
            "decimal",
            "english",
            "from_accept_language",
            "install_argparse",
            "ngettext",
            "resolve",
            "use_language",
        ],
        "_i18n",
    ),
    **dict.fromkeys(["LESSON_STEPS", "lesson_end", "run_lesson", "run_web_lesson"], "_lesson"),
    **dict.fromkeys(["Narrator", "Tally", "describe"], "_narrate"),
    **dict.fromkeys(["notice_text"], "_notice_text"),
    **dict.fromkeys(["headline", "headline_key", "outcome_text", "score_label"], "_outcome_text"),
    **dict.fromkeys(["Screen"], "_screen"),
    **dict.fromkeys(["TableModel", "TableView"], "_table"),
    **dict.fromkeys(["bot_player_name", "fit", "fit_for", "screen_width"], "_texts"),
    **dict.fromkeys(["Voice"], "_voice"),
    **dict.fromkeys(["Clocks", "StdinLines", "TerminalPlayer", "with_terminal"], "_tui"),
    **dict.fromkeys(
        [
            "EDITED",
            "damage_line",
            "evidence_said",
            "reason_word",
            "verify_headline",
            "verify_summary",
        ],
        "_verify_text",
    ),
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
    **dict.fromkeys(
        [
            "EXIT_STATUS",
            "report_json",
            "scan_json",
            "verdict_words",
            "verify_bytes",
            "verify_json",
            "with_damage",
        ],
        "_verdict",
    ),
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
