"""Bing through SerpApi's Bing engine (scenario bing_search_ok of serpapi.json)."""

from __future__ import annotations

import pytest

from netsift.config import ProviderSettings, Settings
from netsift.errors import ProviderAuth, RateLimited
from netsift.search.providers.bing import Bing
from tests.unit.search.providers.contracts import (
    query,
    recorded,
    recorded_request,
    reply,
    same_url,
)

KEY = "serpapi-test-0000"


@pytest.fixture
def bing() -> Bing:
    return Bing(ProviderSettings(name="bing", api_key=KEY))


def test_request_matches_the_contract(bing: Bing) -> None:
    request = bing.build_request(query(count=2, region="us-en"))
    assert same_url(request.url, recorded_request("serpapi", "bing_search_ok")["url"])
    assert "api.bing.microsoft.com" not in str(request.url)


def test_request_pages_and_clamps(bing: Bing) -> None:
    params = bing.build_request(query(count=50, page=2, safesearch="strict")).url.params
    assert (params["count"], params["first"], params["safeSearch"]) == ("50", "51", "Strict")


def test_uses_the_serpapi_key_from_settings() -> None:
    settings = Settings(serpapi_api_key=KEY, _env_file=None)
    bing = Bing(settings.provider_settings("bing"))
    assert bing.configured()
    assert bing.build_request(query()).url.params["api_key"] == KEY
    assert not Bing(ProviderSettings(name="bing")).configured()


def test_parses_bing_results(bing: Bing) -> None:
    results = bing.parse_response(recorded("serpapi", "bing_search_ok"), query())
    assert [r.url for r in results] == [
        "https://tokio.rs/",
        "https://rust-lang.github.io/async-book/",
    ]
    assert results[1].published == "2026-03-03"
    assert {r.source for r in results} == {"bing"}


def test_failures_are_serpapis(bing: Bing) -> None:
    with pytest.raises(ProviderAuth):
        bing.parse_response(recorded("serpapi", "auth_invalid"), query())
    with pytest.raises(RateLimited):
        bing.parse_response(reply(429, b'{"error": "hourly throughput limit"}'), query())
