"""protocol_spec/conformance.md names real tests and real vectors."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TEXT = (ROOT / "protocol_spec" / "conformance.md").read_text(encoding="utf-8")
TESTS = {p.name: p for p in (ROOT / "tests").rglob("test_*.py")}


def _references() -> list[tuple[str, str | None]]:
    """(file, function) for every `file.py::name` and following `::name` of a cell."""
    refs: list[tuple[str, str | None]] = []
    for line in TEXT.splitlines():
        if not line.startswith("| "):
            continue
        current: str | None = None
        for code in re.findall(r"`([^`]+)`", line):
            m = re.fullmatch(r"(test_\w+\.py)(?:::(\w+))?(?:\[.*\])?", code)
            if m:
                current = m.group(1)
                refs.append((current, m.group(2)))
                continue
            m = re.fullmatch(r"::(\w+)(?:\[.*\])?", code)
            if m:
                assert current is not None, f"{code} without a file before it: {line}"
                refs.append((current, m.group(1)))
    return refs


def test_every_named_test_exists() -> None:
    refs = _references()
    assert len(refs) > 80
    for name, function in refs:
        assert name in TESTS, f"conformance.md names a missing test file {name}"
        if function is not None:
            source = TESTS[name].read_text(encoding="utf-8")
            assert re.search(rf"def {function}\(", source), f"{name}::{function} is missing"


def test_every_named_vector_exists() -> None:
    vectors = {p.stem for p in (ROOT / "protocol_spec" / "vectors").glob("*.json")}
    named = set(re.findall(r"`((?:wire|resume|deck)_v\d\w*)`", TEXT))
    assert {"wire_v2_cases", "resume_v2", "deck_v2"} <= named
    assert named <= vectors, named - vectors


def test_numbering_is_unique() -> None:
    ids = re.findall(r"^\| ([A-Z]\d+) \|", TEXT, re.M)
    assert len(ids) == len(set(ids)) and len(ids) > 60


def test_each_groups_rows_are_in_order() -> None:
    """Within a group (F, M, H, ...) the rows count up without a gap, so a reader
    finds R6 between R5 and R7 (gap A4 of 2026-12-06: F15 sat before F14)."""
    ids = re.findall(r"^\| ([A-Z])(\d+) \|", TEXT, re.M)
    groups: dict[str, list[int]] = {}
    for letter, number in ids:
        groups.setdefault(letter, []).append(int(number))
    assert len(groups) > 5
    for letter, numbers in groups.items():
        assert numbers == list(range(1, len(numbers) + 1)), (letter, numbers)


def test_the_abbreviations_name_every_vector_file() -> None:
    """The list after "Abbreviations" names each file of vectors/ (a reader looks
    a row's vector up there)."""
    vectors = {p.stem for p in (ROOT / "protocol_spec" / "vectors").glob("*.json")}
    paragraph = TEXT.split("Abbreviations:", 1)[1].split("\n\n", 1)[0]
    assert set(re.findall(r"`(\w+)`", paragraph)) >= vectors
