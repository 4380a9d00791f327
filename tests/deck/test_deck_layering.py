"""The deck layer is pure and self-contained; the benchmark runs and reports."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

import truc_p2p.deck as deck
from truc_p2p.deck import _bench

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
    for path in DECK_DIR.glob("_*.py"):
        if path.name in ("_bench.py", "_vectors.py"):
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
    assert result["counts"]["dealer"]["multiplications"] == 70
    assert result["counts"]["nondealer"]["multiplications"] == 70
    assert result["audit_multiplications"] == 128
    for k in ("op_us", "decode_us", "derive_us", "exchange_us", "audit_ms", "ratio"):
        assert result[k] > 0
    assert result["hand_ms"]["dealer"] > 0 and result["hand_ms"]["nondealer"] > 0
    assert result["ratio"] == max(result["ratio_by_role"].values())


def test_bench_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert _bench.main(hands=1, as_json=False) == 0
    out = capsys.readouterr().out
    assert "per hand" in out and "ratio" in out and "audit" in out
    assert _bench.main(hands=0, as_json=False) == 2
