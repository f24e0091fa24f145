"""retry.py: Retry-After parsing, jittered backoff, and the retry decision (all pure)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from netsift.net.retry import (
    MAX_RETRY_AFTER,
    backoff_delay,
    build_retry_wait,
    parse_retry_after,
    retry_after_of,
)

NOW = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("0", 0.0),
        ("5", 5.0),
        (" 2.5 ", 2.5),
        ("-3", 0.0),
        ("Thu, 01 Jan 2026 12:00:30 GMT", 30.0),
        ("Thu, 01 Jan 2026 11:59:00 GMT", 0.0),
        ("", None),
        (None, None),
        ("soon", None),
        ("nan", None),
        ("inf", MAX_RETRY_AFTER),
        ("1e308", MAX_RETRY_AFTER),  # hostile: clamped to a day, never a forever-wait
        ("Fri, 01 Jan 2100 00:00:00 GMT", MAX_RETRY_AFTER),
    ],
)
def test_parse_retry_after(value: str | None, seconds: float | None) -> None:
    assert parse_retry_after(value, now=NOW) == seconds


def test_backoff_grows_with_jitter_and_a_cap() -> None:
    for attempt, (low, high) in enumerate([(0.25, 0.5), (0.5, 1.0), (1.0, 2.0), (2.0, 4.0)]):
        waits = {backoff_delay(attempt) for _ in range(50)}
        assert all(low <= w <= high for w in waits)
        assert len(waits) > 1  # jittered
    assert backoff_delay(30) <= 8.0


@pytest.mark.parametrize(
    ("status", "retry_after", "expected"),
    [
        (503, "3", 3.0),
        (429, "3", 3.0),
        (429, "Thu, 01 Jan 2026 12:00:04 GMT", 4.0),
        (429, None, None),  # a 429 that does not say when: do not hammer
        (503, "60", None),  # longer than max_wait: return the response instead
        (200, None, None),
        (404, "1", None),
        (501, None, None),
    ],
)
def test_retry_decision(status: int, retry_after: str | None, expected: float | None) -> None:
    assert build_retry_wait(status, retry_after, attempt=0, max_wait=10, now=NOW) == expected


@pytest.mark.parametrize("status", [None, 500, 502, 503, 504])
def test_without_retry_after_the_wait_is_backoff(status: int | None) -> None:
    wait = build_retry_wait(status, None, attempt=1, max_wait=10)
    assert wait is not None and 0.5 <= wait <= 1.0


def test_retry_after_of_measures_a_date_against_the_response_date() -> None:
    headers = {
        "retry-after": "Wed, 21 Oct 2026 07:28:30 GMT",
        "date": "Wed, 21 Oct 2026 07:28:00 GMT",
    }
    assert retry_after_of(headers) == 30.0
    assert retry_after_of({"retry-after": "12"}) == 12.0
    assert retry_after_of({}) is None
