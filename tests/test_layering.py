"""The pure layers never import trio and do no I/O (after trio's test_exports)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "truc_p2p"
PURE = ("rules", "deck", "protocol")
#: Modules whose import means I/O, networking, clocks or global randomness.
FORBIDDEN = {"trio", "socket", "asyncio", "selectors", "subprocess", "random", "time", "os"}
FORBIDDEN_CALLS = {"open", "print", "input"}


def _modules(layer: str) -> list[Path]:
    return sorted((PACKAGE / layer).rglob("*.py"))


@pytest.mark.parametrize("layer", PURE)
def test_pure_layer_imports_no_io_module(layer: str) -> None:
    offenders = []
    for path in _modules(layer):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            for name in names:
                if name.split(".")[0] in FORBIDDEN:
                    offenders.append(f"{path.name}:{node.lineno} imports {name}")
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in FORBIDDEN_CALLS
            ):
                offenders.append(f"{path.name}:{node.lineno} calls {node.func.id}()")
    assert offenders == []


@pytest.mark.parametrize("layer", PURE)
def test_importing_a_pure_layer_does_not_load_trio(layer: str) -> None:
    code = (
        f"import sys, truc_p2p.{layer}; "
        "bad = sorted(m for m in ('trio', 'socket', 'asyncio') if m in sys.modules); "
        "print(','.join(bad))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == ""


def test_layering_check_catches_a_trio_import(tmp_path: Path) -> None:
    bad = tmp_path / "mod.py"
    bad.write_text("import trio\n")
    tree = ast.parse(bad.read_text())
    imported = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    assert "trio" in imported and "trio" in FORBIDDEN
