"""Yes and no at the terminal's questions, in the player's language.

A French player answers ``o`` or ``oui``, a Catalan ``s`` or ``sí``: each catalog
lists its words for yes and for no, the first of each is the one the questions name
("Tapez o ..."), and the English ``y``/``yes`` and ``n``/``no`` are understood in
every language (a keyboard left in English, a habit).
"""

from __future__ import annotations

from truc_p2p.i18n import _

__all__ = ["is_no", "is_yes", "no_word", "yes_word"]


def _words(translated: str, english: tuple[str, ...]) -> tuple[str, ...]:
    words = [w.casefold() for w in translated.split()]
    return tuple(dict.fromkeys([*words, *english]))


def _yes_words() -> tuple[str, ...]:
    # Translators: the words for yes at the terminal, separated by spaces
    # The first is the one the questions name ("Type {y} to leave")
    # y and yes are understood too; French: "o oui", Catalan: "s sí si"
    return _words(_("y yes"), ("y", "yes"))


def _no_words() -> tuple[str, ...]:
    # Translators: the words for no at the terminal, separated by spaces
    # The first is the one the questions name; n and no are understood too
    # French: "n non"
    return _words(_("n no"), ("n", "no"))


def yes_word() -> str:
    """The word for yes the questions name, in the current language."""
    return _yes_words()[0]


def no_word() -> str:
    """The word for no the questions name, in the current language."""
    return _no_words()[0]


def is_yes(line: str) -> bool:
    """Whether the player typed a word for yes (case and surrounding spaces ignored;
    an empty line is not: each question says what Enter means)."""
    return line.strip().casefold() in _yes_words()


def is_no(line: str) -> bool:
    """Whether the player typed a word for no (as :func:`is_yes`)."""
    return line.strip().casefold() in _no_words()
