"""A validator of the JSON Schema subset that ``protocol_spec/schemas/`` uses, so the
spec tests check every vector file against its schema without a new dependency.

Only the keywords in ``KEYWORDS`` are understood; ``unknown_keywords`` lists any other
keyword a schema uses, so a schema can never lean on a rule this validator would
silently skip."""

from __future__ import annotations

import re
from typing import Any

__all__ = ["ANNOTATIONS", "KEYWORDS", "schema_errors", "unknown_keywords"]

_TYPES: dict[str, Any] = {
    "object": dict,
    "array": list,
    "string": str,
    "integer": int,
    "number": (int, float),
    "boolean": bool,
    "null": type(None),
}
#: The assertions this validator checks (draft 2020-12 meaning).
KEYWORDS = frozenset(
    {
        "type",
        "const",
        "enum",
        "required",
        "properties",
        "additionalProperties",
        "propertyNames",
        "items",
        "prefixItems",
        "minItems",
        "maxItems",
        "minimum",
        "maximum",
        "pattern",
    }
)
#: Keywords that assert nothing.
ANNOTATIONS = frozenset({"$schema", "$id", "title", "description"})
#: Keywords whose value is a map of names to schemas / a list of schemas / a schema.
_SCHEMA_MAPS = ("properties",)
_SCHEMA_LISTS = ("prefixItems",)
_SCHEMA_ONES = ("items", "additionalProperties", "propertyNames")


def _is(value: Any, kind: str) -> bool:
    if kind in ("integer", "number") and isinstance(value, bool):
        return False
    return isinstance(value, _TYPES[kind])


def schema_errors(value: Any, schema: dict[str, Any], where: str = "$") -> list[str]:
    """Every way ``value`` breaks ``schema``, one line each with its JSON path; [] if
    it follows it."""
    kinds = schema.get("type")
    if kinds is not None:
        kinds = [kinds] if isinstance(kinds, str) else kinds
        if not any(_is(value, k) for k in kinds):
            return [f"{where}: not {' or '.join(kinds)}"]
    errors: list[str] = []
    if "const" in schema and value != schema["const"]:
        errors.append(f"{where}: not {schema['const']!r}")
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{where}: {value!r} not in {schema['enum']}")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            errors.append(f"{where}: below {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            errors.append(f"{where}: above {schema['maximum']}")
    if isinstance(value, str) and "pattern" in schema and not re.search(schema["pattern"], value):
        errors.append(f"{where}: does not match {schema['pattern']}")
    if isinstance(value, dict):
        errors += _object_errors(value, schema, where)
    if isinstance(value, list):
        errors += _array_errors(value, schema, where)
    return errors


def _object_errors(value: dict[str, Any], schema: dict[str, Any], where: str) -> list[str]:
    props = schema.get("properties", {})
    errors = [f"{where}: no {key}" for key in schema.get("required", []) if key not in value]
    extra = schema.get("additionalProperties", True)
    names = schema.get("propertyNames")
    for key, item in value.items():
        if names is not None:
            errors += schema_errors(key, names, f"{where}.{key} (name)")
        if key in props:
            errors += schema_errors(item, props[key], f"{where}.{key}")
        elif extra is False:
            errors.append(f"{where}: unknown key {key}")
        elif isinstance(extra, dict):
            errors += schema_errors(item, extra, f"{where}.{key}")
    return errors


def _array_errors(value: list[Any], schema: dict[str, Any], where: str) -> list[str]:
    errors: list[str] = []
    if "minItems" in schema and len(value) < schema["minItems"]:
        errors.append(f"{where}: fewer than {schema['minItems']} items")
    if "maxItems" in schema and len(value) > schema["maxItems"]:
        errors.append(f"{where}: more than {schema['maxItems']} items")
    first = schema.get("prefixItems", [])
    for i, item in enumerate(value):
        sub = first[i] if i < len(first) else schema.get("items")
        if isinstance(sub, dict):
            errors += schema_errors(item, sub, f"{where}[{i}]")
    return errors


def unknown_keywords(schema: Any, where: str = "$") -> list[str]:
    """The keywords of ``schema`` (and of every schema inside it) this validator does
    not check: a schema must use none."""
    if not isinstance(schema, dict):
        return [f"{where}: not a schema"]
    found = [f"{where}: {k}" for k in schema if k not in KEYWORDS | ANNOTATIONS]
    for key in _SCHEMA_MAPS:
        for name, sub in schema.get(key, {}).items():
            found += unknown_keywords(sub, f"{where}.{key}.{name}")
    for key in _SCHEMA_LISTS:
        for i, sub in enumerate(schema.get(key, [])):
            found += unknown_keywords(sub, f"{where}.{key}[{i}]")
    for key in _SCHEMA_ONES:
        if isinstance(schema.get(key), dict):
            found += unknown_keywords(schema[key], f"{where}.{key}")
    return found
