"""The host's, joiner's and relay's notices in the player's language: the net layer's
notices are English strings carrying a kind and its facts; the command line renders them
through the catalogs."""

from __future__ import annotations

import pickle
import string

import pytest

from truc_p2p.i18n import speaking
from truc_p2p.net import Notice
from truc_p2p.net import _notice as net
from truc_p2p.ui import _notice_text as cli


def _placeholders(template: str | tuple[str, str]) -> set[str]:
    texts = template if isinstance(template, tuple) else (template,)
    return {name for text in texts for _t, name, _f, _c in string.Formatter().parse(text) if name}


def _notice(kind: str) -> Notice:
    """A notice of ``kind`` with a sample value for every placeholder."""
    facts: dict[str, object] = {name: f"<{name}>" for name in _placeholders(net.KINDS[kind])}
    if "n" in facts:
        facts["n"] = 3
    if kind == "relay-lost":
        facts["error"] = Notice("relay-silent", seconds="45")
    if kind == "no-game":
        facts.update(
            text="cannot connect to 10.0.0.1:4: <error>",
            outcome_kind="cannot-connect",
            outcome_facts={"address": "10.0.0.1:4", "error": "<error>"},
        )
    return Notice(kind, **facts)


def test_every_kind_of_notice_has_a_translation() -> None:
    """A new kind of notice without a cli renderer fails here; the cli's msgids are the
    net layer's English templates word for word."""
    assert cli.KINDS == net.KINDS


@pytest.mark.parametrize("kind", sorted(net.KINDS))
def test_each_kind_in_english_is_the_notice(kind: str) -> None:
    notice = _notice(kind)
    assert isinstance(notice, str) and notice.kind == kind
    assert cli.notice_text(notice) == str(notice)
    assert pickle.loads(pickle.dumps(notice)) == notice


@pytest.mark.parametrize("code", ["fr", "uk", "gd"])
@pytest.mark.parametrize("kind", sorted(net.KINDS))
def test_each_kind_is_translated(kind: str, code: str) -> None:
    notice = _notice(kind)
    with speaking(code):
        text = cli.notice_text(notice)
    assert text != str(notice)
    for name in _placeholders(net.KINDS[kind]) - {"n", "text"}:
        if kind != "relay-lost":
            assert f"<{name}>" in text  # the quoted facts are kept
    if kind in ("relay-lost", "no-game"):
        assert "45" in text or "10.0.0.1:4" in text


def test_nested_texts_are_translated_too() -> None:
    with speaking("fr"):
        lost = cli.notice_text(_notice("relay-lost"))
        no_game = cli.notice_text(_notice("no-game"))
    assert "no word" not in lost and "45" in lost
    assert "cannot connect" not in no_game and "impossible de se connecter" in no_game


def test_a_plain_string_is_shown_as_it_is() -> None:
    with speaking("fr"):
        assert cli.notice_text("a library's own words") == "a library's own words"
