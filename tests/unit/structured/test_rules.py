"""The pure rules of structured extraction: a schema's checks, nullable answers, what a passage
states, and how a fact's key names a field."""

from __future__ import annotations

import pytest

from netsift.structured.evidence import found_in, states
from netsift.structured.page_data import _coerce, _match
from netsift.structured.schema import FieldSpec, check_schema, nullable, schema_problems

SCHEMA = {
    "type": "object",
    "properties": {
        "price": {"type": "number"},
        "tags": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["price"],
}


def test_an_answer_with_null_fields_still_validates_against_the_nullable_schema():
    assert schema_problems({"price": None, "tags": None}, nullable(SCHEMA)) == []
    assert schema_problems({"price": None}, SCHEMA) == ["price: None is not of type 'number'"]
    assert schema_problems({"price": "9"}, nullable(SCHEMA))  # wrong type stays wrong


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {f"f{i}": {"type": "string"} for i in range(65)}},
        {"type": "object", "properties": {"a": {"type": "string", "description": "x" * 20_001}}},
        {"type": "object", "properties": {"a": {"$ref": "#/$defs/nothing-here", "minLength": -1}}},
    ],
)
def test_schemas_out_of_bounds_are_refused(schema):
    with pytest.raises(ValueError):
        check_schema(schema)


@pytest.mark.parametrize(
    ("value", "passage", "stated"),
    [
        (89, "The lamp costs 89 pounds.", True),
        (1299.0, "Now $1,299.00 in the sale.", True),
        (1, "The lamp costs 89 pounds.", False),
        ("linen", "a brass arm and a Linen shade", True),
        ("silk", "a brass arm and a linen shade", False),
        (["brass", "linen"], "a brass arm and a linen shade", True),
        ({"name": "Ada", "year": 2019}, "Ada joined in 2019.", True),
        (True, "In stock.", True),  # a boolean cannot be quoted: its passage is its evidence
    ],
)
def test_a_passage_states_a_value_only_with_its_words_and_numbers(value, passage, stated):
    assert (states(value, passage) is None) is stated


def test_a_quote_is_found_across_markup_entities_and_quote_styles():
    assert found_in("Hearth & Grain", "<td>Hearth &amp; Grain</td>")
    assert found_in("it\u2019s \u201cfine\u201d", 'it\'s "fine"')
    assert not found_in("", "anything")


@pytest.mark.parametrize(
    ("field", "path", "score"),
    [
        ("start date", ("start date",), 3.0),
        ("author", ("author", "name"), 2.5),
        ("company", ("hiring organization", "name"), 2.0),
        ("last name", ("profile", "last name"), 3.0),
        ("last name", ("profile", "last", "name"), 1.5),
        ("height", ("height m",), 1.0),
        ("date", ("start date",), 2.0),  # a synonym
        ("weight", ("net weight",), 1.0),
        ("start date", ("date",), 0.5),
        ("price", ("sku",), 0.0),
    ],
)
def test_how_well_a_key_names_a_field(field, path, score):
    assert _match(field, path) == score


@pytest.mark.parametrize(
    ("value", "kind", "coerced"),
    [
        ("64.50", "number", 64.5),
        ("£14.20 an hour", "number", 14.2),
        ("2019", "integer", 2019),
        ("4.5", "integer", None),
        ("https://schema.org/OutOfStock", "boolean", False),
        ({"@type": "Brand", "name": "Summit"}, "string", "Summit"),
        (["a", "b"], "string", None),
        ("Full-time", "number", None),
    ],
)
def test_a_fact_takes_the_fields_type_or_is_passed_over(value, kind, coerced):
    assert _coerce(value, FieldSpec("f", kind, {"type": kind})) == coerced


def test_a_strangers_regular_expression_is_never_run_on_an_answer():
    """`(a+)+$` backtracks for minutes on a short string; answers are checked without it."""
    schema = {
        "type": "object",
        "properties": {
            "code": {"type": "string", "pattern": "^(a+)+$"},
            "pattern": {"type": "string", "enum": ["pattern"]},
        },
    }
    check_schema(schema)
    relaxed = nullable(schema)
    assert "pattern" not in relaxed["properties"]["code"]["anyOf"][0]
    assert relaxed["properties"]["pattern"]["anyOf"][0]["enum"] == ["pattern"]
    assert schema_problems({"code": "a" * 40 + "!", "pattern": "pattern"}, relaxed) == []
