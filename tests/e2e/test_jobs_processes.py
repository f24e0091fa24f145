"""Jobs across real processes: `netsift serve --no-worker` and `netsift worker` subprocesses
sharing one store (a SQLite file, or the suite's redis-server), killed by PID.

Leases are short here (NETSIFT_JOB_LEASE) so a dead worker's job is taken over quickly, and
stretched by the machine's measured slowness (tests/timing.py): on a busy machine a live worker
must still renew its lease in time. Every wait is for an event (a page read, a job ended, a
log line); the deadlines that are the point (a lease, a stop timeout) are scaled the same way."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.e2e.fleet import POLL_INTERVAL, Fleet, free_port, research_env, until
from tests.integration.research.fixtures import *  # noqa: F403
from tests.integration.research.fixtures import ResearchWeb, ScriptedLLM
from tests.integration.research.web import QUESTION
from tests.timing import scaled

# Real netsift processes: CI runs these beside two CPU burners (.ci/run), not in scripts/test.
pytestmark = pytest.mark.process

# Seconds on the quiet development machine: a lease, and how long a SIGTERM'd worker may take
# to hand its job back (NETSIFT_JOB_STOP_TIMEOUT) plus its own exit.
LEASE = 3.0
STOP_TIMEOUT = 5.0
EXIT_AFTER_STOP = 15.0
# One request to the API (a DELETE waits for the worker to end the job).
HTTP_TIMEOUT = 10.0
FINAL = ("done", "error")


BOTH = pytest.mark.parametrize(
    "fleet", ["sqlite", pytest.param("redis", marks=pytest.mark.redis)], indirect=True
)
SQLITE = pytest.mark.parametrize("fleet", ["sqlite"], indirect=True)
REDIS = pytest.mark.parametrize(
    "fleet", [pytest.param("redis", marks=pytest.mark.redis)], indirect=True
)


@pytest.fixture
def fleet(
    request: pytest.FixtureRequest, research_web: ResearchWeb, llm: ScriptedLLM, tmp_path: Path
) -> Iterator[Fleet]:
    env = {
        **research_env(request, research_web, llm, tmp_path),
        "NETSIFT_JOB_LEASE": f"{scaled(LEASE):.1f}",
        "NETSIFT_JOB_STOP_TIMEOUT": f"{scaled(STOP_TIMEOUT):.1f}",
    }
    with Fleet(env, tmp_path) as made:
        yield made


def _job(api: str, job_id: str) -> dict[str, Any]:
    answer: dict[str, Any] = httpx.get(
        f"{api}/v1/research/{job_id}", timeout=scaled(HTTP_TIMEOUT)
    ).json()
    return answer


def _events(api: str, job_id: str) -> list[dict[str, Any]]:
    body = httpx.get(f"{api}/v1/research/{job_id}/events", timeout=scaled(HTTP_TIMEOUT)).json()
    events: list[dict[str, Any]] = body["events"]
    return events


def _ended(api: str, job_id: str) -> dict[str, Any] | None:
    job = _job(api, job_id)
    return job if job["status"] not in ("queued", "running") else None


def _assert_one_clean_stream(events: list[dict[str, Any]], final: str) -> None:
    """Numbered 1..n, no event twice, exactly one final event, and it is the last."""
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    keys = [json.dumps([e["type"], e["data"]], sort_keys=True) for e in events]
    assert len(set(keys)) == len(keys)
    assert [e["type"] for e in events].count("done") == (1 if final == "done" else 0)
    assert events[-1]["type"] == final


def _start(api: str) -> str:
    body = {"question": QUESTION, "depth": "quick"}
    job = httpx.post(f"{api}/v1/research", json=body, timeout=scaled(HTTP_TIMEOUT)).json()
    assert job["status"] == "queued"  # the API only enqueues
    job_id: str = job["id"]
    return job_id


@BOTH
def test_a_job_resumes_on_another_worker_after_kill_9(fleet: Fleet, research_web: ResearchWeb):
    research_web.state.page_latency = 2.0
    api = fleet.api()
    first = fleet.worker()
    job_id = _start(api)
    until(lambda: research_web.state.pages, what="the first worker reading pages")
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=scaled(10))
    research_web.state.page_latency = 0.0
    fleet.worker()
    job = until(lambda: _ended(api, job_id), what="the job to end on the second worker")
    assert job["status"] == "done" and job["attempts"] == 2
    assert job["result"]["citations"] and job["usage"]["searches"] >= 1
    events = _events(api, job_id)
    _assert_one_clean_stream(events, "done")
    assert [e["type"] for e in events].count("planned") == 1  # resumed after the plan


@REDIS
def test_a_paused_worker_loses_its_lease_and_the_job_is_published_once(
    fleet: Fleet, research_web: ResearchWeb
):
    research_web.state.page_latency = 2.0
    api = fleet.api()
    first = fleet.worker()
    job_id = _start(api)
    until(lambda: research_web.state.pages, what="the first worker reading pages")
    first.send_signal(signal.SIGSTOP)  # alive but silent: only its lease can tell
    research_web.state.page_latency = 0.0
    fleet.worker()
    job = until(lambda: _ended(api, job_id), what="the second worker to take over")
    first.send_signal(signal.SIGCONT)  # it wakes, still mid-job: its writes are refused
    _watch_for_lease_lost(fleet, first)
    assert job["status"] == "done" and job["attempts"] == 2
    _assert_one_clean_stream(_events(api, job_id), "done")
    assert _job(api, job_id)["result"] == job["result"]


def _watch_for_lease_lost(fleet: Fleet, worker: subprocess.Popen[bytes]) -> None:
    """Until the woken worker says its lease was lost, or for a lease's time (scaled) if it
    never writes: that nothing changes has no event of its own to await."""
    watched = time.monotonic() + scaled(LEASE)
    while "lease lost" not in fleet.log(worker) and time.monotonic() < watched:
        time.sleep(POLL_INTERVAL)


@BOTH
def test_cancel_from_another_process_reaches_the_worker(fleet: Fleet, research_web: ResearchWeb):
    research_web.state.page_latency = 30.0
    api = fleet.api()
    fleet.worker()
    job_id = _start(api)
    until(lambda: _job(api, job_id)["status"] == "running", what="the job to start")
    until(lambda: research_web.state.pages, what="the worker reading pages")
    cancelled = httpx.delete(f"{api}/v1/research/{job_id}", timeout=scaled(HTTP_TIMEOUT)).json()
    assert cancelled["status"] == "cancelled"  # ended by the worker within the wait
    assert cancelled["result"]["partial"] and cancelled["result"]["queries"]
    events = _events(api, job_id)
    _assert_one_clean_stream(events, "error")
    assert events[-1]["data"] == {"code": "cancelled"}


@SQLITE
def test_sigterm_hands_the_job_back_and_another_worker_finishes_it(
    fleet: Fleet, research_web: ResearchWeb
):
    research_web.state.page_latency = 30.0
    api = fleet.api()
    first = fleet.worker()
    job_id = _start(api)
    until(lambda: research_web.state.pages, what="the worker reading pages")
    first.send_signal(signal.SIGTERM)
    assert first.wait(timeout=scaled(EXIT_AFTER_STOP)) == 0  # bounded by NETSIFT_JOB_STOP_TIMEOUT
    assert _job(api, job_id)["status"] == "queued"  # handed back, not failed
    research_web.state.page_latency = 0.0
    fleet.worker()
    job = until(lambda: _ended(api, job_id), what="the job to end on the second worker")
    assert job["status"] == "done" and job["attempts"] == 2
    _assert_one_clean_stream(_events(api, job_id), "done")


def _sample(text: str, name: str, **labels: str) -> float:
    """One sample's value from a Prometheus text exposition (0 when absent)."""
    from prometheus_client.parser import text_string_to_metric_families

    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name and all(sample.labels.get(k) == v for k, v in labels.items()):
                return float(sample.value)
    return 0.0


@SQLITE
def test_a_worker_process_serves_its_own_metrics(fleet: Fleet, research_web: ResearchWeb):
    api = fleet.api()
    port = free_port()
    worker = fleet.worker("--metrics-port", str(port))
    job_id = _start(api)
    job = until(lambda: _ended(api, job_id), what="the worker to run the job")
    assert job["status"] == "done"
    text = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=scaled(HTTP_TIMEOUT)).text
    assert _sample(text, "netsift_jobs_total", kind="research", outcome="done") == 1
    assert _sample(text, "netsift_job_duration_seconds_count", kind="research") == 1
    searched = _sample(text, "netsift_usage_total", kind="search:searxng")
    assert searched == job["usage"]["searches"] >= 1
    assert _sample(text, "netsift_usage_total", kind="pages") == job["usage"]["pages"]
    worker.send_signal(signal.SIGTERM)
    assert worker.wait(timeout=scaled(EXIT_AFTER_STOP)) == 0


@SQLITE
def test_a_busy_metrics_port_is_said_before_the_worker_starts(fleet: Fleet):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        worker = fleet.worker("--metrics-port", str(taken.getsockname()[1]))
        assert worker.wait(timeout=scaled(30)) == 5, fleet.log(worker)
