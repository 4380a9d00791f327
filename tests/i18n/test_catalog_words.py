"""Words a player would use (issue 32): "you" never filled into a sentence written for
a name, one form of address per language, one word per thing, and the cards as a
table of that language prints them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from truc_p2p.i18n import _, use_language
from truc_p2p.rules import Card, Player, RoundEndReason
from truc_p2p.ui._texts import card_text, help_text
from truc_p2p.ui._voice import Voice

LOCALE = Path(__file__).resolve().parents[2] / "truc_p2p" / "locale"
LANGS = ("ca", "es", "et", "fr", "gd", "gu", "is", "oc", "uk")
P0, P1 = Player.P0, Player.P1


def _strings(lang: str) -> list[tuple[str, str]]:
    with (LOCALE / lang / "LC_MESSAGES" / "truc_p2p.po").open("rb") as f:
        catalog = read_po(f)
    out = []
    for m in catalog:
        if not m.id:
            continue
        ids = " ".join(m.id) if isinstance(m.id, tuple) else m.id
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        out += [(ids, s) for s in strings]
    return out


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize(
    ("reason", "yours", "theirs"),
    [
        (RoundEndReason.FOLDED, "you folded", "{name} folded"),
        (RoundEndReason.REFUSED, "you refused “2 more?”", "{name} refused “2 more?”"),
        (RoundEndReason.REST_REFUSED, "you turned down “my rest”", "{name} turned down “my rest”"),
    ],
)
def test_a_hand_you_gave_up_says_so_with_its_own_verb(
    lang: str, reason: RoundEndReason, yours: str, theirs: str
) -> None:
    """uk said "ви скидає карти", ca "tu se n'ha anat": "you" filled into "{name} folded"."""
    use_language(lang)
    voice = Voice({P0: _("you"), P1: "Bob"}, P0)
    line = voice.hand_result(hand_no=0, winner=P1, points=1, reason=reason, game_over=False)
    assert _(yours) in line
    filled = _(theirs, name=_("you"))
    if filled != _(yours):  # (Icelandic "þú gafst upp" is both)
        assert filled not in line
    assert _(yours) != yours  # translated, not English
    # the opponent's sentence is the one for a name
    line = voice.hand_result(hand_no=0, winner=P0, points=1, reason=reason, game_over=False)
    assert _(theirs, name="Bob") in line


def test_spanish_says_tu_and_catalan_tu_and_joc_fora() -> None:
    usted = [s for _i, s in _strings("es") if re.search(r"\busted\b|\bsu rival\b", s)]
    assert not usted, usted
    vos = [s for _i, s in _strings("ca") if re.search(r"\bvós\b|\bvostr[ea]s?\b|meva resta", s)]
    assert not vos, vos
    rest = [s for i, s in _strings("ca") if "my rest" in i]
    assert rest and all("joc fora" in s for s in rest), rest


@pytest.mark.parametrize(("lang", "protocol"), [("uk", "протокол"), ("et", "protokoll")])
def test_a_transcript_is_not_called_a_protocol(lang: str, protocol: str) -> None:
    mixed = [
        s
        for i, s in _strings(lang)
        if "transcript" in i.lower() and "protocol" not in i.lower() and protocol in s.lower()
    ]
    assert not mixed, mixed


def test_icelandic_redeals_are_deals_and_french_decks_are_recomputed() -> None:
    assert not [s for i, s in _strings("is") if "endurúthlutun" in s]
    for lang in ("fr", "oc"):
        audits = {s for i, s in _strings(lang) if "recompute its deck" in i}
        assert len(audits) == 2  # the singular and the plural
        for audit in audits:
            assert "redonn" not in audit and "tornan donar" not in audit, audit


@pytest.mark.parametrize(("lang", "shown"), [("en", "Q♥ J♠ K♦"), ("fr", "D♥ V♠ R♦")])
def test_cards_are_printed_as_that_language_s_table_prints_them(lang: str, shown: str) -> None:
    use_language(lang)
    cards = [Card.from_str(c) for c in ("QH", "JS", "KD")]
    assert " ".join(card_text(c) for c in cards) == shown
    assert card_text(cards[0], ascii=True) == "QH"  # --ascii keeps the protocol's letters
    order = {"en": "7 8 A K Q J 10 9", "fr": "7 8 A R D V 10 9"}[lang]
    assert order in " ".join(help_text().split())


def test_catalan_tricks_are_basa_and_the_game_has_its_own_article() -> None:
    """Issue 43: Catalan wrote "base" for a trick (it is "basa", plural "bases"), and the
    Catalan and Occitan rules headline kept the French "Le Truc a dos"."""
    wrong = [s for i, s in _strings("ca") if "trick" in i.lower() and re.search(r"\bbase\b", s)]
    assert not wrong, wrong
    assert any(re.search(r"\bbasa\b", s) for i, s in _strings("ca") if "decided it" in i)
    for lang in ("ca", "oc"):
        titles = [s for i, s in _strings(lang) if i.startswith("Le Truc for two")]
        assert titles and not any(s.startswith("Le Truc") for s in titles), titles


def test_spanish_says_who_went_to_the_deck_as_a_sentence() -> None:
    """Issue 43: "(al mazo: bot-difícil)" read as a label, not a sentence."""
    use_language("es")
    voice = Voice({P0: _("you"), P1: "Bob"}, P0)
    line = voice.hand_result(
        hand_no=0, winner=P0, points=1, reason=RoundEndReason.FOLDED, game_over=False
    )
    assert "Bob se fue al mazo" in line, line
    line = voice.hand_result(
        hand_no=0, winner=P0, points=1, reason=RoundEndReason.REST_REFUSED, game_over=False
    )
    assert "Bob no quiso «mi resto»" in line, line
