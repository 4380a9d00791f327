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

_TYPES: dict[str, Any] = {
    "object": dict,
    "array": list,
    "string": str,
    "integer": int,
    "number": (int, float),
    "boolean": bool,
}


def schema_errors(value: Any, schema: dict[str, Any], where: str = "$") -> list[str]:
    """The subset of JSON Schema the vector schemas use: type, const, enum, required,
    properties, additionalProperties (false or a schema), items, minimum, pattern."""
    errors: list[str] = []
    kind = schema.get("type")
    if kind is not None:
        ok = isinstance(value, _TYPES[kind]) and not (
            kind in ("integer", "number") and isinstance(value, bool)
        )
        if not ok:
            return [f"{where}: not {kind}"]
    if "const" in schema and value != schema["const"]:
        errors.append(f"{where}: not {schema['const']!r}")
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{where}: {value!r} not in {schema['enum']}")
    if "minimum" in schema and value < schema["minimum"]:
        errors.append(f"{where}: below {schema['minimum']}")
    if "pattern" in schema and not re.search(schema["pattern"], value):
        errors.append(f"{where}: does not match {schema['pattern']}")
    if isinstance(value, dict):
        props = schema.get("properties", {})
        errors += [f"{where}: no {key}" for key in schema.get("required", []) if key not in value]
        extra = schema.get("additionalProperties", True)
        for key, item in value.items():
            if key in props:
                errors += schema_errors(item, props[key], f"{where}.{key}")
            elif extra is False:
                errors.append(f"{where}: unknown key {key}")
            elif isinstance(extra, dict):
                errors += schema_errors(item, extra, f"{where}.{key}")
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            errors += schema_errors(item, schema["items"], f"{where}[{i}]")
    return errors


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
        assert c["result"] == "valid" or c["case"] in CASES, c["case"]
        assert (c["result"] == "invalid") == ("code" in c and "message" in c)


@pytest.mark.parametrize("case", VECTOR["cases"], ids=lambda c: c["case"])
def test_the_verifier_says_what_the_vector_says(case: dict[str, Any]) -> None:
    transcript = [*ENVELOPES[: case["prefix"]], *(bytes.fromhex(h) for h in case["hex"])]
    report = verify_transcript(transcript)
    if case["result"] == "valid":
        # a prefix of an honest game: unfinished, nobody to blame
        assert report.status == case["status"] and report.culprit is None
        assert report.error_code in (None, "incomplete")
    else:
        assert (report.error_code, report.error_message_no) == (case["code"], case["message"])
