"""Wikipedia: the recorded Action API payloads of providers/data/wikipedia.json."""

from __future__ import annotations

import pytest

from netsift.config import ProviderSettings
from netsift.errors import ProviderUnavailable, RateLimited
from netsift.search.providers.wikipedia import Wikipedia, build_article_url
from tests.unit.search.providers.contracts import (
    query,
    recorded,
    recorded_request,
    reply,
    same_url,
)


@pytest.fixture
def wikipedia() -> Wikipedia:
    return Wikipedia(ProviderSettings(name="wikipedia"))


def test_request_matches_the_contract(wikipedia: Wikipedia) -> None:
    request = wikipedia.build_request(query(count=3))
    assert same_url(request.url, recorded_request("wikipedia", "action_search_ok")["url"])
    assert request.headers["User-Agent"].startswith("netsift/")


def test_region_language_picks_the_edition(wikipedia: Wikipedia) -> None:
    request = wikipedia.build_request(query(region="de-de", page=2, count=5))
    assert request.url.host == "de.wikipedia.org"
    assert request.url.params["sroffset"] == "5"


def test_configured_base_url_wins() -> None:
    wiki = Wikipedia(ProviderSettings(name="wikipedia", base_url="http://wiki.test:9/"))
    request = wiki.build_request(query(region="de-de"))
    assert str(request.url).startswith("http://wiki.test:9/w/api.php?")


def test_parses_hits_and_builds_urls(wikipedia: Wikipedia) -> None:
    results = wikipedia.parse_response(recorded("wikipedia", "action_search_ok"), query())
    assert [r.url for r in results] == [
        "https://en.wikipedia.org/wiki/Async/await",
        "https://en.wikipedia.org/wiki/Rust_(programming_language)",
        "https://en.wikipedia.org/wiki/Futures_and_promises",
    ]
    assert results[0].snippet == (
        "async/await pattern is a syntactic feature of many programming languages that allows"
        " an asynchronous, non-blocking function"
    )
    assert results[2].snippet.endswith("third-party runtimes & crates")
    assert results[1].extra["timestamp"] == "2026-09-18T08:02:11Z"
    assert {r.source for r in results} == {"wikipedia"}


@pytest.mark.parametrize(
    ("title", "path"),
    [
        ("Café au lait", "/wiki/Caf%C3%A9_au_lait"),
        ("C++", "/wiki/C%2B%2B"),
        ("AC/DC", "/wiki/AC/DC"),
        ("100% (song)", "/wiki/100%25_(song)"),
    ],
)
def test_article_urls_are_percent_encoded(title: str, path: str) -> None:
    assert build_article_url("https://en.wikipedia.org", title) == f"https://en.wikipedia.org{path}"


def test_empty_search_is_an_honest_empty_answer(wikipedia: Wikipedia) -> None:
    response = recorded("wikipedia", "action_search_empty_with_suggestion")
    assert wikipedia.parse_response(response, query()) == []


def test_api_error_on_200_is_a_failure(wikipedia: Wikipedia) -> None:
    with pytest.raises(ProviderUnavailable, match="missingparam"):
        wikipedia.parse_response(recorded("wikipedia", "action_error_missing_param"), query())


def test_throttling_is_a_rate_limit(wikipedia: Wikipedia) -> None:
    with pytest.raises(RateLimited) as caught:
        wikipedia.parse_response(recorded("wikipedia", "rate_limited"), query())
    assert caught.value.retry_after == 5.0
    with pytest.raises(RateLimited):
        wikipedia.parse_response(reply(403, "User-Agent policy"), query())
    body = b'{"error": {"code": "ratelimited", "info": "You have exceeded your rate limit."}}'
    with pytest.raises(RateLimited):
        wikipedia.parse_response(reply(200, body), query())


@pytest.mark.parametrize("body", [b"", b"[]", b'{"batchcomplete": true}', b"<html>"])
def test_unusable_bodies(wikipedia: Wikipedia, body: bytes) -> None:
    with pytest.raises(ProviderUnavailable):
        wikipedia.parse_response(reply(200, body), query())


def test_server_error(wikipedia: Wikipedia) -> None:
    with pytest.raises(ProviderUnavailable):
        wikipedia.parse_response(reply(503, "down"), query())
