from typing import Any

import pytest
from pydantic import ValidationError

from netsift.errors import InvalidInput
from netsift.params import (
    MAX_BATCH_QUERIES,
    BatchSearchParams,
    CrawlParams,
    FetchParams,
    MapParams,
    ResearchParams,
    SearchParams,
    validated,
)


def test_search_params_limits():
    assert SearchParams(query="  rust  ").query == "rust"
    comma = SearchParams.model_validate({"query": "q", "providers": "brave, ddg"})
    assert comma.providers == ["brave", "ddg"]
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
        FetchParams.model_validate({"url": "https://a.example/", "format": "pdf"})
    with pytest.raises(ValidationError):
        FetchParams(url="https://a.example/", max_length=0)


def test_batch_params():
    assert BatchSearchParams(queries=["a", "b"]).queries == ["a", "b"]
    with pytest.raises(ValidationError):
        BatchSearchParams(queries=[])


@pytest.mark.parametrize(
    ("model", "fields"),
    [
        (SearchParams, {"query": "q", "count": "5"}),
        (SearchParams, {"query": "q", "no_cache": 1}),
        (FetchParams, {"url": "https://a.example/", "max_length": "500"}),
        (FetchParams, {"url": "https://a.example/", "start_index": 1.0}),
        (BatchSearchParams, {"queries": ["a"] * (MAX_BATCH_QUERIES + 1)}),
    ],
)
def test_params_are_strict_as_their_schemas(model, fields):
    with pytest.raises(ValidationError):
        model.model_validate(fields)


def test_validated_names_the_field():
    with pytest.raises(InvalidInput, match="max_length"):
        validated(FetchParams, url="https://a.example/", max_length="x")
    assert validated(ResearchParams, question="why?", deadline=10).deadline == 10.0


@pytest.mark.parametrize("model", [MapParams, CrawlParams])
def test_a_bad_path_pattern_is_named_once_in_plain_words(model):
    with pytest.raises(InvalidInput) as caught:
        validated(model, url="https://example.org/", exclude=["(("])
    message = caught.value.message
    assert message.startswith("exclude: '((' is not a regular expression")
    assert message.count("exclude") == 1 and "Value error" not in message


@pytest.mark.parametrize(
    ("options", "rounds", "per_round", "searches"),
    [
        ({"depth": "quick"}, 1, 4, 30),
        ({"depth": "deep"}, 5, 4, 30),  # the first wave's shape when no budget is named
        ({"depth": "deep", "max_searches": 100}, 5, 20, 100),
        ({"max_searches": 40, "max_iterations": 2}, 2, 20, 40),
        ({"max_searches": 7, "max_iterations": 2}, 2, 4, 7),  # 4, then 3: never narrower
        ({"depth": "quick", "max_searches": 100}, 1, 20, 100),  # one round is at most 20 wide
        ({"max_searches": 100, "breadth": 3}, 3, 3, 100),  # the caller's breadth stands
    ],
)
def test_research_shape_follows_the_budget(
    options: dict[str, Any], rounds: int, per_round: int, searches: int
) -> None:
    params = ResearchParams(question="what is it", **options)
    assert params.iterations() == rounds
    assert params.queries_per_round() == per_round
    assert params.searches() == searches


def test_research_breadth_is_bounded_by_the_widest_round() -> None:
    with pytest.raises(ValidationError):
        ResearchParams(question="what is it", breadth=21)
