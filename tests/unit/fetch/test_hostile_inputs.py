"""Inputs that once answered `internal` get their stable code or a result."""

from __future__ import annotations

import pytest

from netsift.errors import InvalidURL
from netsift.fetch.fetcher import extract_content
from netsift.net.guard import check_url
from tests.offline_web.hostile import big_integer_json, deep_json_ld


def test_an_a_label_that_does_not_decode_is_an_invalid_url():
    with pytest.raises(InvalidURL) as caught:
        check_url("http://xn--localhost-/")
    assert caught.value.details == {"host": "xn--localhost-"}
    assert str(check_url("http://xn--bcher-kva.example/")) == "http://xn--bcher-kva.example/"


def test_a_json_integer_too_long_to_convert_is_kept_as_its_digits():
    content = extract_content(
        big_integer_json(5000), content_type="application/json", url="", format="markdown"
    )
    assert "1" * 5000 in content.content


def test_lone_surrogate_escapes_become_replacement_characters():
    content = extract_content(
        b'["a\\ud800b"]', content_type="application/json", url="", format="markdown"
    )
    assert content.content == '[\n  "a\ufffdb"\n]'
    content.content.encode("utf-8")


def test_json_ld_nested_past_the_stack_is_skipped():
    content = extract_content(
        deep_json_ld(200_000), content_type="text/html", url="", format="markdown"
    )
    assert content.metadata.json_ld == []
