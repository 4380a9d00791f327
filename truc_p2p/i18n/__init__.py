"""The texts' language: gettext-style lookups with named placeholders and plural
forms, the choice of the language, and whether the terminal shows suit symbols.

Every part that speaks to a person takes its words from here (``_``, ``ngettext``,
``N_``), below the presentation layer, so that ``truc-p2p verify`` and the verdict's
words load no ``ui`` module.  It needs the standard library only; the catalogs are
package data in ``truc_p2p/locale`` (see :mod:`truc_p2p.i18n._catalog` for the design).
"""

from __future__ import annotations

from ._catalog import (
    DOMAIN,
    LANGUAGES,
    N_,
    Completeness,
    UnknownLanguage,
    _,
    completeness,
    current,
    decimal,
    english,
    from_accept_language,
    from_environment,
    install_argparse,
    load,
    ngettext,
    normalize,
    resolve,
    speaking,
    use,
    use_language,
)
from ._glyphs import use_ascii

__all__ = [
    "DOMAIN",
    "LANGUAGES",
    "N_",
    "Completeness",
    "UnknownLanguage",
    "_",
    "completeness",
    "current",
    "decimal",
    "english",
    "from_accept_language",
    "from_environment",
    "install_argparse",
    "load",
    "ngettext",
    "normalize",
    "resolve",
    "speaking",
    "use",
    "use_ascii",
    "use_language",
]
