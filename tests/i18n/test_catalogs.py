"""The shipped catalogs: in step with the source, placeholders intact, plural forms
right for each language, compiled files up to date, complete where they say so."""

from __future__ import annotations

import gettext
import importlib.util
import string
import sys
from pathlib import Path
from types import ModuleType

import pytest
from babel.messages.catalog import Catalog, Message
from babel.messages.pofile import read_po

from truc_p2p.i18n import LANGUAGES

ROOT = Path(__file__).resolve().parents[2]
LOCALE = ROOT / "truc_p2p" / "locale"
POT = LOCALE / "truc_p2p.pot"

#: Languages whose catalog must hold every message (the others may be partial).
COMPLETE = ("fr", "es", "ca", "oc", "gd", "is", "et", "gu", "uk")
#: The number of plural forms of each language, and sample counts for each form.
PLURALS: dict[str, tuple[int, dict[int, int]]] = {
    "fr": (2, {0: 0, 1: 0, 2: 1, 11: 1}),
    "es": (2, {1: 0, 0: 1, 2: 1}),
    "ca": (2, {1: 0, 0: 1, 2: 1}),
    "oc": (2, {0: 0, 1: 0, 2: 1}),
    "gd": (4, {1: 0, 11: 0, 2: 1, 12: 1, 3: 2, 19: 2, 20: 3, 0: 3}),
    "is": (2, {1: 0, 21: 0, 11: 1, 2: 1, 111: 1}),
    "et": (2, {1: 0, 2: 1, 0: 1}),
    "gu": (2, {0: 0, 1: 0, 2: 1}),
    "uk": (3, {1: 0, 21: 0, 11: 2, 2: 1, 24: 1, 12: 2, 5: 2, 0: 2}),
}
TRANSLATED = [code for code in LANGUAGES if code != "en"]


def _tools() -> ModuleType:
    spec = importlib.util.spec_from_file_location("i18n_tools", ROOT / "tools" / "i18n.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("i18n_tools", module)
    spec.loader.exec_module(module)
    return module


def _read(path: Path) -> Catalog:
    with path.open("rb") as f:
        return read_po(f)


def _po(code: str) -> Path:
    return LOCALE / code / "LC_MESSAGES" / "truc_p2p.po"


def _ids(catalog: Catalog) -> set[object]:
    return {m.id if isinstance(m.id, str) else tuple(m.id) for m in catalog if m.id}


def fields(text: str) -> set[str]:
    """The placeholders of a message as written (``{key!r}`` keeps its ``!r``)."""
    found = set()
    for _lit, name, spec, conversion in string.Formatter().parse(text):
        if name is not None:
            found.add(
                name + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "")
            )
    return found


def _forms(message: Message) -> tuple[str, ...]:
    return message.string if isinstance(message.string, tuple) else (message.string,)


def _source_fields(message: Message) -> set[str]:
    ids = message.id if isinstance(message.id, tuple) else (message.id,)
    return set().union(*(fields(i) for i in ids))


def test_every_language_has_a_catalog() -> None:
    found = sorted(p.parent.parent.name for p in LOCALE.glob("*/LC_MESSAGES/truc_p2p.po"))
    assert found == sorted(TRANSLATED)
    for code in TRANSLATED:
        assert _read(_po(code)).locale_identifier == code


def test_the_template_matches_the_source(tmp_path: Path) -> None:
    """Someone who adds a message runs ``python tools/i18n.py all``; this notices if not."""
    fresh = tmp_path / "fresh.pot"
    _tools().extract(fresh)
    assert _ids(_read(fresh)) == _ids(_read(POT))


@pytest.mark.parametrize("code", TRANSLATED)
def test_no_stale_message(code: str) -> None:
    catalog = _read(_po(code))
    assert not catalog.obsolete, f"{code}: obsolete messages left in the catalog"
    stale = _ids(catalog) - _ids(_read(POT))
    assert not stale, f"{code}: messages no longer in the source: {sorted(map(str, stale))}"


@pytest.mark.parametrize("code", TRANSLATED)
def test_placeholders_match_the_source(code: str) -> None:
    wrong = []
    for message in _read(_po(code)):
        if not message.id:
            continue
        want = _source_fields(message)
        for form in _forms(message):
            if form and fields(form) != want:
                wrong.append((message.id, form))
    assert not wrong, f"{code}: placeholders differ: {wrong[:5]}"


@pytest.mark.parametrize("code", TRANSLATED)
def test_plural_forms(code: str) -> None:
    catalog = _read(_po(code))
    count, samples = PLURALS[code]
    assert catalog.num_plurals == count
    rule = gettext.c2py(catalog.plural_expr)
    assert {n: rule(n) for n in samples} == samples
    for message in catalog:
        if message.id and message.pluralizable:
            assert len(_forms(message)) == count, (code, message.id)


@pytest.mark.parametrize("code", COMPLETE)
def test_complete_languages_miss_nothing(code: str) -> None:
    catalog = _read(_po(code))
    assert _ids(catalog) == _ids(_read(POT))
    missing = [m.id for m in catalog if m.id and (m.fuzzy or not all(_forms(m)))]
    assert not missing, f"{code}: untranslated or fuzzy: {missing[:5]}"


@pytest.mark.parametrize("code", TRANSLATED)
def test_compiled_catalogs_are_up_to_date(code: str) -> None:
    """The committed ``.mo`` is what ``python tools/i18n.py compile`` makes of the ``.po``."""
    po = _po(code)
    assert po.with_suffix(".mo").read_bytes() == _tools().mo_bytes(po), (
        f"{code}: run python tools/i18n.py compile"
    )


def test_the_placeholder_check_can_fail() -> None:
    message = Message(("{n} point", "{n} points"), ("{n} point", "{m} points"))
    assert fields(_forms(message)[1]) != _source_fields(message)
    assert fields("{key!r} and {name}") == {"key!r", "name"} != fields("{key} and {name}")
