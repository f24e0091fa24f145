"""Discoveries and sleep through real HTTP (and the CLI beside it): what an agent flags, how
it pauses (timer, a job's end, a person's wake), and that nothing runs while it sleeps."""

from __future__ import annotations

from typing import Any

import anyio
import httpx
from typer.testing import CliRunner

from netsift.cli import app as cli_app
from netsift.server import create_app
from tests.integration.research.fixtures import *  # noqa: F403
from tests.integration.research.web import QUESTION
from tests.offline_web.server import serve


def _env(settings) -> dict[str, str]:
    return {
        "NETSIFT_DATA_DIR": str(settings.data_dir),
        "NETSIFT_JOBS_URL": settings.jobs_url,
        "NETSIFT_CACHE_URL": "memory://",
    }


async def test_discoveries_flagged_by_research_and_by_hand(research_settings, research_web, llm):
    settings = research_settings()
    with serve(create_app(settings), lifespan="on") as server:
        async with httpx.AsyncClient(base_url=server.url(""), timeout=30) as http:
            report = (
                await http.post(
                    "/v1/research",
                    params={"wait": "true"},
                    json={"question": QUESTION, "depth": "quick"},
                )
            ).json()
            events = (await http.get(f"/v1/research/{report['job_id']}/events")).json()["events"]
            flagged = await http.post(
                "/v1/discoveries",
                json={"title": "By hand", "description": "An agent's own note.", "url": None},
            )
            assert flagged.status_code == 201
            settings.effective_discoveries_path().open("a").write("{broken line\n")
            listed = (await http.get("/v1/discoveries")).json()
            mine = (await http.get("/v1/discoveries", params={"job_id": report["job_id"]})).json()
            bad = await http.post("/v1/discoveries", json={"title": "", "description": "x"})
    [event] = [e for e in events if e["type"] == "discovery"]
    assert event["data"]["title"] == "Notable source" and event["data"]["url"].startswith("http")
    assert [d["title"] for d in listed["discoveries"]] == ["Notable source", "By hand"]
    assert listed["corrupt_lines"] == [3]
    assert [d["id"] for d in mine["discoveries"]] == [event["data"]["id"]]
    assert bad.status_code == 422
    result = await anyio.to_thread.run_sync(
        lambda: CliRunner().invoke(cli_app, ["discoveries", "--json"], env=_env(settings))
    )
    assert result.exit_code == 0, result.output
    assert "By hand" in result.stdout and '"corrupt_lines": [3]' in result.stdout


async def _post(
    http: httpx.AsyncClient, path: str, body: dict[str, Any], out: dict[str, Any]
) -> None:
    out["response"] = await http.post(path, json=body)


async def test_sleep_timer_manual_and_cap(research_settings, research_web, llm):
    settings = research_settings(max_sleep=1.0)
    with serve(create_app(settings), lifespan="on") as server:
        async with httpx.AsyncClient(base_url=server.url(""), timeout=30) as http:
            timer = (await http.post("/v1/sleeps", json={"mode": "timer", "seconds": 0.3})).json()
            capped = (await http.post("/v1/sleeps", json={"mode": "timer", "seconds": 60})).json()
            manual: dict[str, Any] = {}
            settings_manual = research_settings(max_sleep=30.0)
    assert timer["woke_because"] == "timer" and 0.25 <= timer["slept_s"] < 1.5
    assert capped["woke_because"] == "cap" and capped["slept_s"] < 3
    with serve(create_app(settings_manual), lifespan="on") as server:
        async with httpx.AsyncClient(base_url=server.url(""), timeout=30) as http:
            async with anyio.create_task_group() as group:
                group.start_soon(
                    _post, http, "/v1/sleeps", {"mode": "manual", "reason": "until told"}, manual
                )
                for _ in range(100):
                    active = (await http.get("/v1/sleeps")).json()["sleeps"]
                    if active:
                        break
                    await anyio.sleep(0.05)
                [record] = active
                assert record["reason"] == "until told" and record["mode"] == "manual"
                await anyio.sleep(0.5)
                assert "response" not in manual  # still asleep
                woke = await http.post(f"/v1/sleeps/{record['id']}/wake")
                assert woke.status_code == 200
            again = await http.post(f"/v1/sleeps/{record['id']}/wake")
            missing = await http.post("/v1/sleeps/nope/wake")
    result = manual["response"].json()
    assert result["woke_because"] == "woken" and result["slept_s"] >= 0.5
    assert again.status_code == 400 and missing.status_code == 404
    assert llm.state.requests == []  # asleep means no model calls


async def test_sleep_until_a_research_job_finishes(research_settings, research_web, llm):
    research_web.state.page_latency = 0.5
    with serve(create_app(research_settings()), lifespan="on") as server:
        async with httpx.AsyncClient(base_url=server.url(""), timeout=60) as http:
            job = (
                await http.post("/v1/research", json={"question": QUESTION, "depth": "quick"})
            ).json()
            asleep = await http.post("/v1/sleeps", json={"mode": "event", "job_id": job["id"]})
            status = (await http.get(f"/v1/research/{job['id']}")).json()["status"]
            at_once = await http.post("/v1/sleeps", json={"mode": "event", "job_id": job["id"]})
            unknown = await http.post("/v1/sleeps", json={"mode": "event", "job_id": "nope"})
            no_job = await http.post("/v1/sleeps", json={"mode": "event"})
    assert asleep.json()["woke_because"] == "job_finished" and asleep.json()["slept_s"] > 0.3
    assert status == "done"
    assert at_once.json()["woke_because"] == "job_finished" and at_once.json()["slept_s"] < 1
    assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "not_found"
    assert no_job.status_code == 400


async def test_netsift_wake_wakes_a_sleep_of_the_server(research_settings, research_web, llm):
    settings = research_settings()
    manual: dict[str, Any] = {}
    with serve(create_app(settings), lifespan="on") as server:
        async with httpx.AsyncClient(base_url=server.url(""), timeout=30) as http:
            async with anyio.create_task_group() as group:
                group.start_soon(_post, http, "/v1/sleeps", {"mode": "manual"}, manual)
                for _ in range(100):
                    active = (await http.get("/v1/sleeps")).json()["sleeps"]
                    if active:
                        break
                    await anyio.sleep(0.05)
                woke = await anyio.to_thread.run_sync(
                    lambda: CliRunner().invoke(
                        cli_app, ["wake", active[0]["id"]], env=_env(settings)
                    )
                )
                assert woke.exit_code == 0, woke.output
    assert manual["response"].json()["woke_because"] == "woken"
