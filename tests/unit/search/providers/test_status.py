"""The shared HTTP status → typed error mapping every provider falls back on."""

from __future__ import annotations

import pytest

from netsift.errors import (
    NetsiftError,
    ProviderAuth,
    ProviderUnavailable,
    QuotaExceeded,
    RateLimited,
)
from netsift.search.providers.status import raise_for_status, read_json, retry_after_from
from tests.unit.search.providers.contracts import reply


@pytest.mark.parametrize("status", [200, 201, 204])
def test_success_passes(status: int) -> None:
    raise_for_status(reply(status), "x")


@pytest.mark.parametrize(
    ("status", "error", "retryable"),
    [
        (401, ProviderAuth, False),
        (403, ProviderAuth, False),
        (402, QuotaExceeded, False),
        (429, RateLimited, True),
        (500, ProviderUnavailable, True),
        (503, ProviderUnavailable, True),
        (400, ProviderUnavailable, False),
        (404, ProviderUnavailable, False),
        (302, ProviderUnavailable, False),
    ],
)
def test_statuses_map_to_typed_errors(
    status: int, error: type[NetsiftError], retryable: bool
) -> None:
    with pytest.raises(error) as caught:
        raise_for_status(reply(status), "acme", detail="the   provider's\nown words")
    assert caught.value.retryable is retryable
    assert caught.value.details["status"] == status
    assert caught.value.message.startswith("acme")
    assert "the provider's own words" in caught.value.message


def test_long_details_are_trimmed() -> None:
    with pytest.raises(ProviderUnavailable) as caught:
        raise_for_status(reply(500), "acme", detail="x" * 5000)
    assert len(caught.value.message) < 400


def test_429_takes_retry_after_seconds_or_an_override() -> None:
    with pytest.raises(RateLimited) as caught:
        raise_for_status(reply(429, retry_after="12"), "acme")
    assert caught.value.retry_after == 12.0
    with pytest.raises(RateLimited) as caught:
        raise_for_status(reply(429, retry_after="12"), "acme", retry_after=3.0)
    assert caught.value.retry_after == 3.0
    with pytest.raises(RateLimited) as caught:
        raise_for_status(reply(429), "acme")
    assert caught.value.retry_after is None


def test_retry_after_as_an_http_date() -> None:
    response = reply(
        429, retry_after="Wed, 21 Oct 2026 07:28:30 GMT", date="Wed, 21 Oct 2026 07:28:00 GMT"
    )
    assert retry_after_from(response) == 30.0
    assert retry_after_from(reply(429, retry_after="soon")) is None
    assert retry_after_from(reply(429, retry_after="-5")) == 0.0


def test_read_json() -> None:
    assert read_json(reply(200, b'{"a": [1]}'), "acme") == {"a": [1]}
    for body in (b"", b"<html>", b'{"a": ', b"\xff\xfe"):
        with pytest.raises(ProviderUnavailable, match="not valid JSON"):
            read_json(reply(200, body), "acme")
