"""Layering: the rules engine is pure; bots use only its public interface."""

from __future__ import annotations

import ast
import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

import truc_p2p.bots as bots
import truc_p2p.rules as rules

RULES_DIR = Path(rules.__file__).parent
BOTS_DIR = Path(bots.__file__).parent

# Pure: no I/O, clock, randomness, crypto or networking.
RULES_ALLOWED = {
    "__future__",
    "collections",
    "collections.abc",
    "dataclasses",
    "enum",
    "functools",
    "itertools",
    "typing",
}


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


@pytest.mark.parametrize("path", sorted(RULES_DIR.glob("*.py")), ids=lambda p: p.name)
def test_rules_modules_import_only_pure_modules(path: Path) -> None:
    for module in imported_modules(path):
        assert module in RULES_ALLOWED or module.startswith("truc_p2p.rules"), module
        assert not module.startswith("truc_p2p.") or module.startswith("truc_p2p.rules")


@pytest.mark.parametrize("path", sorted(BOTS_DIR.glob("*.py")), ids=lambda p: p.name)
def test_bots_use_only_the_public_rules_interface(path: Path) -> None:
    for module in imported_modules(path):
        if module.startswith("truc_p2p."):
            assert module == "truc_p2p.rules" or module.startswith("truc_p2p.bots"), module


def test_importing_rules_and_bots_pulls_no_io_libraries() -> None:
    code = (
        "import sys, truc_p2p.rules, truc_p2p.bots\n"
        "bad = {'trio', 'cryptography', 'msgpack', 'socket', 'asyncio'}\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in bad))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == "[]"


def test_public_names_are_exported() -> None:
    for module in (rules, bots):
        assert sorted(set(module.__all__)) == sorted(module.__all__)
        for name in module.__all__:
            assert not name.startswith("_")
            assert hasattr(module, name), name
    assert (RULES_DIR.parent / "py.typed").exists()


def test_events_and_values_are_frozen_keyword_only() -> None:
    for name in ("Event", "Dealt", "Acted", "TrickEnded", "RoundEnded", "GameEnded", "Trick"):
        cls = getattr(rules, name)
        params = cls.__dataclass_params__
        assert params.frozen, name
        assert all(f.kw_only for f in dataclasses.fields(cls)), name
    for value_type in (rules.Card, rules.Action, rules.Ruleset, rules.Outcome):
        assert getattr(value_type, "__dataclass_params__").frozen  # noqa: B009
    event = rules.Dealt(round_no=0, dealer=rules.Player.P0, redeal=False)
    with pytest.raises(dataclasses.FrozenInstanceError):
        event.round_no = 1  # type: ignore[misc]
