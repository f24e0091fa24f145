"""Prometheus metrics of the HTTP server and of job workers: the counts a host needs for
billing and operations.

Requests and latency per route, searches per client and per provider attempt, cache hits and
misses, fetches with their bytes, blocked fetches, errors by code, usage per client, and the
jobs this process ran. Each app has its own registry (two apps in one process never mix
counts). With several uvicorn workers, set `PROMETHEUS_MULTIPROC_DIR` (`netsift serve
--workers N` does) and every worker's counts are summed at `/metrics` by prometheus_client's
multiprocess collector.

A `netsift worker` process serves its own registry on `--metrics-port` (`serve_http`): each
process is one scrape target, as Prometheus expects, so counters reset with their process
(which `rate()` and `increase()` handle) and an operator sums across targets in PromQL.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram
from prometheus_client.exposition import generate_latest, start_http_server

from ..models import Page, SearchResponse

__all__ = ["CONTENT_TYPE", "Metrics"]

CONTENT_TYPE = CONTENT_TYPE_LATEST
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60)
# Jobs run from milliseconds (a cancelled or trivial job) to an hour (a deep research run).
JOB_BUCKETS = (0.1, 0.5, 1, 5, 10, 30, 60, 120, 300, 600, 1800, 3600)
BLOCKED = ("blocked_address", "blocked_by_robots")


class Metrics:
    """The server's counters and histograms, and their exposition."""

    def __init__(self, *, multiprocess_dir: Path | None = None) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self._multiprocess_dir = multiprocess_dir
        # Labelled children, looked up once: `labels()` validates and locks on every call.
        self._children: dict[tuple[object, tuple[str, ...]], Any] = {}
        r = self.registry
        self.requests = Counter(
            "netsift_http_requests",
            "HTTP requests answered, by route and status.",
            ["method", "route", "status"],
            registry=r,
        )
        self.latency = Histogram(
            "netsift_http_request_duration_seconds",
            "Time to answer an HTTP request (to the end of the body).",
            ["method", "route"],
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.searches = Counter(
            "netsift_searches",
            "Searches answered, per client (a batch counts each query).",
            ["client", "cached"],
            registry=r,
        )
        self.provider_attempts = Counter(
            "netsift_provider_searches",
            "Searches sent to each provider, by outcome (ok or the error code).",
            ["provider", "outcome"],
            registry=r,
        )
        self.usage = Counter(
            "netsift_usage",
            "What each client spent, by any door (search, batch, research, chat): "
            "search:<provider> requests sent, pages downloaded, model tokens.",
            ["client", "kind"],
            registry=r,
        )
        self.cache = Counter(
            "netsift_search_cache", "Search cache lookups, hit or miss.", ["result"], registry=r
        )
        self.fetches = Counter(
            "netsift_fetches",
            "Fetch and meta requests, per client, by outcome (ok or the error code).",
            ["client", "outcome"],
            registry=r,
        )
        self.fetch_bytes = Counter(
            "netsift_fetch_bytes", "Bytes downloaded by fetches (cache hits excluded).", registry=r
        )
        self.blocked = Counter(
            "netsift_blocked_fetches",
            "Fetches refused by the SSRF guard or robots.txt.",
            ["reason"],
            registry=r,
        )
        self.errors = Counter(
            "netsift_errors", "Errors answered to clients, by error code.", ["code"], registry=r
        )
        self.jobs = Counter(
            "netsift_jobs",
            "Job runs this process ended, by kind and how: done, failed, cancelled, "
            "interrupted, handed_back (graceful stop) or lost (its lease was taken over).",
            ["kind", "outcome"],
            registry=r,
        )
        self.job_duration = Histogram(
            "netsift_job_duration_seconds",
            "Time a job ran in this process, until it ended or was handed back.",
            ["kind"],
            buckets=JOB_BUCKETS,
            registry=r,
        )

    def _child(self, metric: Counter | Histogram, *values: str) -> Any:
        key = (metric, values)
        child = self._children.get(key)
        if child is None:
            child = self._children[key] = metric.labels(*values)
        return child

    def observe_request(self, method: str, route: str, status: int, seconds: float) -> None:
        self._child(self.requests, method, route, str(status)).inc()
        self._child(self.latency, method, route).observe(seconds)

    def observe_search(self, client: str, response: SearchResponse) -> None:
        self._child(self.searches, client, "true" if response.cached else "false").inc()
        self._child(self.cache, "hit" if response.cached else "miss").inc()
        if response.cached:
            return
        for attempt in response.attempts:
            self.provider_attempts.labels(attempt.provider, attempt.error_code or "ok").inc()

    def observe_failed_search(self, client: str, attempts: list[dict[str, object]]) -> None:
        """A search no provider answered still cost the provider attempts it made."""
        self.searches.labels(client, "false").inc()
        self.cache.labels("miss").inc()
        for attempt in attempts:
            outcome = str(attempt.get("error_code") or "ok")
            self.provider_attempts.labels(str(attempt.get("provider")), outcome).inc()

    def observe_usage(self, client: str, kind: str, amount: int) -> None:
        """One charge of a usage meter (usage.py) bound to this server's callers or jobs."""
        self._child(self.usage, client, kind).inc(amount)

    def observe_fetch(self, client: str, page: Page) -> None:
        self.fetches.labels(client, "ok").inc()
        if not page.cached:
            self.fetch_bytes.inc(page.bytes)

    def observe_failed_fetch(self, client: str, code: str) -> None:
        self.fetches.labels(client, code).inc()
        if code in BLOCKED:
            self.blocked.labels(code).inc()

    def observe_error(self, code: str) -> None:
        self.errors.labels(code).inc()

    def observe_job(self, kind: str, outcome: str, seconds: float) -> None:
        """One job run ended by this process's executor (jobs/executor.py's observers)."""
        self._child(self.jobs, kind, outcome).inc()
        self._child(self.job_duration, kind).observe(seconds)

    def serve_http(self, host: str, port: int) -> Any:
        """Expose this registry at http://host:port/metrics from a thread (a process with no
        HTTP server of its own: `netsift worker`). Returns the server: `.shutdown()` it."""
        server, _ = start_http_server(port, addr=host, registry=self.registry)
        return server

    def render(self) -> bytes:
        """The Prometheus text exposition of every counter (all workers' in multiprocess mode)."""
        if self._multiprocess_dir is None:
            return generate_latest(self.registry)
        from prometheus_client import multiprocess

        merged = CollectorRegistry()
        multiprocess.MultiProcessCollector(  # type: ignore[no-untyped-call]
            merged, path=str(self._multiprocess_dir)
        )
        return generate_latest(merged)
