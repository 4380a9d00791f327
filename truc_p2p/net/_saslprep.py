"""SASLprep (RFC 4013), the stringprep profile (RFC 3454) that STUN's long-term
credential puts its user name and password through before the key (RFC 5389
§15.3, §15.4; RFC 8489 §9.2; connect.md §11).

Theory of operation: the standard library's :mod:`stringprep` holds the tables of
Unicode 3.2 that RFC 3454 names, and :mod:`unicodedata` keeps that version's
normalization (``ucd_3_2_0``), so the profile is its four steps in order: map
(B.1 to nothing, C.1.2 to a space), normalize (NFKC), prohibit (C.1.2, C.2.1,
C.2.2, C.3–C.9), check bidi (RFC 3454 §6); credentials are stored strings, so
unassigned code points (A.1) are prohibited too.  Plain ASCII without control
characters, which is what coturn's ``user=`` lines hold, comes out unchanged.
"""

from __future__ import annotations

import stringprep
import unicodedata

__all__ = ["SaslprepError", "saslprep"]


class SaslprepError(ValueError):
    """The text holds what SASLprep refuses; ``reason`` is ``prohibited``,
    ``unassigned`` or ``bidi``, ``what`` says it in words without the character
    (a password's message must not show it), ``position`` is the index of the
    offending character in the prepared text (``None`` for ``bidi``)."""

    def __init__(self, reason: str, what: str, position: int | None = None, char: str = "") -> None:
        super().__init__(f"{what} (U+{ord(char):04X})" if char else what)
        self.reason = reason
        self.what = what
        self.position = position


#: RFC 4013 §2.3: the prohibited output (C.1.2 non-ASCII spaces, C.2.1 ASCII and
#: C.2.2 other controls, C.3 private use, C.4 non-characters, C.5 surrogates, C.6
#: unfit for plain text, C.7 unfit for canonical representation, C.8 display
#: changes and deprecated, C.9 tags).
_PROHIBITED = (
    (stringprep.in_table_c12, "a non-ASCII space"),
    (stringprep.in_table_c21, "an ASCII control character"),
    (stringprep.in_table_c22, "a control character"),
    (stringprep.in_table_c3, "a private-use character"),
    (stringprep.in_table_c4, "a non-character code point"),
    (stringprep.in_table_c5, "a surrogate code point"),
    (stringprep.in_table_c6, "a character unfit for plain text"),
    (stringprep.in_table_c7, "a character unfit for canonical representation"),
    (stringprep.in_table_c8, "a display-changing or deprecated character"),
    (stringprep.in_table_c9, "a tagging character"),
)


def saslprep(text: str) -> str:
    """``text`` prepared by SASLprep for a stored string; :class:`SaslprepError`
    when it holds a prohibited or unassigned character or breaks the bidi rule."""
    # §2.1 mapping: soft hyphens, joiners and the like go; other spaces become " "
    mapped = "".join(
        " " if stringprep.in_table_c12(c) else c for c in text if not stringprep.in_table_b1(c)
    )
    # §2.2 normalization: NFKC, as Unicode 3.2 has it (the tables' version)
    prepared = unicodedata.ucd_3_2_0.normalize("NFKC", mapped)
    for at, c in enumerate(prepared):
        for table, what in _PROHIBITED:
            if table(c):
                raise SaslprepError("prohibited", what, at, c)
        if stringprep.in_table_a1(c):
            raise SaslprepError("unassigned", "an unassigned code point", at, c)
    # RFC 3454 §6: right-to-left text holds no left-to-right character, and both
    # its first and last characters are right-to-left
    if any(stringprep.in_table_d1(c) for c in prepared):
        if any(stringprep.in_table_d2(c) for c in prepared):
            raise SaslprepError("bidi", "right-to-left and left-to-right text mixed")
        if not (stringprep.in_table_d1(prepared[0]) and stringprep.in_table_d1(prepared[-1])):
            raise SaslprepError("bidi", "right-to-left text not begun and ended right-to-left")
    return prepared
