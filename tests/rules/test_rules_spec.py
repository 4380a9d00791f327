"""protocol_spec/rules.md names real tests (test_rules_scenarios and test_rules_errors
check that it names each of their rows)."""

from __future__ import annotations

import re
from pathlib import Path

from helpers.rules import rules_spec_text

HERE = Path(__file__).resolve().parent


def test_test_function_references_exist() -> None:
    refs = re.findall(r"`(\w+)::(test_\w+)(?:\[([^\]`]+)\])?`", rules_spec_text())
    assert len(refs) > 40
    for short, name, param in refs:
        path = HERE / f"test_rules_{short}.py"
        assert path.exists(), path
        source = path.read_text(encoding="utf-8")
        assert f"def {name}(" in source, f"{short}::{name}"
        if param:
            assert f'"{param}"' in source, f"{short}::{name}[{param}]"
