"""`netsift tools --strict`: schemas OpenAI's strict mode accepts, judged by pydantic-ai's own
check, and the arguments a strict model sends (every field, null for the ones it leaves) still
validate against the same models."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from pydantic_ai.profiles.openai import OpenAIJsonSchemaTransformer

from netsift.tools.schemas import (
    ARGS,
    decode_json_text,
    definitions,
    input_schema,
    strict_schema,
)

STRICT = {d["function"]["name"]: d["function"] for d in definitions("openai", strict=True)}


def objects(node: Any) -> list[dict[str, Any]]:
    """Every schema object with properties, at any depth."""
    if isinstance(node, list):
        return [o for item in node for o in objects(item)]
    if not isinstance(node, dict):
        return []
    found = [node] if "properties" in node else []
    return found + [o for value in node.values() for o in objects(value)]


@pytest.mark.parametrize("name", sorted(STRICT))
def test_pydantic_ai_finds_each_strict_schema_compatible(name: str) -> None:
    assert STRICT[name]["strict"] is True
    check = OpenAIJsonSchemaTransformer(STRICT[name]["parameters"], strict=None)
    check.walk()
    assert check.is_strict_compatible, name


@pytest.mark.parametrize("name", sorted(STRICT))
def test_every_object_is_closed_and_asks_for_every_field(name: str) -> None:
    schema = STRICT[name]["parameters"]
    for node in objects(schema):
        assert node["additionalProperties"] is False
        assert node["required"] == list(node["properties"])
    text = json.dumps(schema)
    assert not re.search(r'"(default|minLength|maxLength)":', text)


# What a model fills in where an example from the schema alone would not do: a tool that needs
# one of several inputs, a list of result objects.
EXAMPLES: dict[str, dict[str, Any]] = {
    "citation_pack": {"urls": ["https://example.org/a"]},
    "dedupe_rank": {"results": [{"title": "A", "url": "https://example.org/a", "source": "x"}]},
}


@pytest.mark.parametrize("name", sorted(STRICT))
def test_a_strict_models_arguments_validate(name: str) -> None:
    """A strict model sends every field: the default where the description names one, null
    where the field may be null; the tool's own model takes them."""
    loose = input_schema(ARGS[name])
    arguments: dict[str, Any] = {}
    for field, spec in loose["properties"].items():
        if "default" in spec:
            arguments[field] = spec["default"]
        elif {"type": "null"} in spec.get("anyOf", []):
            arguments[field] = None
        else:
            arguments[field] = _example(spec)
    ARGS[name].model_validate(arguments | EXAMPLES.get(name, {}))


def _example(spec: dict[str, Any]) -> Any:
    kind = spec.get("type")
    if kind == "integer":
        return max(1, spec.get("minimum", 1))
    if kind == "array":
        return ["x y z"] if spec.get("minItems") else []
    if "enum" in spec:
        return spec["enum"][0]
    return "https://example.org/" if "URL" in spec.get("description", "") else "what is it"


def test_the_bounds_strict_mode_refuses_are_kept_in_the_description() -> None:
    schema = strict_schema(
        {
            "type": "object",
            "properties": {"q": {"type": "string", "minLength": 1, "description": "Query."}},
        }
    )
    assert schema["properties"]["q"]["description"] == "Query. (minLength=1)"
    assert schema["required"] == ["q"] and schema["additionalProperties"] is False


def test_without_strict_the_schemas_keep_their_defaults() -> None:
    plain = {d["function"]["name"]: d["function"] for d in definitions("openai")}
    assert "strict" not in plain["web_fetch"]
    assert plain["web_fetch"]["parameters"]["properties"]["max_length"]["default"] == 5000


def test_a_free_form_argument_goes_as_json_text_and_comes_back_an_object() -> None:
    spec = STRICT["extract_data"]["parameters"]["properties"]["output_schema"]
    assert {"type": "string"} in spec["anyOf"] and "JSON object" in spec["description"]
    schema = {"type": "object", "properties": {"price": {"type": "number"}}}
    sent = {"urls": ["https://example.org/a"], "output_schema": json.dumps(schema)}
    args = ARGS["extract_data"].model_validate(decode_json_text(ARGS["extract_data"], sent))
    assert args.model_dump()["output_schema"] == schema
    kept = decode_json_text(ARGS["extract_data"], {"output_schema": "not json"})
    assert kept["output_schema"] == "not json"  # left for validation to name
