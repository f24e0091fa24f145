"""retry.py: Retry-After parsing, jittered backoff, and the retry decision (all pure)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from netsift.net.retry import backoff_delay, build_retry_wait, parse_retry_after

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
        ("inf", None),
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
