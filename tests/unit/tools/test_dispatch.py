"""Argument handling of the dispatcher: pure checks, no network."""

import pytest

from netsift.errors import InvalidInput
from netsift.tools.dispatch import _arguments


def test_arguments_accept_a_dict_a_json_string_or_nothing():
    assert _arguments({"a": 1}) == {"a": 1}
    assert _arguments('{"a": 1}') == {"a": 1}
    assert _arguments("") == {}
    assert _arguments(None) == {}


@pytest.mark.parametrize("raw", ["{", "[1]", "3", '"text"'])
def test_arguments_refuse_anything_but_an_object(raw):
    with pytest.raises(InvalidInput):
        _arguments(raw)
