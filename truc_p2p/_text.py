"""Text from elsewhere made safe for a terminal: :func:`printable`.

Every text a peer or the network provides (a relay's ERROR and LISTED texts, an
mDNS announcement's name and keys, a peer's stderr quoted by the interop runner,
the facts of a notice) goes through :func:`printable` before it is shown, so a
sender cannot move the cursor, recolour or clear the screen, set the window
title, retitle a link (OSC 8), reorder the line with bidi overrides or start a
new line that looks like ours.  Texts signed in a game (names, details) are
already refused by the protocol unless printable; our own outgoing details are
made printable by the same function.

This module imports nothing but the standard library: every layer may use it.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["printable"]

# ECMA-48 sequences, 7-bit (ESC ...) and 8-bit (C1) forms: CSI with its parameter
# and intermediate bytes and final byte; OSC, DCS, SOS, PM and APC strings up to
# their terminator (BEL or ST) or the end of the text; any other ESC and the one
# character after it.
_SEQUENCE = re.compile(
    r"(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]?"
    r"|(?:\x1b[\]PX^_]|[\x9d\x90\x98\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[\x20-\x2f]*[\x30-\x7e]?",
)
#: Line and tab characters become one space each, so words stay apart.
_SPACES = frozenset("\t\n\v\f\r\x1c\x1d\x1e\x1f\x85\u2028\u2029")


def printable(text: str, limit: int | None = None) -> str:
    """``text`` with every escape sequence removed, line breaks, tabs and other
    spaces turned into plain spaces, and every other character that is not
    printable text dropped (C0 and C1 controls, DEL, bidi overrides and isolates,
    other format characters, surrogates, private use, unassigned); at most
    ``limit`` characters of it when given."""
    text = _SEQUENCE.sub("", text)
    out = []
    for c in text:
        if c.isprintable():
            out.append(c)
        elif c in _SPACES or unicodedata.category(c) == "Zs":
            out.append(" ")
    clean = "".join(out)
    return clean if limit is None else clean[:limit]
