"""Crossref: the recorded payloads of tests/offline_web/providers/data/crossref.json."""

from __future__ import annotations

import pytest

from netsift.config import ProviderSettings
from netsift.errors import ProviderUnavailable, RateLimited
from netsift.search.providers.crossref import Crossref
from tests.unit.search.providers.contracts import (
    query,
    recorded,
    recorded_request,
    reply,
    same_url,
)


@pytest.fixture
def crossref() -> Crossref:
    return Crossref(ProviderSettings(name="crossref", extra={"mailto": "ops@example.org"}))


def test_request_matches_the_contract(crossref: Crossref) -> None:
    request = crossref.build_request(query(count=2))
    assert same_url(request.url, recorded_request("crossref", "works_query_ok")["url"])
    assert request.headers["User-Agent"].endswith("(mailto:ops@example.org)")


def test_request_without_mailto_and_paging() -> None:
    crossref = Crossref(ProviderSettings(name="crossref"))
    params = crossref.build_request(query(count=20, page=4)).url.params
    assert "mailto" not in params
    assert (params["rows"], params["offset"]) == ("20", "60")


def test_parses_works(crossref: Crossref) -> None:
    first, second = crossref.parse_response(recorded("crossref", "works_query_ok"), query())
    assert first.title == "Evaluating asynchronous runtimes for Rust network services"
    assert first.url == "https://doi.org/10.1145/3690000.3690001"
    assert first.doi == "10.1145/3690000.3690001"
    assert first.authors == ["Maria Example", "Kenji Sample"]
    assert first.published == "2025-03-14"
    assert first.snippet == (
        "We compare three asynchronous runtimes for Rust on latency-sensitive services."
    )
    assert first.extra["venue"] == "Proceedings of the ACM on Programming Languages"
    assert first.extra["cited_by_count"] == 17
    assert second.published == "2024"
    assert second.snippet == ""
    assert second.authors == ["Ana Placeholder"]
    assert "venue" not in second.extra


def test_empty_items_are_empty(crossref: Crossref) -> None:
    body = b'{"status": "ok", "message-type": "work-list", "message": {"items": []}}'
    assert crossref.parse_response(reply(200, body), query()) == []


def test_rate_limit_waits_one_interval(crossref: Crossref) -> None:
    with pytest.raises(RateLimited) as caught:
        crossref.parse_response(recorded("crossref", "rate_limited"), query())
    assert caught.value.retry_after == 1.0


@pytest.mark.parametrize("scenario", ["validation_failure", "offset_too_large", "not_found"])
def test_refusals_quote_crossref(crossref: Crossref, scenario: str) -> None:
    with pytest.raises(ProviderUnavailable) as caught:
        crossref.parse_response(recorded("crossref", scenario), query())
    assert not caught.value.retryable


def test_validation_message_is_quoted(crossref: Crossref) -> None:
    with pytest.raises(ProviderUnavailable, match="too large"):
        crossref.parse_response(recorded("crossref", "offset_too_large"), query())


@pytest.mark.parametrize(
    "body", [b"", b"{}", b'{"status": "ok", "message": {}}', b'{"status": "failed", "message": []}']
)
def test_unusable_bodies(crossref: Crossref, body: bytes) -> None:
    with pytest.raises(ProviderUnavailable):
        crossref.parse_response(reply(200, body), query())
