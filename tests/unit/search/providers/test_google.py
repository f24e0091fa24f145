"""Google Programmable Search: the recorded payloads of providers/data/google.json."""

from __future__ import annotations

import pytest

from netsift.config import ProviderSettings
from netsift.errors import (
    InvalidInput,
    ProviderAuth,
    ProviderUnavailable,
    QuotaExceeded,
    RateLimited,
)
from netsift.search.providers.google import Google
from tests.unit.search.providers.contracts import (
    query,
    recorded,
    recorded_request,
    reply,
    same_url,
)

KEY = "AIzaSyTEST0000000000000000000000000000"
CX = "0123456789abcdef0"


@pytest.fixture
def google() -> Google:
    return Google(ProviderSettings(name="google", api_key=KEY, extra={"cx": CX}))


def test_request_matches_the_contract(google: Google) -> None:
    request = google.build_request(query(count=2, time_range="y"))
    assert same_url(request.url, recorded_request("google", "search_ok")["url"])


def test_request_clamps_and_pages(google: Google) -> None:
    params = google.build_request(query(count=30, page=3, region="de-de")).url.params
    assert (params["num"], params["start"]) == ("10", "21")
    assert (params["gl"], params["hl"]) == ("de", "de")
    assert google.build_request(query(safesearch="off")).url.params["safe"] == "off"


def test_pages_beyond_the_first_hundred_are_refused(google: Google) -> None:
    google.build_request(query(count=10, page=10))
    with pytest.raises(InvalidInput):
        google.build_request(query(count=10, page=11))


def test_needs_key_and_engine_id() -> None:
    assert not Google(ProviderSettings(name="google", api_key=KEY)).configured()
    assert not Google(ProviderSettings(name="google", extra={"cx": CX})).configured()
    assert Google(ProviderSettings(name="google")).missing() == "GOOGLE_API_KEY and GOOGLE_CSE_ID"


def test_parses_items(google: Google) -> None:
    results = google.parse_response(recorded("google", "search_ok"), query())
    assert [r.url for r in results] == [
        "https://tokio.rs/",
        "https://blog.example.dev/posts/choosing-an-async-runtime-2026",
    ]
    tokio, blog = results
    assert tokio.thumbnail == "https://encrypted-tbn0.gstatic.com/images?q=tbn:ANd9GcExample"
    assert tokio.published is None
    assert blog.published == "2026-08-19"
    assert blog.snippet.startswith("A practical comparison of Rust async runtimes")


def test_snippet_date_is_used_without_metatags(google: Google) -> None:
    body = (
        b'{"kind": "customsearch#search", "items": [{"title": "t", "link": "https://a.example/",'
        b' "snippet": "Mar 3, 2026 ... Runtime notes."}]}'
    )
    (result,) = google.parse_response(reply(200, body), query())
    assert (result.published, result.snippet) == ("2026-03-03", "Runtime notes.")


def test_no_items_with_zero_total_is_empty(google: Google) -> None:
    assert google.parse_response(recorded("google", "no_results"), query()) == []


@pytest.mark.parametrize(
    ("scenario", "error"),
    [
        ("auth_invalid_key", ProviderAuth),
        ("not_enabled_or_closed", ProviderAuth),
        ("quota_exceeded", QuotaExceeded),
        ("start_out_of_range", ProviderUnavailable),
    ],
)
def test_failures_are_typed(google: Google, scenario: str, error: type[Exception]) -> None:
    with pytest.raises(error) as caught:
        google.parse_response(recorded("google", scenario), query())
    assert KEY not in str(caught.value)


def test_per_minute_429_is_a_rate_limit(google: Google) -> None:
    body = (
        b'{"error": {"code": 429, "message": "Quota exceeded for quota metric \'Queries\' and'
        b' limit \'Queries per minute\'", "status": "RESOURCE_EXHAUSTED"}}'
    )
    with pytest.raises(RateLimited):
        google.parse_response(reply(429, body), query())


@pytest.mark.parametrize("body", [b"", b"{}", b'{"kind": "customsearch#search"}'])
def test_unusable_bodies(google: Google, body: bytes) -> None:
    with pytest.raises(ProviderUnavailable):
        google.parse_response(reply(200, body), query())
