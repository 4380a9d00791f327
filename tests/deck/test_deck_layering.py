"""The deck layer is pure and self-contained; the benchmark runs and reports."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

import truc_p2p.deck as deck
from truc_p2p.bench import _deck as _bench

DECK_DIR = Path(deck.__file__).resolve().parent


def test_importing_the_deck_pulls_in_no_other_layer() -> None:
    code = (
        "import sys, truc_p2p.deck; "
        "bad = [m for m in sys.modules if m.split('.')[0] == 'trio' "
        "or m.startswith(('truc_p2p.rules', 'truc_p2p.protocol', 'truc_p2p.net'))]; "
        "print(bad)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_no_io_and_no_global_randomness_in_the_core() -> None:
    forbidden_imports = {"socket", "trio", "random", "secrets", "os", "time", "asyncio"}
    for path in DECK_DIR.rglob("_*.py"):
        if path.name in ("_vectors.py",):
            continue  # tools, not the protocol core
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                names = {(node.module or "").split(".")[0]}
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id not in ("open", "print", "input"), path.name
                continue
            else:
                continue
            assert not names & forbidden_imports, (path.name, names)
            assert "rules" not in str(names), path.name


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


def test_bench_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert _bench.main(hands=1, as_json=True) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["hands"] == 1
    v1, v2 = result["v1"], result["v2"]
    assert v1["counts"]["dealer"]["multiplications"] == 70
    assert v1["counts"]["nondealer"]["multiplications"] == 70
    for role in ("dealer", "nondealer"):
        # the fixed v1 floor charges each primitive its own cost: below the old one
        assert 0 < v1["floor_ms"][role] < v1["old_floor_ms"][role]
        assert v2["hand_ms"][role] > 0 and v2["hand_floor_ms"][role] > 0
        assert v2["ops"][role]["mul"] > 0
    assert set(v2["steps"]) == {"D1", "D2", "D3", "show"}
    for step in v2["steps"].values():
        assert step["prove_ms"] >= 0 and step["verify_ms"] > 0 and step["bytes"] > 0
        assert step["soundness_bits"] >= 80
    assert v2["hidden_cards_revealed"] == 0 and v1["hidden_cards_revealed"] == 26
    assert v2["verifier_ms"] > 0 and v2["bytes_per_hand"] > 0


def test_bench_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert _bench.main(hands=1, as_json=False) == 0
    out = capsys.readouterr().out
    assert "v1" in out and "v2" in out and "ratio" in out and "verifier" in out
    assert _bench.main(hands=0, as_json=False) == 2
