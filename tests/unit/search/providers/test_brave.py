"""Brave: the recorded payloads of the offline web's providers/data/brave.json, parsed."""

from __future__ import annotations

import pytest

from netsift.config import ProviderSettings
from netsift.errors import ProviderAuth, ProviderUnavailable, QuotaExceeded, RateLimited
from netsift.search.providers.brave import Brave
from tests.unit.search.providers.contracts import query, recorded, recorded_request, reply

KEY = "BSA-test-0000000000000000000000000"


@pytest.fixture
def brave() -> Brave:
    return Brave(ProviderSettings(name="brave", api_key=KEY))


def test_request_matches_the_contract(brave: Brave) -> None:
    request = brave.build_request(query(count=3, region="us-en"))
    expected = recorded_request("brave", "search_ok")
    assert str(request.url).split("?")[0] == expected["url"].split("?")[0]
    assert dict(request.url.params) == {
        "q": "rust async runtime",
        "count": "3",
        "offset": "0",
        "safesearch": "moderate",
        "country": "US",
        "search_lang": "en",
    }
    assert request.headers["X-Subscription-Token"] == KEY
    assert KEY not in str(request.url)


def test_request_maps_options_and_clamps_count(brave: Brave) -> None:
    request = brave.build_request(
        query(count=50, time_range="w", safesearch="strict", page=3, region="en-GB")
    )
    params = request.url.params
    assert params["count"] == "20"
    assert params["freshness"] == "pw"
    assert params["safesearch"] == "strict"
    assert params["offset"] == "2"
    assert (params["country"], params["search_lang"]) == ("GB", "en")


def test_base_url_override_keeps_the_path() -> None:
    brave = Brave(ProviderSettings(name="brave", api_key=KEY, base_url="http://brave.test:81"))
    assert str(brave.build_request(query()).url).startswith(
        "http://brave.test:81/res/v1/web/search?"
    )


def test_parses_results_in_order(brave: Brave) -> None:
    results = brave.parse_response(recorded("brave", "search_ok"), query())
    assert [r.url for r in results] == [
        "https://tokio.rs/",
        "https://rust-lang.github.io/async-book/",
        "https://github.com/smol-rs/smol",
    ]
    tokio = results[0]
    assert tokio.title == "Tokio - An asynchronous Rust runtime"
    assert tokio.snippet.startswith("Tokio is an asynchronous runtime for the Rust programming")
    assert "<strong>" not in tokio.snippet
    assert tokio.published == "2026-07-02"
    assert tokio.thumbnail and tokio.thumbnail.startswith("https://imgs.search.brave.com/Zt7y")
    assert tokio.favicon and tokio.favicon.startswith("https://imgs.search.brave.com/q1Vx0")
    assert tokio.source == "brave"
    assert len(tokio.extra["extra_snippets"]) == 2
    assert results[1].published is None and results[1].thumbnail is None
    assert results[2].published == "2026-05-18"


def test_missing_web_object_is_an_honest_empty_answer(brave: Brave) -> None:
    assert brave.parse_response(recorded("brave", "search_empty"), query()) == []


def test_invalid_token_422_is_auth(brave: Brave) -> None:
    with pytest.raises(ProviderAuth, match="SUBSCRIPTION_TOKEN_INVALID"):
        brave.parse_response(recorded("brave", "auth_invalid_token"), query())


def test_missing_token_validation_is_auth(brave: Brave) -> None:
    body = (
        b'{"type":"ErrorResponse","error":{"status":422,"code":"VALIDATION","detail":"x",'
        b'"meta":{"errors":[{"type":"missing","loc":["header","x-subscription-token"]}]}}}'
    )
    with pytest.raises(ProviderAuth):
        brave.parse_response(reply(422, body), query())


def test_other_validation_error_is_not_auth(brave: Brave) -> None:
    with pytest.raises(ProviderUnavailable) as caught:
        brave.parse_response(recorded("brave", "validation_missing_q"), query())
    assert not caught.value.retryable


def test_rate_limited_waits_for_the_per_second_reset(brave: Brave) -> None:
    with pytest.raises(RateLimited) as caught:
        brave.parse_response(recorded("brave", "rate_limited"), query())
    assert caught.value.retry_after == 1.0


def test_quota_limited_waits_for_the_monthly_reset(brave: Brave) -> None:
    with pytest.raises(QuotaExceeded) as caught:
        brave.parse_response(recorded("brave", "quota_exhausted"), query())
    assert caught.value.details["retry_after"] == 1468209.0


@pytest.mark.parametrize("status", [500, 502, 503])
def test_server_errors_are_unavailable(brave: Brave, status: int) -> None:
    with pytest.raises(ProviderUnavailable) as caught:
        brave.parse_response(reply(status, "upstream error"), query())
    assert caught.value.retryable


@pytest.mark.parametrize(
    "body", [b"", b'{"type": "search", "web": {"resu', b"<html>oops</html>", b"{}"]
)
def test_malformed_or_foreign_bodies_are_unavailable(brave: Brave, body: bytes) -> None:
    with pytest.raises(ProviderUnavailable):
        brave.parse_response(reply(200, body), query())


def test_not_configured_without_a_key() -> None:
    brave = Brave(ProviderSettings(name="brave"))
    assert not brave.configured()
    assert "BRAVE_API_KEY" in brave.missing()
