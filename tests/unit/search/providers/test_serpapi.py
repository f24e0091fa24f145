"""SerpApi (Google engine): the recorded payloads of providers/data/serpapi.json."""

from __future__ import annotations

import pytest

from netsift.config import ProviderSettings
from netsift.errors import ProviderAuth, ProviderUnavailable, QuotaExceeded, RateLimited
from netsift.search.providers.serpapi import SerpApi
from tests.unit.search.providers.contracts import (
    query,
    recorded,
    recorded_request,
    reply,
    same_url,
)

KEY = "serpapi-test-0000000000000000000000000000000000000000000000000000000000000000"


@pytest.fixture
def serpapi() -> SerpApi:
    return SerpApi(ProviderSettings(name="serpapi", api_key=KEY))


def test_request_matches_the_contract(serpapi: SerpApi) -> None:
    request = serpapi.build_request(query(region="us-en"))
    assert same_url(request.url, recorded_request("serpapi", "google_search_ok")["url"])


def test_request_maps_options(serpapi: SerpApi) -> None:
    params = serpapi.build_request(
        query(page=3, time_range="w", safesearch="off", region="uk-en")
    ).url.params
    assert params["start"] == "20"
    assert params["tbs"] == "qdr:w"
    assert params["safe"] == "off"
    assert (params["gl"], params["hl"]) == ("uk", "en")
    assert params["api_key"] == KEY


def test_parses_organic_results(serpapi: SerpApi) -> None:
    results = serpapi.parse_response(recorded("serpapi", "google_search_ok"), query())
    assert [r.url for r in results] == [
        "https://tokio.rs/",
        "https://blog.example.dev/posts/choosing-an-async-runtime-2026",
    ]
    tokio, blog = results
    assert tokio.favicon and tokio.favicon.endswith("0a1b2c3d4e5f.png")
    assert tokio.published is None
    assert blog.published == "2026-08-19"
    assert blog.thumbnail and blog.thumbnail.endswith("9f8e7d6c5b4a.jpeg")
    assert blog.extra["position"] == 2
    assert {r.source for r in results} == {"serpapi"}


def test_no_results_is_an_honest_empty_answer(serpapi: SerpApi) -> None:
    assert serpapi.parse_response(recorded("serpapi", "google_no_results"), query()) == []


def test_relative_dates_are_dropped_not_guessed(serpapi: SerpApi) -> None:
    body = (
        b'{"search_metadata": {"status": "Success"}, "organic_results": [{"position": 1,'
        b' "title": "t", "link": "https://a.example/", "snippet": "s", "date": "3 days ago"}]}'
    )
    (result,) = serpapi.parse_response(reply(200, body), query())
    assert result.published is None and result.extra["date"] == "3 days ago"


@pytest.mark.parametrize(
    ("scenario", "error"),
    [
        ("auth_invalid", ProviderAuth),
        ("account_forbidden", ProviderAuth),
        ("out_of_searches", QuotaExceeded),
        ("missing_query", ProviderUnavailable),
    ],
)
def test_failures_are_typed(serpapi: SerpApi, scenario: str, error: type[Exception]) -> None:
    with pytest.raises(error) as caught:
        serpapi.parse_response(recorded("serpapi", scenario), query())
    assert KEY not in str(caught.value)


def test_throughput_429_is_a_rate_limit(serpapi: SerpApi) -> None:
    body = b'{"error": "Your account has exceeded the hourly searches throughput limit."}'
    with pytest.raises(RateLimited) as caught:
        serpapi.parse_response(reply(429, body, retry_after="120"), query())
    assert caught.value.retry_after == 120.0


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"{}",
        b'{"search_metadata": {"status": "Error"}, "error": "Google hasn\'t responded"}',
        b'{"search_metadata": {"status": "Processing"}}',
    ],
)
def test_unusable_answers(serpapi: SerpApi, body: bytes) -> None:
    with pytest.raises(ProviderUnavailable):
        serpapi.parse_response(reply(200, body), query())


def test_needs_a_key() -> None:
    serpapi = SerpApi(ProviderSettings(name="serpapi"))
    assert not serpapi.configured() and "SERPAPI_API_KEY" in serpapi.missing()
