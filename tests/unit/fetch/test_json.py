"""JSON bodies: pretty-printed with Unicode kept; invalid JSON says where it breaks."""

from __future__ import annotations

import json

import pytest

from netsift.errors import DecodeError
from netsift.fetch.json import extract_json


def test_minified_json_is_pretty_printed_with_unicode_kept() -> None:
    text = '{"name":"Zoë","tags":["café","日本"],"n":1.5,"ok":true,"none":null}'
    out = extract_json(text)
    assert out == (
        "{\n"
        '  "name": "Zoë",\n'
        '  "tags": [\n    "café",\n    "日本"\n  ],\n'
        '  "n": 1.5,\n  "ok": true,\n  "none": null\n'
        "}"
    )
    assert json.loads(out) == json.loads(text)


@pytest.mark.parametrize("scalar", ["42", '"just a string"', "null", "[]"])
def test_any_json_value_is_accepted(scalar: str) -> None:
    assert json.loads(extract_json(scalar)) == json.loads(scalar)


@pytest.mark.parametrize("prefix", [")]}'\n", "for(;;);", "while(1);"])
def test_anti_xssi_prefixes_are_dropped(prefix: str) -> None:
    assert extract_json(prefix + '{"a": 1}') == '{\n  "a": 1\n}'


def test_a_leading_bom_is_tolerated() -> None:
    assert extract_json('\ufeff{"a": 1}') == '{\n  "a": 1\n}'


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [
        ('{"a": 1,}', 1, 9),
        ('{\n  "a": 1,\n  "b": tru\n}', 3, 8),
        ("", 1, 1),
        ("<html>not json</html>", 1, 1),
        ('{"a": 1} trailing', 1, 10),
    ],
)
def test_invalid_json_is_a_decode_error_with_line_and_column(
    text: str, line: int, column: int
) -> None:
    with pytest.raises(DecodeError) as caught:
        extract_json(text)
    assert caught.value.code == "decode_error"
    assert caught.value.details == {"line": line, "column": column}
    assert f"line {line}, column {column}" in caught.value.message


def test_absurd_nesting_is_a_decode_error_not_a_crash() -> None:
    with pytest.raises(DecodeError, match="nested too deeply"):
        extract_json("[" * 200_000 + "]" * 200_000)
