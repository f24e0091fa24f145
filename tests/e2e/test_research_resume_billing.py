"""A research job killed with SIGKILL mid-job and resumed by another worker sends no search
again, and its counts agree three ways with what the provider simulators served: the job's
usage, the client's ledger (`GET /v1/usage`) and the provider's own count. On both stores,
across real processes (an API and two workers in turn)."""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.e2e.fleet import Fleet, research_env, until
from tests.integration.research.fixtures import *  # noqa: F403
from tests.integration.research.fixtures import ResearchWeb, ScriptedLLM
from tests.integration.research.web import QUESTION
from tests.timing import scaled

# Real netsift processes: CI runs these beside two CPU burners (.ci/run), not in scripts/test.
pytestmark = pytest.mark.process

KEY = "k-resume-billing-1234567890"
AUTH = {"Authorization": f"Bearer {KEY}"}
LEASE = 3.0
HTTP_TIMEOUT = 10.0
SETTLE = 0.5  # seconds without a new page request before the kill (pages take 2 s)


@pytest.fixture(params=["sqlite", pytest.param("redis", marks=pytest.mark.redis)])
def fleet(
    request: pytest.FixtureRequest, research_web: ResearchWeb, llm: ScriptedLLM, tmp_path: Path
) -> Iterator[Fleet]:
    env = {
        **research_env(request, research_web, llm, tmp_path),
        "NETSIFT_JOB_LEASE": f"{scaled(LEASE):.1f}",
        "NETSIFT_API_KEYS": KEY,
    }
    with Fleet(env, tmp_path) as made:
        yield made


def _get(api: str, path: str) -> dict[str, Any]:
    answer: dict[str, Any] = httpx.get(
        f"{api}{path}", headers=AUTH, timeout=scaled(HTTP_TIMEOUT)
    ).json()
    return answer


def _settled(pages: list[str]) -> None:
    """Until no new page request arrived for SETTLE seconds. A request is counted by the job
    just before it leaves: a kill in the milliseconds between would bill a page the site never
    saw, so the kill waits for the requests under way to arrive (pages take 2 s to answer,
    so none ends and no new one starts meanwhile)."""
    seen, quiet_since = len(pages), time.monotonic()
    while time.monotonic() - quiet_since < SETTLE:
        time.sleep(0.05)
        if len(pages) != seen:
            seen, quiet_since = len(pages), time.monotonic()


def _ended(api: str, job_id: str) -> dict[str, Any] | None:
    job = _get(api, f"/v1/research/{job_id}")
    return job if job["status"] not in ("queued", "running") else None


def test_a_job_killed_mid_read_is_resumed_and_billed_once_for_what_was_served(
    fleet: Fleet, research_web: ResearchWeb
):
    web = research_web.state
    web.page_latency = 2.0  # pages are in flight when the worker dies
    api = fleet.api()
    first = fleet.worker()
    body = {"question": QUESTION, "depth": "quick", "breadth": 3}
    job_id = httpx.post(
        f"{api}/v1/research", json=body, headers=AUTH, timeout=scaled(HTTP_TIMEOUT)
    ).json()["id"]
    until(lambda: web.pages, what="the first worker reading pages")
    _settled(web.pages)  # every read under way has reached the site, none has answered
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=scaled(10))
    searched_before = list(web.searches)
    web.page_latency = 0.0
    fleet.worker()
    job = until(lambda: _ended(api, job_id), what="the job to end on the second worker")
    assert job["status"] == "done" and job["attempts"] == 2
    # The round's searches were checkpointed before the kill: none was sent again.
    assert web.searches == searched_before and len(set(web.searches)) == len(web.searches)
    spent, ledger = job["usage"], _get(api, "/v1/usage")
    # Three counts of the same work agree: the job's, the client's and the provider's.
    assert spent["searches"] == ledger["searches"] == len(web.searches) >= 1
    assert spent["searches_by_provider"] == {"searxng": len(web.searches)}
    assert spent["pages"] == ledger["pages"] == len(web.pages) >= 1
