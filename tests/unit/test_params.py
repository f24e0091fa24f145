import pytest
from pydantic import ValidationError

from netsift.params import BatchSearchParams, FetchParams, SearchParams


def test_search_params_limits():
    assert SearchParams(query="  rust  ").query == "rust"
    assert SearchParams(query="q", providers="brave, ddg").providers == ["brave", "ddg"]
    for bad in (
        {"query": ""},
        {"query": "x" * 401},
        {"query": "q", "count": 0},
        {"query": "q", "count": 51},
    ):
        with pytest.raises(ValidationError):
            SearchParams(**bad)
    with pytest.raises(ValidationError):
        SearchParams.model_validate({"query": "q", "unknown": 1})


def test_fetch_params():
    assert FetchParams(url="https://a.example/").format == "markdown"
    with pytest.raises(ValidationError):
        FetchParams(url="https://a.example/", format="pdf")
    with pytest.raises(ValidationError):
        FetchParams(url="https://a.example/", max_length=0)


def test_batch_params():
    assert BatchSearchParams(queries=["a", "b"]).queries == ["a", "b"]
    with pytest.raises(ValidationError):
        BatchSearchParams(queries=[])
