"""When to send a request again, and after how long (pure; HttpClient does the waiting).

Only idempotent methods are retried, and only for failures another try may fix: a
connection that could not be made, a 5xx, or a 429 that says when to come back
(Retry-After, in seconds or as an HTTP date). A Retry-After longer than the operator's
`retry_max_wait` is not waited: the response is returned for the caller to judge. Without
Retry-After the wait is exponential with jitter, so many clients do not retry in step.
"""

from __future__ import annotations

import email.utils
import random
from collections.abc import Mapping
from datetime import UTC, datetime

__all__ = [
    "IDEMPOTENT_METHODS",
    "MAX_RETRY_AFTER",
    "RETRY_STATUSES",
    "backoff_delay",
    "build_retry_wait",
    "parse_retry_after",
    "retry_after_of",
]

IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE", "TRACE"})
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})


# A server's Retry-After is hostile input: a year-long wait (or 1e308) handed to an agent or a
# breaker would park it for good. A day is longer than any real rate-limit window we know of
# (daily quotas reset within one) and still bounded.
MAX_RETRY_AFTER = 86_400.0


def parse_retry_after(value: str | None, *, now: datetime | None = None) -> float | None:
    """Seconds to wait from a Retry-After value (delta-seconds or HTTP date), clamped to
    [0, MAX_RETRY_AFTER], or None when absent or unreadable. The one parser of the header:
    retries, providers, fetch errors and every door's `retry_after` all come from here."""
    if not value:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        seconds = (when - (now or datetime.now(UTC))).total_seconds()
    if seconds != seconds:  # NaN
        return None
    return round(min(MAX_RETRY_AFTER, max(0.0, seconds)), 3)


def retry_after_of(headers: Mapping[str, str]) -> float | None:
    """`parse_retry_after` for a response's headers; an HTTP date is measured against the
    response's own `Date` when it has one, so a skewed local clock does not stretch the wait."""
    now: datetime | None = None
    if date := headers.get("date"):
        try:
            now = email.utils.parsedate_to_datetime(date)
        except (TypeError, ValueError, IndexError):
            now = None
        if now is not None and now.tzinfo is None:
            now = now.replace(tzinfo=UTC)
    return parse_retry_after(headers.get("retry-after"), now=now)


def backoff_delay(attempt: int, *, base: float = 0.5, cap: float = 8.0) -> float:
    """Exponential backoff with jitter: attempt 0 waits 0.25-0.5 s, then doubling."""
    ceiling = min(cap, base * 2**attempt)
    return random.uniform(ceiling / 2, ceiling)


def build_retry_wait(
    status: int | None,
    retry_after: str | None,
    *,
    attempt: int,
    max_wait: float,
    now: datetime | None = None,
) -> float | None:
    """Seconds to wait before the next try, or None for "do not retry".

    `status` None means the connection could not be made (no response at all).
    """
    if status is None:
        return backoff_delay(attempt)
    if status not in RETRY_STATUSES:
        return None
    seconds = parse_retry_after(retry_after, now=now)
    if seconds is None:
        return None if status == 429 else backoff_delay(attempt)
    return seconds if seconds <= max_wait else None
