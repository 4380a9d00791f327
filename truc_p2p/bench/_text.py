"""Column layout for the ``bench`` text reports: translated labels and headers are
padded to the widest, so the columns stay aligned in every language."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence

__all__ = ["Column", "pad", "table", "widest", "width"]


def width(text: str) -> int:
    """Columns ``text`` takes at a terminal: combining marks and format characters
    (Gujarati vowel signs, joiners) take none."""
    return sum(0 if unicodedata.category(c) in ("Mn", "Me", "Cf") else 1 for c in text)


def pad(text: str, columns: int, align: str = "<") -> str:
    """``text`` padded with spaces to ``columns`` (``<`` left, ``>`` right)."""
    room = " " * max(0, columns - width(text))
    return text + room if align == "<" else room + text


def widest(texts: Iterable[str], at_least: int = 0) -> int:
    """The width of the widest of ``texts``, at least ``at_least``."""
    return max([at_least, *(width(t) for t in texts)])


class Column:
    """One column: its header, its alignment, its least width and the separator
    printed before it."""

    def __init__(self, header: str, align: str, least: int, before: str = "  ") -> None:
        self.header, self.align, self.least, self.before = header, align, least, before


def table(columns: Sequence[Column], rows: Sequence[Sequence[str]]) -> list[str]:
    """The header line and one line per row; each column as wide as its least width,
    its header and its cells; a row may leave its last columns out."""
    widths = [
        widest([c.header, *(r[i] for r in rows if i < len(r))], c.least)
        for i, c in enumerate(columns)
    ]
    lines = []
    for cells in ([c.header for c in columns], *rows):
        line = "".join(
            (c.before if i else "") + pad(cell, widths[i], c.align)
            for i, (c, cell) in enumerate(zip(columns, cells, strict=False))
        )
        lines.append(line.rstrip())
    return lines
