"""Every user-facing text goes through here: gettext-style lookups with named
placeholders and plural forms.

Views never build sentences from parts: they ask for one whole message by its
English text (the gettext *msgid*) and fill named placeholders::

    _("{name} wins the hand").format(name=...)          # plain
    ngettext("{n} point", "{n} points", n).format(n=n)  # plural forms

Both helpers here do the formatting themselves (``_("…", name=...)``), so a
translation may move a placeholder anywhere in its sentence.  The catalog in
use is process-wide (:func:`use`); without one the English msgid is shown.
"""

from __future__ import annotations

import gettext as _gettext
from typing import Any

__all__ = ["N_", "_", "ngettext", "use"]

_catalog: _gettext.NullTranslations = _gettext.NullTranslations()


def use(catalog: _gettext.NullTranslations | None) -> None:
    """Show texts from ``catalog`` from now on (``None``: English)."""
    global _catalog
    _catalog = catalog if catalog is not None else _gettext.NullTranslations()


def _(message: str, /, **values: Any) -> str:
    """``message`` translated, its ``{placeholders}`` filled from ``values``."""
    text = _catalog.gettext(message)
    return text.format(**values) if values else text


def ngettext(singular: str, plural: str, n: int, /, **values: Any) -> str:
    """The plural form of the message for count ``n``, filled (``n`` is a value too)."""
    text = _catalog.ngettext(singular, plural, n)
    return text.format(n=n, **values)


def N_(message: str, /) -> str:
    """Mark ``message`` for extraction without translating it yet (tables of texts)."""
    return message
