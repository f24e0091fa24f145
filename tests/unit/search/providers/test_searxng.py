"""SearXNG: the recorded payloads of tests/offline_web/providers/data/searxng.json."""

from __future__ import annotations

import logging

import pytest

from netsift.config import ProviderSettings
from netsift.errors import ProviderAuth, ProviderUnavailable, RateLimited
from netsift.search.providers.searxng import SearXNG
from tests.unit.search.providers.contracts import (
    query,
    recorded,
    recorded_request,
    reply,
    same_url,
)

URL = "http://127.0.0.1:8888"


@pytest.fixture
def searxng() -> SearXNG:
    return SearXNG(ProviderSettings(name="searxng", base_url=URL))


def test_request_matches_the_contract(searxng: SearXNG) -> None:
    request = searxng.build_request(query(region="en"))
    expected = recorded_request("searxng", "search_ok")
    assert same_url(request.url, expected["url"])
    assert "text/html" in request.headers["Accept"]
    assert "gzip" in request.headers["Accept-Encoding"]
    assert request.headers["Accept-Language"]
    assert request.headers["User-Agent"].startswith("netsift/")


def test_request_maps_options(searxng: SearXNG) -> None:
    params = searxng.build_request(
        query(time_range="y", safesearch="off", page=2, region="de-de")
    ).url.params
    assert params["time_range"] == "year"
    assert params["safesearch"] == "0"
    assert params["pageno"] == "2"
    assert params["language"] == "de-DE"
    strict = searxng.build_request(query(safesearch="strict")).url.params
    assert strict["safesearch"] == "2" and "language" not in strict


def test_a_region_of_non_ascii_letters_is_no_preference(searxng: SearXNG) -> None:
    """It once reached the Accept-Language header, which httpx cannot encode: a 500."""
    request = searxng.build_request(query(region="\u00e1A\u00e9"))
    assert "language" not in request.url.params
    assert request.headers["Accept-Language"] == "en-US,en;q=0.8"


def test_instance_url_with_a_path_prefix() -> None:
    searxng = SearXNG(ProviderSettings(name="searxng", base_url="https://host.test/searx/"))
    assert str(searxng.build_request(query()).url).startswith("https://host.test/searx/search?")


def test_configured_only_with_an_instance_url() -> None:
    unset = SearXNG(ProviderSettings(name="searxng"))
    assert not unset.configured()
    assert "SEARXNG_URL" in unset.missing()
    assert SearXNG(ProviderSettings(name="searxng", base_url=URL)).configured()


def test_parses_results(searxng: SearXNG, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="netsift.search.providers.searxng"):
        results = searxng.parse_response(recorded("searxng", "search_ok"), query())
    assert [r.url for r in results] == [
        "https://tokio.rs/",
        "https://github.com/smol-rs/smol",
        "https://en.wikipedia.org/wiki/Async/await",
    ]
    tokio, smol, wiki = results
    assert tokio.title == "Tokio - An asynchronous Rust runtime"
    assert tokio.extra["engines"] == ["duckduckgo", "brave"]
    assert tokio.published is None and tokio.thumbnail is None
    assert smol.published == "2026-05-18"
    assert smol.thumbnail == "https://opengraph.githubassets.com/1/smol-rs/smol"
    assert wiki.snippet == "Programming language syntactic pattern"
    assert {r.source for r in results} == {"searxng"}
    assert "google (Suspended: CAPTCHA), startpage (timeout)" in caplog.text


def test_no_results_because_every_engine_failed_is_an_outage(searxng: SearXNG) -> None:
    with pytest.raises(ProviderUnavailable) as caught:
        searxng.parse_response(recorded("searxng", "search_empty_all_engines_failed"), query())
    assert "duckduckgo (Suspended: CAPTCHA)" in caught.value.message


def test_no_results_with_all_engines_answering_is_empty(searxng: SearXNG) -> None:
    body = b'{"query": "x", "results": [], "unresponsive_engines": []}'
    assert searxng.parse_response(reply(200, body), query()) == []


def test_json_disabled_says_how_to_enable_it(searxng: SearXNG) -> None:
    with pytest.raises(ProviderAuth, match=r"search\.formats"):
        searxng.parse_response(recorded("searxng", "json_format_disabled"), query())


def test_limiter_is_a_rate_limit(searxng: SearXNG) -> None:
    with pytest.raises(RateLimited, match="limiter"):
        searxng.parse_response(recorded("searxng", "limiter_blocked"), query())


@pytest.mark.parametrize("scenario", ["empty_query", "bad_parameter"])
def test_bad_requests_quote_the_instance(searxng: SearXNG, scenario: str) -> None:
    with pytest.raises(ProviderUnavailable) as caught:
        searxng.parse_response(recorded("searxng", scenario), query())
    assert not caught.value.retryable
    assert "HTTP 400" in caught.value.message


@pytest.mark.parametrize("body", [b"", b"<html></html>", b'{"query": "x"}', b'{"results": [{"u'])
def test_unusable_bodies(searxng: SearXNG, body: bytes) -> None:
    with pytest.raises(ProviderUnavailable):
        searxng.parse_response(reply(200, body), query())


def test_crash_is_unavailable(searxng: SearXNG) -> None:
    with pytest.raises(ProviderUnavailable, match="search error"):
        searxng.parse_response(reply(500, b'{"error": "search error"}'), query())
