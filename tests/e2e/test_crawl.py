"""`netsift crawl`, `/v1/crawl` and `netsift worker` processes against the generated site:
the CLI's JSON lines and exit codes, the HTTP job with its events and paged pages, and a
crawl that resumes on another worker after its first one is killed (kill -9)."""

from __future__ import annotations

import json
import signal
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from websockets.asyncio.client import connect

from netsift import tools
from netsift.client import Client
from netsift.config import Settings
from netsift.server import create_app
from netsift.tools.crawl_text import lean_crawl
from tests.e2e.cli import in_process, subprocess_call
from tests.e2e.fleet import Fleet, until
from tests.e2e.test_parity import assert_same, mcp_call, stable
from tests.integration.crawl.conftest import GeneratedSite, serve_site
from tests.offline_web.generated import SiteSpec, expected_paths
from tests.offline_web.server import serve

# Real netsift processes: CI runs these beside two CPU burners (.ci/run), not in scripts/test.
pytestmark = pytest.mark.process

LEASE = "3.0"


@pytest.fixture(scope="module")
def site() -> Iterator[GeneratedSite]:
    # A Crawl-delay makes the crawl one page at a time, slow enough to kill mid-way.
    yield from serve_site(SiteSpec(pages=30, host="e2e.crawl.test", crawl_delay=0.1))


@pytest.fixture
def env(site: GeneratedSite, tmp_path: Path) -> dict[str, str]:
    return {
        **site.env(),
        "NETSIFT_JOBS_URL": f"sqlite:///{tmp_path / 'jobs.sqlite3'}",
        "NETSIFT_DATA_DIR": str(tmp_path / "data"),
        "NETSIFT_CACHE_URL": "memory://",
        "NETSIFT_JOB_LEASE": LEASE,
        "NETSIFT_JOB_STOP_TIMEOUT": "5",
        "NETSIFT_WORKER_CONCURRENCY": "1",
    }


def test_cli_json_lines_stream_pages_then_a_summary(
    site: GeneratedSite, env: dict[str, str]
) -> None:
    call = subprocess_call(env)
    run = call("crawl", site.url("/"), "--max-pages", "4", "--max-depth", "5", "--json")
    assert run.code == 0, run.stderr
    lines = run.lines()
    pages = [line for line in lines if line["type"] == "page"]
    assert len(pages) == 4
    assert pages[0]["page"]["final_url"] == site.url("/") and pages[0]["depth"] == 0
    assert pages[0]["page"]["content"] and pages[0]["page"]["links"]
    assert lines[-1]["type"] == "done" and lines[-1]["stopped_because"][0] == "max_pages"
    assert lines[-1]["pages_read"] == 4


def test_cli_bad_input_is_a_clear_error(site: GeneratedSite, env: dict[str, str]) -> None:
    call = subprocess_call(env)
    run = call("crawl", site.url("/"), "--max-pages", "0", "--json")
    assert run.code == 2
    assert run.json()["error"]["code"] == "invalid_input"
    run = call("crawl", site.url("/"), "--include", "(unclosed")
    assert run.code == 2 and "include" in run.stderr


def test_cli_for_people_lists_pages(site: GeneratedSite, env: dict[str, str]) -> None:
    run = subprocess_call(env)("crawl", site.url("/"), "--max-pages", "2")
    assert run.code == 0, run.stderr
    assert site.url("/") in run.stdout
    assert "stopped: max_pages" in run.stderr


PATIENCE = 60.0  # seconds a wait in these tests may take: a crawl of the site is slower


@pytest.fixture
def fleet(env: dict[str, str], tmp_path: Path) -> Iterator[Fleet]:
    with Fleet(env, tmp_path, patience=PATIENCE) as made:
        yield made


def _pages(api: str, job_id: str) -> list[dict[str, Any]]:
    pages: list[dict[str, Any]] = []
    since: int | None = 0
    while since is not None:
        body = httpx.get(f"{api}/v1/crawl/{job_id}/pages", params={"since": since}).json()
        pages.extend(body["pages"])
        since = body["next"] if body["pages"] else None
    return pages


def test_a_crawl_resumes_on_another_worker_after_kill_9(fleet: Fleet, site: GeneratedSite) -> None:
    site.state.reset()
    api = fleet.api()
    first = fleet.start("worker")
    body = {"url": site.url("/"), "max_pages": 500, "max_depth": 20}
    started = httpx.post(f"{api}/v1/crawl", json=body, timeout=10)
    assert started.status_code == 202
    job_id = started.json()["id"]
    assert started.headers["location"] == f"/v1/crawl/{job_id}"
    until(lambda: len(_pages(api, job_id)) >= 5, PATIENCE, what="the first worker keeping pages")
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=10)
    fleet.start("worker")

    def ended() -> dict[str, Any] | None:
        job: dict[str, Any] = httpx.get(f"{api}/v1/crawl/{job_id}").json()
        return job if job["status"] not in ("queued", "running") else None

    job = until(ended, timeout=120, what="the crawl to end on the second worker")
    assert job["status"] == "done" and job["attempts"] == 2
    pages = _pages(api, job_id)
    kept = [httpx.URL(p["page"]["final_url"]).raw_path.decode() for p in pages]
    assert len(kept) == len(set(kept))  # no page kept twice across the two workers
    assert expected_paths(site.spec) <= set(kept)  # and none lost
    # at least once: only the page in flight when the worker died may have been asked twice
    twice = [n for n in range(site.spec.pages) if site.state.hits(site.spec.host, f"/docs/{n}") > 1]
    assert len(twice) <= 1
    events = httpx.get(f"{api}/v1/crawl/{job_id}/events").json()["events"]
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert sum(e["type"] == "page" for e in events) == len(pages)
    # the site's calendar and its print copies are traps whose URLs were left unread
    assert events[-1]["type"] == "done" and events[-1]["data"]["stopped_because"][0] == "trap"


def test_http_crawl_waits_streams_and_cancels(fleet: Fleet, site: GeneratedSite) -> None:
    api = fleet.api()
    fleet.start("worker")
    body = {"url": site.url("/"), "max_pages": 3, "max_depth": 5}
    done = httpx.post(f"{api}/v1/crawl", params={"wait": "true"}, json=body, timeout=60)
    assert done.status_code == 200 and done.json()["pages_read"] == 3
    with httpx.stream(
        "POST", f"{api}/v1/crawl", json=body, headers={"Accept": "text/event-stream"}, timeout=60
    ) as stream:
        text = "".join(stream.iter_text())
    assert text.count("event: page") == 3 and "event: done" in text
    bad = httpx.post(f"{api}/v1/crawl", json={**body, "max_pages": 0}, timeout=10)
    assert bad.status_code in (400, 422) and bad.json()["error"]["code"] == "invalid_input"
    slow = httpx.post(f"{api}/v1/crawl", json={**body, "max_pages": 500}, timeout=10).json()
    until(lambda: _pages(api, slow["id"]), PATIENCE, what="a first page")
    cancelled = httpx.delete(f"{api}/v1/crawl/{slow['id']}", timeout=30).json()
    assert cancelled["status"] == "cancelled"
    again = httpx.delete(f"{api}/v1/crawl/{slow['id']}", timeout=30)
    assert again.status_code == 409 and again.json()["error"]["code"] == "already_finished"
    assert _pages(api, slow["id"])  # what it kept stays readable
    assert httpx.get(f"{api}/v1/crawl/nope").status_code == 404


@pytest.fixture(scope="module")
def quick_site() -> Iterator[GeneratedSite]:
    yield from serve_site(SiteSpec(pages=12, host="parity.crawl.test"))


def _by_url(pages: list[Any]) -> list[Any]:
    return sorted((stable(page) for page in pages), key=lambda page: page["final_url"])


async def test_crawl_is_the_same_through_every_door(
    quick_site: GeneratedSite, make_settings: Callable[..., Settings], tmp_path: Path
) -> None:
    """The library, the CLI's JSON lines, REST's paged pages, the agent tool and MCP: the
    same pages (a whole small site, so which pages are kept does not depend on timing)."""
    env = {
        **quick_site.env(),
        "NETSIFT_JOBS_URL": f"sqlite:///{tmp_path / 'jobs.sqlite3'}",
        "NETSIFT_DATA_DIR": str(tmp_path / "data"),
        "NETSIFT_CACHE_URL": "memory://",
    }
    settings = make_settings(
        resolve=quick_site.pins,
        allow_networks=["127.0.0.0/8"],
        jobs_url=env["NETSIFT_JOBS_URL"],
        capabilities=["fetch"],
    )
    url = quick_site.url("/")
    # the calendar's alike months are left out: which of them is read first (and kept) is a
    # matter of timing, the same in no two crawls
    options: dict[str, Any] = {"max_pages": 50, "max_depth": 10, "exclude": ["^/calendar/"]}
    async with Client(settings) as client:
        report = await client.crawl(url, **options)
        tool = await tools.dispatch("web_crawl", {"url": url, **options}, client=client)
        mcp = await mcp_call(client, "web_crawl", {"url": url, **options})
    answers: dict[str, Any] = {"client": _by_url(report.pages)}
    lines = await anyio.to_thread.run_sync(
        lambda: in_process(env)(
            "crawl",
            url,
            "--max-pages",
            "50",
            "--max-depth",
            "10",
            "--exclude",
            "^/calendar/",
            "--json",
        )
    )
    assert lines.code == 0, lines.stderr
    answers["cli"] = _by_url([line["page"] for line in lines.lines() if line["type"] == "page"])
    with serve(create_app(settings), lifespan="on") as live:
        async with httpx.AsyncClient(base_url=live.url("/"), timeout=60) as http:
            done = await http.post(
                "/v1/crawl", params={"wait": "true"}, json={"url": url, **options}
            )
            assert done.status_code == 200, done.text
            body = (await http.get(f"/v1/crawl/{done.json()['job_id']}/pages?limit=100")).json()
    answers["rest"] = _by_url([item["page"] for item in body["pages"]])
    assert_same(answers)
    lean = lean_crawl(report, max_length=2000)
    for door in (tool, mcp):
        assert sorted(door["pages"], key=lambda p: p["url"]) == sorted(
            lean["pages"], key=lambda p: p["url"]
        )
        assert door["skipped"] == lean["skipped"]


async def test_websocket_crawl_streams_its_events_and_resumes(
    quick_site: GeneratedSite, make_settings: Callable[..., Settings], tmp_path: Path
) -> None:
    settings = make_settings(
        resolve=quick_site.pins,
        allow_networks=["127.0.0.1/32"],
        jobs_url=f"sqlite:///{tmp_path / 'jobs.sqlite3'}",
    )
    message = {"type": "crawl", "request_id": "c1", "url": quick_site.url("/"), "max_pages": 3}
    with serve(create_app(settings), lifespan="on") as live:
        async with connect(live.url("/v1/ws", scheme="ws")) as ws:
            await ws.send(json.dumps(message))
            seen: list[dict[str, Any]] = []
            while not seen or seen[-1]["type"] not in ("done", "error"):
                seen.append(json.loads(await ws.recv()))
            await ws.send(json.dumps({"type": "crawl", "request_id": "c2", "job_id": "nope"}))
            missing = json.loads(await ws.recv())
            job_id = seen[0]["job_id"]
            await ws.send(
                json.dumps({"type": "crawl", "request_id": "c3", "job_id": job_id, "since": 1})
            )
            again: list[dict[str, Any]] = []
            while not again or again[-1]["type"] not in ("done", "error"):
                again.append(json.loads(await ws.recv()))
    assert seen[-1]["type"] == "done", seen[-1]
    assert [m["type"] for m in seen].count("page") == 3
    assert all(m["request_id"] == "c1" for m in seen)
    assert missing["type"] == "error" and missing["data"]["error"]["code"] == "not_found"
    assert [m["seq"] for m in again] == [m["seq"] for m in seen][1:]
