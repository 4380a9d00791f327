"""What a translated screen may still show in English, and the words it must not."""

from __future__ import annotations

import re
from functools import cache

from babel.messages.pofile import read_po

from helpers.cli import ROOT
from truc_p2p.bots import BOT_NAMES
from truc_p2p.cli import COMMANDS
from truc_p2p.i18n import (
    LANGUAGES,
)

#: English words of the screens that may stay: names, the program, card faces, and the
#: words of the command line itself (command names, bot names, option values).
ALLOWED = {
    "truc",
    "random",
    "bot",
    "random-bot",
    "p2p",
    "truc-p2p",
    *COMMANDS,
    "bots",
    "deck",
    "game",
    "build",  # site's commands
    "check",
    *BOT_NAMES,
    # and their parts, as a help screen's choice list shows them ("cfr+race", "search:fast")
    *(part for name in BOT_NAMES for part in re.split(r"[+:]", name)),
}


#: Every language but the source.
TRANSLATED = [code for code in LANGUAGES if code != "en"]


def _words(text: str) -> set[str]:
    """The words of ``text`` (any script), 4 letters or more, placeholders and
    metavars (``YOUR_PUBLIC_ADDRESS``) left out."""
    text = re.sub(r"\{[^}]*\}|\b[A-Z][A-Z0-9_]+\b", " ", text)
    return set(re.findall(r"[^\W\d_]{4,}", text.lower()))


def _text(value: object) -> str:
    """A catalog entry's text: its one string, or its plural forms joined."""
    if isinstance(value, str):
        return value
    return " ".join(value) if isinstance(value, tuple | list) else ""


@cache
def english_words(code: str = "fr") -> frozenset[str]:
    """Distinctive words of the English messages (4 letters or more, not placeholders),
    minus those language ``code``'s catalog uses too (``message``, ``date``, ``match``...),
    so a word is only caught where the translation would not show it."""
    with (ROOT / "truc_p2p" / "locale" / "truc_p2p.pot").open("rb") as f:
        english = " ".join(_text(m.id) for m in read_po(f) if m.id)
    with (ROOT / "truc_p2p" / "locale" / code / "LC_MESSAGES" / "truc_p2p.po").open("rb") as f:
        translated = " ".join(_text(m.string) for m in read_po(f) if m.id)
    english_only = {w for w in _words(english) if re.fullmatch("[a-z]+", w)}
    return frozenset(english_only - _words(translated) - ALLOWED)


def _command_line_words(text: str) -> str:
    """``text`` without what a user types rather than reads: options (``--relay``),
    metavars (``FILE``), choice lists, paths, addresses and URLs (``truc://...``)."""
    text = re.sub(r"\S*(?:[=&/@]|\w[._:]\w)\S*", " ", text)
    text = re.sub(r"--?[\w-]+", " ", text)
    text = re.sub(r"\{[^}]*\}", " ", text)
    return re.sub(r"\b[A-Z][A-Z0-9_]+\b", " ", text)


def english_left(screen: str, code: str = "fr") -> list[str]:
    """The English words of ``screen`` that language ``code`` should have translated."""
    words = english_words(code)
    left = []
    for line in _command_line_words(screen).splitlines():
        left += [w for w in re.findall(r"[^\W\d_]+", line.lower()) if w in words]
    return left
