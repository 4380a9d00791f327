"""Every user-facing text goes through here: gettext-style lookups with named
placeholders and plural forms, and the choice of the language.

Views never build sentences from parts: they ask for one whole message by its
English text (the gettext *msgid*) and fill named placeholders::

    _("{name} wins the hand", name=...)                 # plain
    ngettext("{n} point", "{n} points", n)              # plural forms

Both helpers here do the formatting themselves, so a translation may move a
placeholder anywhere in its sentence.  The catalog in use is process-wide
(:func:`use`, :func:`use_language`); without one the English msgid is shown.

Theory of operation
-------------------
The catalogs are standard GNU gettext catalogs, because that is what
translators and their tools (Poedit, Weblate, Lokalize, Virtaal, Transifex)
read and write, and because the format carries what the game needs: a
``Plural-Forms`` rule per language (Scottish Gaelic has four forms, Ukrainian
three, Icelandic two with its own rule) and ``python-brace-format`` flags
that let those tools check the ``{placeholders}``.  Babel does the
*developer* side (extracting the ``_``, ``ngettext`` and ``N_`` calls into
``truc_p2p/locale/truc_p2p.pot``, merging it into every
``<lang>/LC_MESSAGES/truc_p2p.po``, compiling ``.mo`` files): it is the usual
Python tool for this, understands Python source properly (no regexes over
the code) and writes deterministic files.  ``tools/i18n.py`` wraps it.

At run time nothing but the standard library is needed: the compiled
``.mo`` files are committed and shipped as package data, and
:class:`gettext.GNUTranslations` reads them (plural rules included).  A test
recompiles every ``.po`` and fails when a committed ``.mo`` differs, so the
two cannot drift.  Shipping ``.mo`` rather than parsing ``.po`` at start-up
keeps a correct, well-tested reader (the standard library's) and start-up
cost at one small binary read.

The language is, in order: ``--lang CODE``; else the environment the way
gettext reads it (``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG``: the
first one set; ``fr_FR.UTF-8`` means ``fr``); else English.  The web table
may also follow the browser's ``Accept-Language`` (:func:`from_accept_language`).
"""

from __future__ import annotations

import argparse
import gettext as _gettext
import io
import os
import re
import struct
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from typing import Any

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
    "use_language",
]

#: The gettext domain: ``truc_p2p/locale/<code>/LC_MESSAGES/truc_p2p.mo``.
DOMAIN = "truc_p2p"

#: Every language the game speaks: code -> its own name for itself.
LANGUAGES: dict[str, str] = {
    "en": "English",
    "fr": "Français",
    "ca": "Català",
    "oc": "Occitan",
    "es": "Español",
    "gd": "Gàidhlig",
    "is": "Íslenska",
    "et": "Eesti",
    "gu": "ગુજરાતી",
    "uk": "Українська",
}

#: Environment variables gettext reads, in its order.
ENVIRONMENT = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")

_catalog: _gettext.NullTranslations = _gettext.NullTranslations()
_current = "en"


class UnknownLanguage(ValueError):
    """A language code the game has no catalog for."""

    def __init__(self, code: str) -> None:
        super().__init__(
            f"unknown language {code!r}; choose one of: {', '.join(LANGUAGES)} "
            "(truc-p2p languages lists them)"
        )
        self.code = code


def use(catalog: _gettext.NullTranslations | None) -> None:
    """Show texts from ``catalog`` from now on (``None``: English)."""
    global _catalog
    _catalog = catalog if catalog is not None else _gettext.NullTranslations()


def use_language(code: str) -> None:
    """Show texts in language ``code`` (one of :data:`LANGUAGES`) from now on."""
    global _current
    catalog = load(code)
    use(catalog)
    _current = code


@contextmanager
def speaking(code: str) -> Iterator[None]:
    """Language ``code`` within the block, then the language in use before it."""
    global _catalog, _current
    saved = _catalog, _current
    use_language(code)
    try:
        yield
    finally:
        _catalog, _current = saved


@contextmanager
def english() -> Iterator[None]:
    """The English msgids within the block (texts that must not depend on the language:
    ``--json`` fields), whatever language is in use."""
    global _catalog
    saved = _catalog
    _catalog = _gettext.NullTranslations()
    try:
        yield
    finally:
        _catalog = saved


def current() -> str:
    """The code of the language :func:`use_language` last chose."""
    return _current


#: The languages that write a decimal comma (CLDR): "7,7 s" in French, "7.7 s" in English.
_DECIMAL_COMMA = frozenset({"ca", "es", "et", "fr", "is", "oc", "uk"})


def decimal(value: float, digits: int = 1) -> str:
    """``value`` with ``digits`` decimals, written as the language in use writes them."""
    text = f"{value:.{digits}f}"
    return text.replace(".", ",") if _current.split("_")[0] in _DECIMAL_COMMA else text


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


# -- argparse's own words ------------------------------------------------------

#: The texts :mod:`argparse` shows users (it looks them up with its module-level
#: ``_``/``ngettext``), byte for byte as in Python 3.11 to 3.13, so that extraction
#: puts them in our catalogs; :func:`install_argparse` routes argparse to them.
ARGPARSE_TEXTS = (
    N_("usage: "),
    N_("positional arguments"),
    N_("options"),
    N_("show this help message and exit"),
    N_("show program's version number and exit"),
    N_("%(prog)s: error: %(message)s\n"),
    N_("argument %(argument_name)s: %(message)s"),
    N_("the following arguments are required: %s"),
    N_("unrecognized arguments: %s"),
    N_("not allowed with argument %s"),
    N_("ignored explicit argument %r"),
    N_("one of the arguments %s is required"),
    N_("expected one argument"),
    N_("expected at most one argument"),
    N_("expected at least one argument"),
    N_("ambiguous option: %(option)s could match %(matches)s"),
    N_("unexpected option string: %s"),
    N_("invalid %(type)s value: %(value)r"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"),
    N_("unknown parser %(parser_name)r (choices: %(choices)s)"),
    N_("can't open '%(filename)s': %(error)s"),
    N_("option %(option)r is deprecated"),
    N_("argument %(argument_name)r is deprecated"),
    N_("command %(parser_name)r is deprecated"),
)


def _argparse_ngettext_texts() -> None:  # pragma: no cover - extraction only
    ngettext("expected %s argument", "expected %s arguments", 2)


def _gettext_raw(message: str) -> str:
    return _catalog.gettext(message)


def _ngettext_raw(singular: str, plural: str, n: int) -> str:
    return _catalog.ngettext(singular, plural, n)


def install_argparse() -> None:
    """Let :mod:`argparse` speak the language in use: its usage, help headings and
    error messages come from our catalog (it formats them itself, ``%`` style)."""
    argparse._ = _gettext_raw  # type: ignore[attr-defined]
    argparse.ngettext = _ngettext_raw  # type: ignore[attr-defined]


# -- the catalogs ------------------------------------------------------------------


def _locale_file(*parts: str) -> bytes | None:
    from importlib import resources  # only for a catalog: English needs none (start-up)

    node = resources.files("truc_p2p").joinpath("locale", *parts)
    try:
        return node.read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return None


def _mo_bytes(code: str) -> bytes | None:
    return _locale_file(code, "LC_MESSAGES", f"{DOMAIN}.mo")


@cache
def load(code: str) -> _gettext.NullTranslations:
    """The catalog of language ``code`` (English, or a language without a compiled
    catalog: the msgids themselves)."""
    if code not in LANGUAGES:
        raise UnknownLanguage(code)
    data = _mo_bytes(code) if code != "en" else None
    if data is None:
        return _gettext.NullTranslations()
    return _gettext.GNUTranslations(io.BytesIO(data))


@dataclass(frozen=True)
class Completeness:
    """How much of the game a language covers."""

    code: str
    name: str
    translated: int
    total: int

    @property
    def percent(self) -> float:
        return 100.0 * self.translated / self.total if self.total else 100.0


def _total_messages() -> int:
    """The number of messages in the template (every ``msgid`` but the header)."""
    pot = _locale_file(f"{DOMAIN}.pot")
    if pot is None:
        return 0
    return sum(1 for line in pot.decode("utf-8").splitlines() if line.startswith('msgid "')) - 1


def _translated(code: str) -> int:
    """Messages in ``code``'s compiled catalog (its header excluded)."""
    data = _mo_bytes(code)
    if data is None or len(data) < 12:
        return 0
    magic = struct.unpack("<I", data[:4])[0]
    order = "<" if magic == 0x950412DE else ">"
    count: int = struct.unpack(order + "I", data[8:12])[0]
    return max(0, count - 1)


def completeness() -> list[Completeness]:
    """Every language with its translated / all messages (English is the source)."""
    total = _total_messages()
    return [
        Completeness(code, name, total if code == "en" else _translated(code), total)
        for code, name in LANGUAGES.items()
    ]


# -- choosing the language ---------------------------------------------------------

_CODE = re.compile(r"[A-Za-z]{2,3}")


def normalize(text: str) -> str | None:
    """A locale name as a language code: ``fr_FR.UTF-8@euro`` -> ``fr``, ``pt-BR`` ->
    ``pt``; ``None`` for nothing usable (``C``, ``POSIX``, empty)."""
    head = re.split(r"[_.@-]", text.strip(), maxsplit=1)[0]
    if not _CODE.fullmatch(head) or head.upper() in ("C", "POSIX"):
        return None
    return head.lower()


def from_environment(environ: Mapping[str, str]) -> str | None:
    """The language the environment asks for, as gettext reads it: the first of
    ``LANGUAGE`` (a ``:`` list), ``LC_ALL``, ``LC_MESSAGES``, ``LANG`` that is set;
    its first language the game speaks, else ``None``."""
    for name in ENVIRONMENT:
        value = environ.get(name, "")
        if not value:
            continue
        for part in value.split(":"):
            code = normalize(part)
            if code in LANGUAGES:
                return code
        return None
    return None


def from_accept_language(header: str) -> str | None:
    """The best language of an HTTP ``Accept-Language`` header that the game speaks."""
    ranked: list[tuple[float, int, str]] = []
    for index, item in enumerate(header.split(",")):
        tag, _sep, params = item.strip().partition(";")
        weight = 1.0
        match = re.search(r"q\s*=\s*([0-9.]+)", params)
        if match:
            try:
                weight = float(match.group(1))
            except ValueError:
                weight = 0.0
        code = normalize(tag)
        if code in LANGUAGES and weight > 0:
            ranked.append((-weight, index, code))
    return min(ranked)[2] if ranked else None


def resolve(option: str | None, environ: Mapping[str, str] | None = None) -> str:
    """The language to speak: ``option`` (``--lang``; an unknown one raises
    :class:`UnknownLanguage`), else the environment, else English."""
    if option is not None:
        code = normalize(option)
        if code not in LANGUAGES:
            raise UnknownLanguage(option)
        return code
    found = from_environment(os.environ if environ is None else environ)
    return found if found is not None else "en"
