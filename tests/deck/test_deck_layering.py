"""The deck's public API and errors; the benchmark runs and reports.

Its layering is checked in tests/test_layering.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import truc_p2p.deck as deck
from truc_p2p.bench import _deck as _bench

DECK_DIR = Path(deck.__file__).resolve().parent


def test_public_api() -> None:
    assert sorted(deck.__all__) == sorted(set(deck.__all__))
    for name in deck.__all__:
        assert hasattr(deck, name), name
    for name in [
        "N_CARDS",
        "Role",
        "positions",
        "card_encodings",
        "new_seed",
        "commitment",
        "DeckSide",
        "HandRecord",
        "audit_hand",
        "AuditReport",
        "DeckError",
        "CheatError",
        "DeckUsageError",
    ]:
        assert name in deck.__all__
    assert issubclass(deck.DeckError, ValueError)
    assert issubclass(deck.CheatError, deck.DeckError)
    assert issubclass(deck.DeckUsageError, deck.DeckError)
    assert not issubclass(deck.DeckUsageError, deck.CheatError)
    for name in deck.__all__:
        obj = getattr(deck, name)
        if isinstance(obj, type) and issubclass(obj, deck.CheatError):
            assert obj is deck.CheatError or issubclass(obj, deck.CheatError)
    assert (DECK_DIR.parent / "py.typed").exists()


def test_cheat_error_carries_its_evidence() -> None:
    err = deck.NotACardError("bad", step="D3", position=2, culprit=deck.Role.DEALER)
    assert str(err) == "bad [D3, position 2, culprit dealer]"
    assert (err.step, err.position, err.culprit) == ("D3", 2, deck.Role.DEALER)


@pytest.mark.slow
def test_bench_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert _bench.main(hands=1, as_json=True) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["hands"] == 1
    v1, v2 = result["v1"], result["v2"]
    assert v1["counts"]["dealer"]["multiplications"] == 70
    assert v1["counts"]["nondealer"]["multiplications"] == 70
    for role in ("dealer", "nondealer"):
        # both floors are figures of measured costs (their ratio is the benchmark's to
        # print, not a unit test's to time: a loaded machine turned it over once)
        assert v1["floor_ms"][role] > 0 and v1["old_floor_ms"][role] > 0
        assert v2["hand_ms"][role] > 0 and v2["hand_floor_ms"][role] > 0
        assert v2["ops"][role]["mul"] > 0
    assert set(v2["steps"]) == {"D1", "D2", "D3", "show"}
    for step in v2["steps"].values():
        assert step["prove_ms"] >= 0 and step["verify_ms"] > 0 and step["bytes"] > 0
        assert step["soundness_bits"] >= 80
    assert v2["hidden_cards_revealed"] == 0 and v1["hidden_cards_revealed"] == 26
    assert v2["verifier_ms"] > 0 and v2["bytes_per_hand"] > 0


@pytest.mark.slow
def test_bench_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert _bench.main(hands=1, as_json=False) == 0
    out = capsys.readouterr().out
    assert "v1" in out and "v2" in out and "ratio" in out and "verifier" in out
    assert _bench.main(hands=0, as_json=False) == 2


def test_the_deck_deals_the_rules_positions() -> None:
    from truc_p2p.rules import Player, deal_positions

    for dealer in Player:
        for redeal in (False, True):
            by_player = deal_positions(dealer, redeal=redeal)
            assert deck.positions(deck.Role.DEALER, redeal) == by_player[dealer]
            assert deck.positions(deck.Role.NONDEALER, redeal) == by_player[dealer.other]
    seats = [deck.positions(role, redeal) for role in deck.Role for redeal in (False, True)]
    assert sorted(p for seat in seats for p in seat) == list(range(2 * 2 * deck.HAND_SIZE))
