"""The adversarial cases of ``truc-p2p interop`` (``protocol_spec/interop.md`` §8):
each a receiver row of ``conformance.md`` played live against the peer, named after
its section, judged from the peer's signed abort or its refusal."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from helpers.interop import REFERENCE

from truc_p2p.interop import CASES, CaseResult, ErrorMap, junit, read_error_map
from truc_p2p.interop._cases import ADVERSARIAL_NAMES
from truc_p2p.interop._judge_case import _detail_code

ROOT = Path(__file__).resolve().parents[2]


def interop(peer: str, work: Path, cases: list[str], *more: str) -> dict[tuple[str, str], Any]:
    """``truc-p2p interop --json`` in a process of its own (as CI and a peer's
    author run it); its results by (case, role)."""
    args = [sys.executable, "-m", "truc_p2p.cli", "interop", "--peer", peer, "--json"]
    args += ["--work", str(work / "cases"), *more]
    for case in cases:
        args += ["--case", case]
    done = subprocess.run(args, capture_output=True, text=True, timeout=900, check=False)
    assert done.returncode in (0, 1), done.stderr
    return {(r["case"], r["role"]): r for r in json.loads(done.stdout)["cases"]}


CONFORMANCE = (ROOT / "protocol_spec" / "conformance.md").read_text(encoding="utf-8")
INTEROP = (ROOT / "protocol_spec" / "interop.md").read_text(encoding="utf-8")

#: The fast loop's sample: a refusal, an abort kept in the transcript, an abort of a
#: game that never started (read on the link).
SAMPLE = [
    ("wire-13.7-flipped-signature-coin", "host", "refused"),
    ("wire-2-duplicate-key-coin", "host", "'malformed'"),
    ("wire-4-hello-ruleset-target", "join", "'ruleset-mismatch'"),
]


def test_there_are_enough_cases_each_named_after_its_section_and_row() -> None:
    assert len(ADVERSARIAL_NAMES) >= 150
    rows = set(re.findall(r"^\| ([A-Z]\d+[a-z]?) \|", CONFORMANCE, re.M))
    for name in ADVERSARIAL_NAMES:
        m = CASES[name].adversary
        assert m is not None
        assert re.fullmatch(r"(wire|deck)-\d+(\.\d+)?[a-z]?-[a-z0-9-]+", name), name
        assert m.row in rows, f"{name} names no row of conformance.md: {m.row}"
        assert m.level in ("must", "should")
        assert m.expect.kind in ("abort", "refuse", "fallback")


def test_every_receiver_row_with_a_case_names_one_in_conformance_md() -> None:
    """Each row a case plays names at least one of its cases, and every case a row
    names exists."""
    by_row: dict[str, set[str]] = {}
    for name in ADVERSARIAL_NAMES:
        m = CASES[name].adversary
        assert m is not None
        by_row.setdefault(m.row, set()).add(name)
    for row, names in by_row.items():
        line = re.search(rf"^\| {row} \|.*$", CONFORMANCE, re.M)
        assert line is not None
        named = set(re.findall(r"live: `([a-z0-9.-]+)`", line.group(0)))
        assert named & names, f"row {row} names none of its cases"
        assert named <= set(ADVERSARIAL_NAMES), named - set(ADVERSARIAL_NAMES)


#: Receiver rows that had no live case until the runner learnt to misbehave so
#: (its first result, an abort in place of its action, an action's legality, shares
#: and open), with the code each case must read from the peer's abort.
NEWER_ROWS = {
    "wire-8-abort-behind-its-own": "'bad-sequence'",
    "wire-8-abort-broken-chain": "'broken-chain'",
    "wire-6a-action-illegal": "'illegal-move'",
    "wire-6a-action-redeal-shares-out-of-place": "'malformed'",
    "wire-6b-action-open-out-of-place": "'malformed'",
    "wire-7-result-mismatch-hands": "'result-mismatch'",
    "wire-7-result-mismatch-winner": "'result-mismatch'",
}


def test_a_receiver_row_the_runner_cannot_play_says_why() -> None:
    """A row marked *not live:* has no case (and says why); each row of the list
    that had no case is now either played or so marked."""
    played = {CASES[n].adversary.row for n in ADVERSARIAL_NAMES}  # type: ignore[union-attr]
    not_live = set(re.findall(r"^\| ([A-Z]\d+[a-z]?) \|.*not live: \w", CONFORMANCE, re.M))
    assert not_live >= {"H6", "N7", "N23", "N24"}
    assert not not_live & played, not_live & played
    assert {"S2", "S5", "S9", "R1", "R3"} <= played


@pytest.mark.slow
def test_the_newer_rows_cases_pass_against_this_program(tmp_path: Path) -> None:
    results = interop(REFERENCE, tmp_path, list(NEWER_ROWS))
    for case, code in NEWER_ROWS.items():
        r = results[(case, "host")]
        assert r["result"] == "pass", (case, r["detail"])
        assert code in r["detail"], (case, r["detail"])


def test_interop_md_describes_the_adversarial_cases_and_the_error_map() -> None:
    for word in ("--strict", "--junit", "--error-map", "refuse", "wire-13.1-resume-bad-clock-left"):
        assert word in INTEROP, word


def test_the_abort_detail_code_is_its_first_word() -> None:
    assert _detail_code({"detail": "malformed at message 4: x"}) == ("malformed", "at message 4: x")
    assert _detail_code({"detail": 7}) == ("", "")


def test_the_error_map_maps_codes_and_marks_cases(tmp_path: Path) -> None:
    path = tmp_path / "map.json"
    path.write_text(
        json.dumps({"codes": {"malformed": ["E_DECODE", "E_SHAPE"]}, "unsupported": ["wire-1-*"]})
    )
    errors = read_error_map(path)
    assert errors.accepts("malformed", "E_SHAPE") and errors.accepts("malformed", "malformed")
    assert not errors.accepts("bad-sequence", "E_SHAPE")
    assert errors.marks("wire-1-short-frame-1") and not errors.marks("wire-2-seq-far-coin")
    path.write_text('{"codes": {"malformed": 3}}')
    with pytest.raises(ValueError, match="codes"):
        read_error_map(path)
    path.write_text("[")
    with pytest.raises(ValueError, match="cannot read"):
        read_error_map(path)
    assert ErrorMap({}).accepts("x", "x")


@pytest.mark.parametrize(("case", "role", "says"), SAMPLE)
def test_a_sample_against_this_program_passes_and_reads_the_abort(
    tmp_path: Path, case: str, role: str, says: str
) -> None:
    junit_file = tmp_path / "report.xml"
    results = interop(REFERENCE, tmp_path, [case], "--role", role, "--junit", str(junit_file))
    r = results[(case, role)]
    assert r["result"] == "pass", r["detail"]
    assert says in r["detail"], r["detail"]
    report = ET.parse(junit_file).getroot()
    assert report.get("tests") == "1" and report.get("failures") == "0"


def test_a_peer_that_ignores_the_misbehaviour_fails(tmp_path: Path) -> None:
    """A peer that never answers (it prints an invite and sleeps) gets ``fail``."""
    peer = 'echo "truc://127.0.0.1:$TRUC_PORT/?fp=' + "a" * 64 + '"; exec sleep 30'
    case = "wire-2-version-2-coin"
    r = interop(peer, tmp_path, [case], "--role", "host", "--timeout", "2")[(case, "host")]
    assert r["result"] == "fail", r["detail"]
    report = ET.fromstring(junit([CaseResult(case, "host", r["result"], r["detail"])]))
    assert report.find("testcase/failure") is not None


#: The whole suite in four slices (every fourth case, about 25 s each), one test item
#: each: xdist spreads them over its workers where one item kept a worker 100 s.
SLICES = 4


def test_the_slices_are_the_whole_suite() -> None:
    sliced = [n for i in range(SLICES) for n in ADVERSARIAL_NAMES[i::SLICES]]
    assert sorted(sliced) == sorted(ADVERSARIAL_NAMES)


@pytest.mark.slow
@pytest.mark.parametrize("part", range(SLICES))
def test_the_whole_adversarial_suite_against_this_program(tmp_path: Path, part: int) -> None:
    cases = list(ADVERSARIAL_NAMES[part::SLICES])
    results = interop(f"exec {REFERENCE}", tmp_path, cases, "--strict")
    assert set(results) == {(n, r) for n in cases for r in CASES[n].roles}
    failed = [(k, r["detail"]) for k, r in results.items() if r["result"] != "pass"]
    assert not failed, failed


def test_strict_adds_the_should_level_cases() -> None:
    from truc_p2p.interop import default_cases

    plain, strict = default_cases(), default_cases(strict=True)
    should = {n for n in ADVERSARIAL_NAMES if CASES[n].adversary.level == "should"}  # type: ignore[union-attr]
    assert should and not should & set(plain)
    assert set(strict) == set(plain) | should
