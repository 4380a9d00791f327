"""The negative vectors (``vectors/wire_v2_negative.json``, Wycheproof style): the file
follows its JSON Schema, regenerates byte for byte from ``negative_vectors.py``, and
the reference verifier says of every case what the file says."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers.schema import schema_errors

from truc_p2p.interop import CASES
from truc_p2p.protocol import verify_transcript

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "protocol_spec"
sys.path.insert(0, str(SPEC))
import negative_vectors  # noqa: E402

VECTOR = json.loads((SPEC / "vectors" / "wire_v2_negative.json").read_text(encoding="utf-8"))
BASE = json.loads((SPEC / "vectors" / "wire_v2.json").read_text(encoding="utf-8"))
ENVELOPES = [bytes.fromhex(e["hex"]) for e in BASE["envelopes"]]
CONFORMANCE = (SPEC / "conformance.md").read_text(encoding="utf-8")


def test_the_file_follows_its_schema() -> None:
    schema = json.loads((SPEC / VECTOR["schema"]).read_text(encoding="utf-8"))
    assert schema_errors(VECTOR, schema) == []
    broken = json.loads(json.dumps(VECTOR))
    broken["cases"][0]["result"] = "maybe"
    del broken["cases"][1]["prefix"]
    broken["cases"][2]["extra"] = 1
    assert len(schema_errors(broken, schema)) == 3


def test_the_generator_reproduces_the_file_byte_for_byte() -> None:
    text = (SPEC / "vectors" / "wire_v2_negative.json").read_text(encoding="utf-8")
    assert negative_vectors.text() == text


def test_counts_flags_and_names() -> None:
    cases = VECTOR["cases"]
    assert VECTOR["numberOfTests"] == len(cases) >= 100
    assert [c["tcId"] for c in cases] == list(range(1, len(cases) + 1))
    rows = set(re.findall(r"^\| ([A-Z]\d+[a-z]?) \|", CONFORMANCE, re.M))
    for c in cases:
        assert set(c["flags"]) <= set(VECTOR["flags"]), c["case"]
        assert c["row"] in rows, c["row"]
        # a live case's fault, or one only a verifier meets (its own name)
        offline = "Offline" in c["flags"]
        assert c["result"] == "valid" or (c["case"] in CASES) != offline, c["case"]
        assert (c["result"] == "invalid") == ("code" in c and "message" in c)


def test_the_order_of_aborts_and_resumes_outside_the_chain_are_covered() -> None:
    """wire.md §8 (the aborts' order, one ending per game) and §13 (a resume never
    in a transcript): rows R3, R4, R9 and N1 each have invalid cases, and R3 a
    valid crossing abort."""
    cases = VECTOR["cases"]
    for row in ("R3", "R4", "R9", "N1"):
        assert any(c["row"] == row and c["result"] == "invalid" for c in cases), row
    assert any(c["row"] == "R3" and c["result"] == "valid" for c in cases)
    assert {c["code"] for c in cases if c["row"] == "R9"} == {"unexpected-message"}


@pytest.mark.parametrize("case", VECTOR["cases"], ids=lambda c: c["case"])
def test_the_verifier_says_what_the_vector_says(case: dict[str, Any]) -> None:
    transcript = [*ENVELOPES[: case["prefix"]], *(bytes.fromhex(h) for h in case["hex"])]
    report = verify_transcript(transcript)
    if case["result"] == "valid":
        # a prefix of an honest game, maybe ended by an abort: unfinished, nobody to blame
        assert report.status == case["status"] and report.culprit is None
        assert report.error_code in (None, "incomplete", "aborted")
    else:
        assert (report.error_code, report.error_message_no) == (case["code"], case["message"])
