"""Every vector file of ``protocol_spec/vectors/`` names its JSON Schema in a ``schema``
field and follows it (README: "Vector schemas").

A new vector file needs no change here: its generator writes ``"schema":
"schemas/NAME.schema.json"`` and that schema is added to ``protocol_spec/schemas/``
(or an existing family's schema is named, if the layout is the same).  Each file's
generator test (``test_spec_*``, ``tests/deck``) checks that the field is regenerated
byte for byte."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers.schema import schema_errors, unknown_keywords

SPEC = Path(__file__).resolve().parents[2] / "protocol_spec"
VECTORS = sorted((SPEC / "vectors").glob("*.json"))
SCHEMAS = sorted((SPEC / "schemas").glob("*.schema.json"))


def _load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _schema_of(path: Path) -> dict[str, Any]:
    vector = _load(path)
    name = vector.get("schema") if isinstance(vector, dict) else None
    assert isinstance(name, str), (
        f"vectors/{path.name} has no 'schema' field: its generator must write one naming "
        "a JSON Schema in protocol_spec/schemas/ (protocol_spec/README.md, Vector schemas)"
    )
    assert name.startswith("schemas/") and name.endswith(".schema.json"), name
    schema_path = SPEC / name
    assert schema_path.is_file(), f"vectors/{path.name} names {name}, which does not exist"
    schema: dict[str, Any] = _load(schema_path)
    return schema


def test_there_are_vector_files_and_schemas() -> None:
    assert len(VECTORS) >= 20 and len(SCHEMAS) >= 12


@pytest.mark.parametrize("path", VECTORS, ids=lambda p: p.name)
def test_the_vector_file_follows_its_schema(path: Path) -> None:
    schema = _schema_of(path)
    assert schema_errors(_load(path), schema) == []


@pytest.mark.parametrize("path", VECTORS, ids=lambda p: p.name)
def test_a_broken_copy_of_the_file_fails_its_schema(path: Path) -> None:
    """The schema is closed and says what is required: a copy without one required
    key, with an unknown key and naming another schema breaks it three times."""
    schema = _schema_of(path)
    broken = _load(path)
    required = [k for k in schema["required"] if k != "schema"]
    assert required, f"{path.name}: its schema requires nothing but 'schema'"
    del broken[required[-1]]
    broken["no-such-field"] = 1
    broken["schema"] = "schemas/another.schema.json"
    assert schema["additionalProperties"] is False
    assert len(schema_errors(broken, schema)) == 3


@pytest.mark.parametrize("path", SCHEMAS, ids=lambda p: p.name)
def test_the_schema_is_well_formed_and_used(path: Path) -> None:
    schema = _load(path)
    # only what the validator checks, so no rule is silently skipped
    assert unknown_keywords(schema) == []
    assert schema["$id"] == path.name
    assert schema["type"] == "object" and "schema" in schema["required"]
    assert schema["properties"]["schema"] == {"const": f"schemas/{path.name}"}
    users = [p.name for p in VECTORS if _load(p).get("schema") == f"schemas/{path.name}"]
    assert users, f"no vector file names schemas/{path.name}"


@pytest.mark.parametrize(
    ("value", "schema", "errors"),
    [
        (1, {"type": "string"}, ["$: not string"]),
        (True, {"type": "integer"}, ["$: not integer"]),
        (None, {"type": ["string", "null"]}, []),
        ("0a", {"pattern": "^[0-9a-f]{4}$"}, ["$: does not match ^[0-9a-f]{4}$"]),
        (2, {"enum": [0, 1]}, ["$: 2 not in [0, 1]"]),
        (70000, {"maximum": 65535}, ["$: above 65535"]),
        (-1, {"minimum": 0}, ["$: below 0"]),
        ([1], {"minItems": 2, "maxItems": 2}, ["$: fewer than 2 items"]),
        ([1, 2, 3], {"maxItems": 2}, ["$: more than 2 items"]),
        (
            [[2, "play"], [0, 5]],
            {"items": {"prefixItems": [{"enum": [0, 1]}, {"type": "string"}]}},
            ["$[0][0]: 2 not in [0, 1]", "$[1][1]: not string"],
        ),
        (
            {"1": "a", "x": "b"},
            {"propertyNames": {"pattern": "^[0-9]+$"}, "additionalProperties": {"type": "string"}},
            ["$.x (name): does not match ^[0-9]+$"],
        ),
        (
            {"a": {"b": 1}},
            {
                "properties": {
                    "a": {"required": ["c"], "additionalProperties": False, "properties": {}}
                }
            },
            ["$.a: no c", "$.a: unknown key b"],
        ),
    ],
)
def test_the_validator_checks_each_keyword(
    value: Any, schema: dict[str, Any], errors: list[str]
) -> None:
    assert schema_errors(value, schema) == errors
    assert unknown_keywords(schema) == []


def test_a_keyword_the_validator_does_not_know_is_reported() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string", "format": "date"}}}
    assert unknown_keywords(schema) == ["$.properties.a: format"]
