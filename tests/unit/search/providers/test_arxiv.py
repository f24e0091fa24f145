"""arXiv: the recorded Atom feeds of tests/offline_web/providers/data/arxiv.json and arxiv.xml."""

from __future__ import annotations

import pytest

from netsift.config import ProviderSettings
from netsift.errors import ProviderUnavailable, RateLimited
from netsift.search.providers.arxiv import Arxiv, build_search_query
from tests.unit.search.providers.contracts import query, recorded, recorded_request, reply


@pytest.fixture
def arxiv() -> Arxiv:
    return Arxiv(ProviderSettings(name="arxiv"))


def test_request_matches_the_contract(arxiv: Arxiv) -> None:
    request = arxiv.build_request(query('"async runtime"', count=2))
    expected = recorded_request("arxiv", "query_ok")
    assert str(request.url).split("?")[0] == expected["url"].split("?")[0]
    params = request.url.params
    assert params["search_query"] == "all:async AND all:runtime"
    assert (params["start"], params["max_results"]) == ("0", "2")
    assert (params["sortBy"], params["sortOrder"]) == ("relevance", "descending")


def test_paging(arxiv: Arxiv) -> None:
    params = arxiv.build_request(query(count=10, page=3)).url.params
    assert (params["start"], params["max_results"]) == ("20", "10")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("rust", "all:rust"),
        ("rust async runtime", "all:rust AND all:async AND all:runtime"),
        ("au:del_maestro AND ti:checkerboard", "au:del_maestro AND ti:checkerboard"),
        ('"(futures)"', "all:futures"),
    ],
)
def test_build_search_query(text: str, expected: str) -> None:
    assert build_search_query(text) == expected


def test_parses_entries(arxiv: Arxiv) -> None:
    first, second = arxiv.parse_response(recorded("arxiv", "query_ok"), query())
    assert first.title == (
        "Work-Stealing Without Tears: Measuring Async Runtime Overheads in Memory-Safe"
        " Systems Languages"
    )
    assert first.url == "https://arxiv.org/abs/2601.01234v2"
    assert first.snippet.startswith("We measure scheduling, wake-up and I/O-driver overheads of")
    assert "\n" not in first.snippet
    assert first.published == "2026-01-05"
    assert first.authors == ["Maria Example", "Kenji Sample"]
    assert first.doi == "10.1145/3690000.3690001"
    assert first.extra["pdf_url"] == "https://arxiv.org/pdf/2601.01234v2"
    assert first.extra["arxiv_id"] == "2601.01234v2"
    assert first.extra["categories"] == ["cs.DC", "cs.PL"]
    assert first.extra["primary_category"] == "cs.DC"
    assert second.doi is None
    assert second.authors == ["Ana Placeholder"]
    assert second.published == "2025-11-06"
    assert {first.source, second.source} == {"arxiv"}


def test_empty_feed_is_empty(arxiv: Arxiv) -> None:
    assert arxiv.parse_response(recorded("arxiv", "query_empty"), query()) == []


@pytest.mark.parametrize("scenario", ["bad_id_error_feed", "bad_max_results"])
def test_error_feeds_are_failures_not_results(arxiv: Arxiv, scenario: str) -> None:
    with pytest.raises(ProviderUnavailable) as caught:
        arxiv.parse_response(recorded("arxiv", scenario), query())
    assert not caught.value.retryable


def test_error_feed_with_200_is_still_a_failure(arxiv: Arxiv) -> None:
    response = recorded("arxiv", "bad_id_error_feed")
    with pytest.raises(ProviderUnavailable, match="incorrect id format"):
        arxiv.parse_response(reply(200, response.content), query())


def test_rate_exceeded(arxiv: Arxiv) -> None:
    with pytest.raises(RateLimited, match="Rate exceeded"):
        arxiv.parse_response(recorded("arxiv", "rate_limited"), query())


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"<html><body>maintenance</body></html>",
        b"<feed xmlns='http://www.w3.org/2005/Atom'><entry>",
    ],
)
def test_unusable_bodies(arxiv: Arxiv, body: bytes) -> None:
    with pytest.raises(ProviderUnavailable):
        arxiv.parse_response(reply(200, body), query())


def test_entities_are_not_expanded(arxiv: Arxiv) -> None:
    body = (
        b'<?xml version="1.0"?><!DOCTYPE feed [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
        b'<feed xmlns="http://www.w3.org/2005/Atom"><entry><id>http://arxiv.org/abs/1</id>'
        b"<title>&x;</title></entry></feed>"
    )
    (result,) = arxiv.parse_response(reply(200, body), query())
    assert "root:" not in result.title


def test_service_unavailable(arxiv: Arxiv) -> None:
    with pytest.raises(ProviderUnavailable):
        arxiv.parse_response(reply(503, "Service Unavailable"), query())
