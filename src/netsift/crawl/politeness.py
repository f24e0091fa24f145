"""Politeness: how often and how many at once netsift may ask one host; pure.

The defaults are Scrapy's (`DOWNLOAD_DELAY = 0`, `CONCURRENT_REQUESTS_PER_DOMAIN = 8`):
what a well-run crawler does to a site that asked nothing. A site that asks — robots.txt's
`Crawl-delay`, a 429 or 503 with `Retry-After` — is obeyed: a Crawl-delay means one request
at a time, that many seconds apart (as Scrapy's AutoThrottle and Heritrix read it), and an
overloaded answer pauses the whole host, not only the URL that got it.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "BACKOFF_BASE",
    "DEFAULT_CONCURRENCY",
    "MAX_CRAWL_DELAY",
    "MAX_RETRIES",
    "MAX_RETRY_AFTER",
    "HostPolicy",
    "backoff",
    "host_policy",
]

DEFAULT_CONCURRENCY = 8  # Scrapy's CONCURRENT_REQUESTS_PER_DOMAIN
DEFAULT_DELAY = 0.0  # Scrapy's DOWNLOAD_DELAY: a site that asks nothing gets no pause
# A Crawl-delay above this is read as this: a hostile robots.txt ("Crawl-delay: 86400") must
# not park a crawl for a day; the crawl's time budget then decides how much of the site it sees.
MAX_CRAWL_DELAY = 30.0
# A Retry-After above this is read as this, for the same reason.
MAX_RETRY_AFTER = 120.0
# Pause after a 429/503 that named no Retry-After, doubled per retry of the same URL.
BACKOFF_BASE = 1.0
# How many times one URL is asked again after 429/503 before it is reported as failed.
MAX_RETRIES = 3
# Statuses that say "come back later" rather than "this page is gone".
RETRY_STATUSES = frozenset({429, 503})


@dataclass(frozen=True)
class HostPolicy:
    """Seconds between two requests to one host, and how many may be in flight at once."""

    delay: float = DEFAULT_DELAY
    concurrency: int = DEFAULT_CONCURRENCY


def host_policy(crawl_delay: float | None, *, concurrency: int = DEFAULT_CONCURRENCY) -> HostPolicy:
    """The policy for a host whose robots.txt gave `crawl_delay` (None: it gave none);
    `concurrency` is the requests in flight a host that asked nothing gets (a setting)."""
    if crawl_delay is None or crawl_delay <= 0:
        return HostPolicy(concurrency=concurrency)
    return HostPolicy(delay=min(float(crawl_delay), MAX_CRAWL_DELAY), concurrency=1)


def backoff(retry_after: object, tries: int) -> float:
    """Seconds to leave a host alone after it answered 429/503 (`tries` so far for the URL)."""
    if isinstance(retry_after, int | float) and retry_after >= 0:
        return min(float(retry_after), MAX_RETRY_AFTER)
    return min(BACKOFF_BASE * 2.0 ** max(tries - 1, 0), MAX_RETRY_AFTER)
