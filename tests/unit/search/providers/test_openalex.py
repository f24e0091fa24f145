"""OpenAlex: the recorded payloads of tests/offline_web/providers/data/openalex.json."""

from __future__ import annotations

import pytest

from netsift.config import ProviderSettings
from netsift.errors import ProviderUnavailable, QuotaExceeded, RateLimited
from netsift.search.providers.openalex import OpenAlex, build_abstract, strip_doi
from tests.unit.search.providers.contracts import (
    query,
    recorded,
    recorded_request,
    reply,
    same_url,
)

KEY = "oa-test-0000000000"


def test_request_matches_the_contract() -> None:
    openalex = OpenAlex(
        ProviderSettings(name="openalex", api_key=KEY, extra={"mailto": "ops@example.org"})
    )
    request = openalex.build_request(query(count=2))
    assert same_url(request.url, recorded_request("openalex", "works_search_ok")["url"])


def test_keyless_request_and_clamping() -> None:
    openalex = OpenAlex(ProviderSettings(name="openalex"))
    assert openalex.configured()
    params = openalex.build_request(query(count=50, page=3)).url.params
    assert "api_key" not in params
    assert (params["per-page"], params["page"]) == ("50", "3")


def test_parses_works() -> None:
    openalex = OpenAlex(ProviderSettings(name="openalex"))
    first, second = openalex.parse_response(recorded("openalex", "works_search_ok"), query())
    assert first.title == "Evaluating asynchronous runtimes for Rust network services"
    assert first.url == "https://doi.org/10.1145/3690000.3690001"
    assert first.doi == "10.1145/3690000.3690001"
    assert first.authors == ["Maria Example", "Kenji Sample"]
    assert first.published == "2025-03-14"
    assert first.snippet == (
        "We compare three asynchronous runtimes for Rust on latency-sensitive services."
    )
    assert first.extra["cited_by_count"] == 17
    assert first.extra["venue"] == "Proceedings of the ACM on Programming Languages"
    assert second.doi is None
    assert second.url == "https://arxiv.org/abs/2411.00001"
    assert second.snippet == ""
    assert second.authors == ["Ana Placeholder"]
    assert second.extra["pdf_url"] == "https://arxiv.org/pdf/2411.00001"


def test_abstract_is_rebuilt_in_word_order() -> None:
    assert build_abstract({"b": [1, 3], "a": [0], "c": [2]}) == "a b c b"
    assert build_abstract(None) == ""


@pytest.mark.parametrize(
    ("doi", "bare"),
    [
        ("https://doi.org/10.1/x", "10.1/x"),
        ("10.1/x", "10.1/x"),
        ("HTTPS://DOI.ORG/10.1/X", "10.1/X"),
        (None, None),
    ],
)
def test_strip_doi(doi: str | None, bare: str | None) -> None:
    assert strip_doi(doi) == bare


def test_empty_results_are_empty() -> None:
    body = b'{"meta": {"count": 0, "page": 1, "per_page": 10}, "results": [], "group_by": []}'
    assert (
        OpenAlex(ProviderSettings(name="openalex")).parse_response(reply(200, body), query()) == []
    )


def test_burst_429_waits_retry_after() -> None:
    openalex = OpenAlex(ProviderSettings(name="openalex"))
    with pytest.raises(RateLimited) as caught:
        openalex.parse_response(recorded("openalex", "rate_limited_burst"), query())
    assert caught.value.retry_after == 30.0


def test_daily_budget_is_a_quota() -> None:
    openalex = OpenAlex(ProviderSettings(name="openalex", api_key=KEY))
    with pytest.raises(QuotaExceeded, match="midnight UTC") as caught:
        openalex.parse_response(recorded("openalex", "daily_budget_exhausted"), query())
    assert KEY not in str(caught.value)


@pytest.mark.parametrize("scenario", ["page_too_deep", "bad_per_page", "bad_filter"])
def test_bad_requests_quote_openalex(scenario: str) -> None:
    openalex = OpenAlex(ProviderSettings(name="openalex"))
    with pytest.raises(ProviderUnavailable) as caught:
        openalex.parse_response(recorded("openalex", scenario), query())
    assert not caught.value.retryable and "error" in caught.value.message


@pytest.mark.parametrize("body", [b"", b"{}", b'{"results": {}}', b"<html>"])
def test_unusable_bodies(body: bytes) -> None:
    with pytest.raises(ProviderUnavailable):
        OpenAlex(ProviderSettings(name="openalex")).parse_response(reply(200, body), query())
