"""Tavily: the recorded payloads of tests/offline_web/providers/data/tavily.json."""

from __future__ import annotations

import json

import pytest

from netsift.config import ProviderSettings
from netsift.errors import (
    InvalidInput,
    ProviderAuth,
    ProviderUnavailable,
    QuotaExceeded,
    RateLimited,
)
from netsift.search.providers.tavily import Tavily
from tests.unit.search.providers.contracts import query, recorded, recorded_request, reply

KEY = "tvly-dev-0000000000000000000000000000"


@pytest.fixture
def tavily() -> Tavily:
    return Tavily(ProviderSettings(name="tavily", api_key=KEY))


def test_request_matches_the_contract(tavily: Tavily) -> None:
    request = tavily.build_request(query(count=3))
    expected = recorded_request("tavily", "search_ok")
    assert (request.method, str(request.url)) == ("POST", expected["url"])
    assert json.loads(request.content) == expected["json"]
    assert request.headers["Authorization"] == f"Bearer {KEY}"
    assert request.headers["Content-Type"] == "application/json"
    assert KEY not in request.content.decode()


def test_request_clamps_count_and_maps_time_range(tavily: Tavily) -> None:
    body = json.loads(tavily.build_request(query(count=50, time_range="m")).content)
    assert body["max_results"] == 20
    assert body["time_range"] == "month"


def test_no_pages_beyond_the_first(tavily: Tavily) -> None:
    with pytest.raises(InvalidInput):
        tavily.build_request(query(page=2))


def test_parses_results(tavily: Tavily) -> None:
    results = tavily.parse_response(recorded("tavily", "search_ok"), query())
    assert [r.url for r in results] == [
        "https://tokio.rs/",
        "https://rust-lang.github.io/async-book/",
        "https://www.reddit.com/r/rust/comments/1f0example/which_async_runtime_do_you_use/",
    ]
    assert results[0].favicon == "https://tokio.rs/favicon.ico"
    assert results[0].extra["score"] == 0.9182311
    assert results[2].favicon is None
    assert results[1].snippet.startswith("This book aims to be a thorough guide")


def test_news_results_carry_their_date(tavily: Tavily) -> None:
    (result,) = tavily.parse_response(recorded("tavily", "search_news_ok"), query())
    assert result.published == "2025-02-20"
    assert result.title == "The Rust 2024 edition lands in stable"


def test_legacy_body_key_scenario_parses_the_same(tavily: Tavily) -> None:
    assert len(tavily.parse_response(recorded("tavily", "legacy_body_key_request"), query())) == 3


@pytest.mark.parametrize(
    ("scenario", "error"),
    [
        ("auth_invalid", ProviderAuth),
        ("rate_limited", RateLimited),
        ("plan_limit_exceeded", QuotaExceeded),
        ("paygo_limit_exceeded", QuotaExceeded),
        ("bad_request_query_too_long", ProviderUnavailable),
    ],
)
def test_failures_are_typed(tavily: Tavily, scenario: str, error: type[Exception]) -> None:
    with pytest.raises(error) as caught:
        tavily.parse_response(recorded("tavily", scenario), query())
    assert KEY not in str(caught.value)


def test_failure_messages_quote_tavily(tavily: Tavily) -> None:
    with pytest.raises(QuotaExceeded, match="plan's set usage limit"):
        tavily.parse_response(recorded("tavily", "plan_limit_exceeded"), query())


@pytest.mark.parametrize("body", [b"", b"{}", b'{"results": "none"}', b"<html>"])
def test_unusable_bodies(tavily: Tavily, body: bytes) -> None:
    with pytest.raises(ProviderUnavailable):
        tavily.parse_response(reply(200, body), query())


def test_server_error(tavily: Tavily) -> None:
    with pytest.raises(ProviderUnavailable):
        tavily.parse_response(reply(500, b'{"detail": {"error": "Internal"}}'), query())


def test_needs_a_key() -> None:
    assert not Tavily(ProviderSettings(name="tavily")).configured()
