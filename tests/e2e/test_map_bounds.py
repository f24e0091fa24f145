"""`/v1/map` of a 200,000-URL sitemap through a real `netsift serve`: the server keeps
answering `/healthz` while it reads (the sitemap is parsed in the compute pool and merged a
block at a time), the limit stops the reading, and a query ranks the whole bounded read.
The bound asserted is generous (a probe never waits a second, scaled to the machine); the
ratio to the idle p99 is measured by bench/map.py, not asserted."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.e2e.fleet import Fleet
from tests.offline_web.huge_sitemap import HUGE_HOST, huge_sitemap_app
from tests.offline_web.server import LiveServer, serve
from tests.timing import scaled

PROBE_BOUND = 1.0  # seconds a /healthz may wait while a map runs (idle: a few ms)
PROBE_INTERVAL = 0.02


@pytest.fixture(scope="module")
def huge() -> Iterator[LiveServer]:
    with serve(huge_sitemap_app()) as server:
        yield server


@pytest.fixture
def api(huge: LiveServer, tmp_path: Path) -> Iterator[str]:
    env = {
        "NETSIFT_RESOLVE": f"{HUGE_HOST}:127.0.0.1",
        "NETSIFT_ALLOW_NETWORKS": "127.0.0.0/8",
        "NETSIFT_JOBS_URL": f"sqlite:///{tmp_path / 'jobs.sqlite3'}",
        "NETSIFT_DATA_DIR": str(tmp_path / "data"),
        "NETSIFT_CACHE_URL": "memory://",
    }
    with Fleet(env, tmp_path, patience=60) as fleet:
        yield fleet.api()


def _map_while_probing(api: str, body: dict[str, Any]) -> tuple[dict[str, Any], list[float]]:
    """POST /v1/map with `body`, probing /healthz until it answers; the map and the waits."""
    answer: dict[str, Any] = {}

    def run() -> None:
        response = httpx.post(f"{api}/v1/map", json=body, timeout=scaled(120))
        answer.update(status=response.status_code, body=response.json())

    waits: list[float] = []
    worker = threading.Thread(target=run)
    with httpx.Client(timeout=scaled(30)) as probe:
        worker.start()
        while worker.is_alive():
            started = time.perf_counter()
            assert probe.get(f"{api}/healthz").status_code == 200
            waits.append(time.perf_counter() - started)
            time.sleep(PROBE_INTERVAL)
    worker.join()
    assert answer["status"] == 200, answer
    return answer["body"], waits


def test_healthz_answers_while_a_huge_sitemap_is_mapped(api: str, huge: LiveServer) -> None:
    start = huge.url("/", host=HUGE_HOST)
    # warm the compute pool, so its start-up is not what the probes measure
    httpx.post(f"{api}/v1/map", json={"url": start, "limit": 5}, timeout=scaled(120))

    limited, waits = _map_while_probing(api, {"url": start, "limit": 1000, "sitemaps": "only"})
    assert len(limited["links"]) == 1000
    [report] = limited["sitemaps"]
    # the limit stopped the reading: a sliver of the 200,000 entries was parsed
    assert report["status"] == "read" and report["urls"] == 1000
    assert "1000 sitemap URLs were in hand: the rest were not read" in limited["stopped_because"]

    ranked, more = _map_while_probing(
        api, {"url": start, "limit": 10, "query": "p012345", "sitemaps": "only"}
    )
    waits += more
    # a query needs every candidate: the protocol's 50,000 of the sitemap were read and ranked
    assert ranked["sitemaps"][0]["urls"] == 50_000 and ranked["found"] == 50_000
    assert ranked["links"][0]["url"].endswith("/docs/sec012/p012345.html")
    assert all(link["score"] is not None for link in ranked["links"])
    assert len(waits) >= 5
    assert max(waits) < scaled(PROBE_BOUND), sorted(waits)[-5:]
