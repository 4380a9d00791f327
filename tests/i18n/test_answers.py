"""Yes and no at the terminal in the player's language (and its decimals): a French player answers
``o``/``oui`` and ``n``/``non``, and the questions name the words the player's
language uses; the English y/yes and n/no work in every language."""

from __future__ import annotations

import io

import pytest

from truc_p2p.i18n import speaking
from truc_p2p.ui import is_no, is_yes, no_word, yes_word
from truc_p2p.ui._tui import ScriptedLines, TerminalPlayer

LANGS = ("en", "ca", "es", "et", "fr", "gd", "gu", "is", "oc", "uk")


@pytest.mark.parametrize("lang", LANGS)
def test_each_language_has_distinct_words_for_yes_and_no(lang: str) -> None:
    with speaking(lang):
        yes, no = yes_word(), no_word()
        assert yes and no and yes != no
        assert is_yes(yes) and not is_no(yes)
        assert is_no(no) and not is_yes(no)
        assert is_yes(" Y ") and is_yes("yes") and is_no("N") and is_no("no")
        assert not is_yes("") and not is_no("") and not is_yes("q") and not is_no("q")


def test_french_words() -> None:
    with speaking("fr"):
        assert (yes_word(), no_word()) == ("o", "n")
        assert is_yes("oui") and is_yes("O") and is_no("non") and not is_yes("non")


def test_catalan_words() -> None:
    with speaking("ca"):
        assert yes_word() == "s"
        assert is_yes("sí") and is_yes("Si") and is_no("no")


async def test_a_french_player_answers_play_again_in_french() -> None:
    with speaking("fr"):
        out = io.StringIO()
        player = TerminalPlayer(ScriptedLines(["non"]), "ana", out=out)
        assert await player.ask_again() is False
        assert "Tapez o ou Entrée pour rejouer, n ou q pour arrêter" in out.getvalue()
        player = TerminalPlayer(ScriptedLines(["peut-être", "oui"]), "ana", out=io.StringIO())
        assert await player.ask_again() is True  # asked again after a word it does not know
        player = TerminalPlayer(ScriptedLines(["o"]), "ana", out=io.StringIO())
        assert await player.ask_again() is True


async def test_english_is_unchanged() -> None:
    out = io.StringIO()
    player = TerminalPlayer(ScriptedLines(["n"]), "ana", out=out)
    assert await player.ask_again() is False
    assert "play again? Type y or press Enter to play again, n or q to stop." in out.getvalue()


def test_decimals_are_written_as_each_language_writes_them() -> None:
    from truc_p2p.i18n import decimal

    assert decimal(7.74) == "7.7"
    with speaking("fr"):
        assert decimal(7.74) == "7,7"
    with speaking("gd"):
        assert decimal(7.74) == "7.7"
    with speaking("uk"):
        assert decimal(0.5, 2) == "0,50"
