"""protocol_spec/rules.md names real tests, and names every scenario row."""

from __future__ import annotations

import re
from pathlib import Path

import test_rules_errors
import test_rules_scenarios

SPEC = Path(__file__).resolve().parents[2] / "protocol_spec" / "rules.md"
HERE = Path(__file__).resolve().parent


def spec_text() -> str:
    return SPEC.read_text(encoding="utf-8")


def test_scenario_references_exist_and_cover_every_row() -> None:
    text = spec_text()
    scenario_ids = {c.id for c in test_rules_scenarios.CASES}
    rejection_ids = {r[0] for r in test_rules_errors.REJECTIONS}
    named_s = set(re.findall(r"`S\[([a-z0-9-]+)\]`", text))
    named_e = set(re.findall(r"`E\[([a-z0-9-]+)\]`", text))
    assert named_s - scenario_ids == set(), "unknown scenario ids in the spec"
    assert named_e - rejection_ids == set(), "unknown rejection ids in the spec"
    assert scenario_ids - named_s == set(), "scenario rows missing from the spec"
    assert rejection_ids - named_e == set(), "rejection rows missing from the spec"


def test_test_function_references_exist() -> None:
    refs = re.findall(r"`(\w+)::(test_\w+)(?:\[([^\]`]+)\])?`", spec_text())
    assert len(refs) > 40
    for short, name, param in refs:
        path = HERE / f"test_rules_{short}.py"
        assert path.exists(), path
        source = path.read_text(encoding="utf-8")
        assert f"def {name}(" in source, f"{short}::{name}"
        if param:
            assert f'"{param}"' in source, f"{short}::{name}[{param}]"
