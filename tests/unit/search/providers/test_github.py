"""GitHub: the recorded payloads of tests/offline_web/providers/data/github.json."""

from __future__ import annotations

import json

import pytest

from netsift.config import ProviderSettings
from netsift.errors import InvalidInput, ProviderAuth, ProviderUnavailable, RateLimited
from netsift.search.providers.github import GitHub
from tests.unit.search.providers.contracts import (
    examples,
    query,
    recorded,
    recorded_request,
    reply,
)

TOKEN = "ghp_test000000000000000000000000000000"


@pytest.fixture
def github() -> GitHub:
    return GitHub(ProviderSettings(name="github", api_key=TOKEN))


def test_request_matches_the_contract(github: GitHub) -> None:
    request = github.build_request(query("async runtime language:Rust", count=2))
    expected = recorded_request("github", "search_repositories_ok")
    assert str(request.url).split("?")[0] == expected["url"].split("?")[0]
    assert request.url.params["q"] == "async runtime language:Rust"
    assert (request.url.params["per_page"], request.url.params["page"]) == ("2", "1")
    for name in ("Accept", "X-GitHub-Api-Version", "Authorization"):
        assert request.headers[name] == expected["headers"][name]
    assert TOKEN not in str(request.url)


def test_token_is_optional() -> None:
    github = GitHub(ProviderSettings(name="github"))
    assert github.configured()
    assert "Authorization" not in github.build_request(query()).headers


def test_limits_are_checked_before_sending(github: GitHub) -> None:
    with pytest.raises(InvalidInput):
        github.build_request(query("x" * 257))
    with pytest.raises(InvalidInput):
        github.build_request(query(count=50, page=21))
    assert github.build_request(query(count=50, page=20)).url.params["per_page"] == "50"


def test_parses_repositories(github: GitHub) -> None:
    tokio, smol = github.parse_response(recorded("github", "search_repositories_ok"), query())
    assert (tokio.title, tokio.url) == ("tokio-rs/tokio", "https://github.com/tokio-rs/tokio")
    assert tokio.snippet.startswith("A runtime for writing reliable asynchronous applications")
    assert tokio.published == "2026-09-20"
    assert tokio.thumbnail == "https://avatars.githubusercontent.com/u/20248544?v=4"
    assert tokio.extra["stars"] == 31250
    assert tokio.extra["language"] == "Rust"
    assert tokio.extra["topics"] == ["asynchronous", "networking", "rust"]
    assert smol.extra["license"] == "Apache-2.0"
    assert "homepage" not in smol.extra


def test_primary_limit_waits_until_reset_by_the_servers_clock(github: GitHub) -> None:
    response = recorded("github", "rate_limited_primary")
    response.headers["Date"] = "Sun, 15 Sep 2026 12:00:00 GMT"  # epoch 1789473600
    response.headers["x-ratelimit-reset"] = "1789473645"
    with pytest.raises(RateLimited) as caught:
        github.parse_response(response, query())
    assert caught.value.retry_after == 45.0


def test_primary_limit_as_recorded_is_a_rate_limit(github: GitHub) -> None:
    with pytest.raises(RateLimited):
        github.parse_response(recorded("github", "rate_limited_primary"), query())


def test_secondary_limit_honours_retry_after(github: GitHub) -> None:
    with pytest.raises(RateLimited) as caught:
        github.parse_response(recorded("github", "rate_limited_secondary"), query())
    assert caught.value.retry_after == 60.0


def test_secondary_limit_without_retry_after_waits_a_minute(github: GitHub) -> None:
    body = examples("github")["rate_limited_secondary"]["response"]["body"]
    response = reply(403, json.dumps(body), x_ratelimit_remaining="14")
    with pytest.raises(RateLimited) as caught:
        github.parse_response(response, query())
    assert caught.value.retry_after == 60.0


def test_bad_credentials_and_plain_403_are_auth(github: GitHub) -> None:
    with pytest.raises(ProviderAuth, match="Bad credentials"):
        github.parse_response(recorded("github", "bad_credentials"), query())
    with pytest.raises(ProviderAuth):
        github.parse_response(reply(403, b'{"message": "Resource not accessible"}'), query())


@pytest.mark.parametrize("scenario", ["validation_failed", "beyond_first_1000"])
def test_refused_queries(github: GitHub, scenario: str) -> None:
    with pytest.raises(ProviderUnavailable) as caught:
        github.parse_response(recorded("github", scenario), query())
    assert not caught.value.retryable


def test_empty_items_are_empty(github: GitHub) -> None:
    body = b'{"total_count": 0, "incomplete_results": false, "items": []}'
    assert github.parse_response(reply(200, body), query()) == []


@pytest.mark.parametrize("body", [b"", b"{}", b'{"items": null}', b"<html>"])
def test_unusable_bodies(github: GitHub, body: bytes) -> None:
    with pytest.raises(ProviderUnavailable):
        github.parse_response(reply(200, body), query())
