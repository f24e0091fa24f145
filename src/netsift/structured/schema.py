"""A caller's JSON Schema: checked once at the door, then read as the fields to fill.

The schema is input from a stranger and also goes into a model's prompt and `response_format`,
so it is bounded (size, depth, properties) besides being a valid JSON Schema; a bad one is
`invalid_input` with a message naming what is wrong. The answer's `data` is checked against
the schema with every property made nullable: a field without verified evidence is null,
never invented, whatever the schema requires.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

__all__ = [
    "MAX_FIELDS",
    "MAX_SCHEMA_CHARS",
    "FieldSpec",
    "check_schema",
    "field_specs",
    "nullable",
    "schema_problems",
    "words_of",
]

# A schema is read into every prompt: 20,000 characters is about 5,000 tokens, already more
# than a small model's answer budget; more is a schema for many calls, not one.
MAX_SCHEMA_CHARS = 20_000
MAX_DEPTH = 8  # nested objects and arrays: records of records, not a recursive grammar
MAX_FIELDS = 64  # top-level properties: each is matched, checked and reported one by one
SCALARS = frozenset({"string", "number", "integer", "boolean"})
PATTERN_KEYWORDS = frozenset({"pattern", "patternProperties"})
VALUE_KEYWORDS = frozenset({"enum", "const", "default", "examples"})
NAMED_SCHEMAS = frozenset({"properties", "$defs", "definitions", "dependentSchemas"})
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


@dataclass(frozen=True)
class FieldSpec:
    """One top-level property of the schema: what to look for, and as what type."""

    name: str
    type: str  # string, number, integer, boolean, array, object (or "" when unsaid)
    schema: dict[str, Any]
    description: str = ""

    @property
    def words(self) -> tuple[str, ...]:
        return words_of(self.name)

    @property
    def item_fields(self) -> list[FieldSpec]:
        """An array of objects' item properties (a table's columns), else none."""
        items = self.schema.get("items")
        if self.type == "array" and isinstance(items, dict):
            return field_specs(items)
        return []


def words_of(name: str) -> tuple[str, ...]:
    """A key's words, lower case: `startDate`, `start_date` and `start-date` are the same."""
    spaced = _CAMEL.sub(" ", name.replace("@", ""))
    return tuple(w for w in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if w)


def _type_of(schema: dict[str, Any]) -> str:
    kind = schema.get("type", "")
    if isinstance(kind, list):  # ["string", "null"]: the one that is not null
        kind = next((k for k in kind if k != "null"), "")
    if not kind and "properties" in schema:
        kind = "object"
    return kind if isinstance(kind, str) else ""


def field_specs(schema: dict[str, Any]) -> list[FieldSpec]:
    """The schema's top-level properties, in the order it lists them."""
    properties = schema.get("properties") or {}
    return [
        FieldSpec(
            name=name,
            type=_type_of(sub) if isinstance(sub, dict) else "",
            schema=sub if isinstance(sub, dict) else {},
            description=str(sub.get("description", "")) if isinstance(sub, dict) else "",
        )
        for name, sub in properties.items()
    ]


def _depth(node: Any) -> int:
    if isinstance(node, dict):
        return 1 + max((_depth(v) for v in node.values()), default=0)
    if isinstance(node, list):
        return 1 + max((_depth(v) for v in node), default=0)
    return 0


def check_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` if it is a JSON Schema netsift can fill: an object type with properties, within
    the bounds above; else ValueError saying what is wrong (pydantic makes it invalid_input)."""
    from jsonschema import SchemaError
    from jsonschema.validators import validator_for

    size = len(json.dumps(schema))
    if size > MAX_SCHEMA_CHARS:
        raise ValueError(f"the schema is {size} characters; at most {MAX_SCHEMA_CHARS}")
    # JSON nests a level per schema keyword and one per property: two per schema level
    if _depth(schema) > 2 * MAX_DEPTH:
        raise ValueError(f"the schema nests deeper than {MAX_DEPTH} levels")
    try:
        validator_for(schema).check_schema(schema)
    except SchemaError as exc:
        where = "/".join(str(p) for p in exc.path)
        raise ValueError(
            f"not a valid JSON Schema: {exc.message}" + (f" (at {where})" if where else "")
        ) from None
    if _type_of(schema) != "object" or not isinstance(schema.get("properties"), dict):
        raise ValueError(
            'the schema must describe an object with properties: {"type": "object", '
            '"properties": {"price": {"type": "number"}, ...}}'
        )
    if not schema["properties"]:
        raise ValueError("the schema names no properties to fill")
    if len(schema["properties"]) > MAX_FIELDS:
        count = len(schema["properties"])
        raise ValueError(f"the schema has {count} properties; at most {MAX_FIELDS}")
    if outside := [ref for ref in _refs(schema) if not ref.startswith("#")]:
        # netsift never fetches a schema: a reference must point inside this one
        raise ValueError(f"the schema's $ref {outside[0][:100]!r} points outside it")
    return schema


def _refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        own = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return own + [ref for value in node.values() for ref in _refs(value)]
    if isinstance(node, list):
        return [ref for value in node for ref in _refs(value)]
    return []


def nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema with each top-level property also allowing null and nothing required:
    what an answer with unfilled fields is checked against. Its regular expressions are left
    out: a stranger's pattern can backtrack for minutes on a short string (Python's `re` has
    no time limit), so `pattern` and `patternProperties` are not checked on answers."""
    out: dict[str, Any] = _without_patterns(schema)
    out.pop("required", None)
    out["properties"] = {
        name: {"anyOf": [sub, {"type": "null"}]} for name, sub in out["properties"].items()
    }
    return out


def _without_patterns(node: Any, *, names: bool = False) -> Any:
    """`node` without its regular expressions; `names`: it maps property names to schemas (a
    property may well be called `pattern`)."""
    if isinstance(node, list):
        return [_without_patterns(value) for value in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if names:
            out[key] = _without_patterns(value)
        elif key in PATTERN_KEYWORDS:
            continue
        elif key in VALUE_KEYWORDS:  # data, not schemas
            out[key] = value
        else:
            out[key] = _without_patterns(value, names=key in NAMED_SCHEMAS)
    return out


def schema_problems(data: Any, schema: dict[str, Any], *, limit: int = 5) -> list[str]:
    """Where `data` breaks `schema`, as `path: message` lines (at most `limit`)."""
    from jsonschema.validators import validator_for

    validator = validator_for(schema)(schema)
    problems = []
    for error in sorted(validator.iter_errors(data), key=lambda e: list(e.path))[:limit]:
        where = "/".join(str(p) for p in error.path) or "(the object)"
        problems.append(f"{where}: {error.message[:200]}")
    return problems
