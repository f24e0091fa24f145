"""Research jobs over a real uvicorn: start, wait, stream, resume (SSE and WebSocket), cancel,
and a restart that finds the job it left running marked interrupted."""

from __future__ import annotations

import json
import time
from typing import Any

import anyio
import httpx
from websockets.asyncio.client import connect

from netsift.server import create_app
from tests.integration.research.fixtures import *  # noqa: F403
from tests.integration.research.web import QUESTION
from tests.offline_web.server import serve


async def _until(check, timeout: float = 10.0) -> None:
    """Wait for the server thread to reach a state the test can see."""
    for _ in range(int(timeout / 0.05)):
        if check():
            return
        await anyio.sleep(0.05)
    raise AssertionError("the server never got there")


async def _read_sse(
    response: httpx.Response, *, stop_after: int | None = None
) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    async for line in response.aiter_lines():
        if line.startswith("data:"):
            events.append(json.loads(line[5:]))
            if stop_after is not None and len(events) >= stop_after:
                break
    return events


async def test_wait_returns_the_report_and_the_job_keeps_it(research_settings, research_web, llm):
    with serve(create_app(research_settings()), lifespan="on") as server:
        async with httpx.AsyncClient(base_url=server.url(""), timeout=30) as http:
            answer = await http.post(
                "/v1/research",
                params={"wait": "true"},
                json={"question": QUESTION, "depth": "quick"},
            )
            assert answer.status_code == 200, answer.text
            report = answer.json()
            assert report["citations"] and report["stopped_because"] == "max_iterations"
            job = (await http.get(f"/v1/research/{report['job_id']}")).json()
            assert job["status"] == "done" and job["result"]["answer"] == report["answer"]
            listed = (await http.get("/v1/research")).json()["jobs"]
            assert [j["id"] for j in listed] == [report["job_id"]]
            done = await http.get("/v1/research", params={"status": "done", "limit": 1})
            assert [j["id"] for j in done.json()["jobs"]] == [report["job_id"]]
            after = await http.get("/v1/research", params={"before": report["job_id"]})
            assert after.json()["jobs"] == []  # the listing's next page: nothing older
            gone = await http.get("/v1/research", params={"before": "nope"})
            assert gone.status_code == 404 and gone.json()["error"]["code"] == "not_found"
            events = (await http.get(f"/v1/research/{report['job_id']}/events")).json()["events"]
            assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
            assert events[0]["type"] == "started" and events[-1]["type"] == "done"
            assert events[-1]["data"]["report"]["answer"] == report["answer"]
            missing = await http.get("/v1/research/nope")
            assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"
            bad = await http.post("/v1/research", json={"question": "q?", "depth": "sideways"})
            assert bad.status_code == 422


async def test_a_dropped_sse_stream_resumes_after_last_event_id(
    research_settings, research_web, llm
):
    research_web.state.page_latency = 0.3
    with serve(create_app(research_settings()), lifespan="on") as server:
        async with httpx.AsyncClient(base_url=server.url(""), timeout=30) as http:
            sse = {"Accept": "text/event-stream"}
            body = {"question": QUESTION, "depth": "quick"}
            async with http.stream("POST", "/v1/research", json=body, headers=sse) as response:
                assert response.headers["content-type"].startswith("text/event-stream")
                job_id = response.headers["x-job-id"]
                first = await _read_sse(response, stop_after=3)
            # The connection is gone; the job is not.
            last = first[-1]["seq"]
            headers = {**sse, "Last-Event-ID": str(last)}
            async with http.stream(
                "GET", f"/v1/research/{job_id}/events", headers=headers
            ) as response:
                rest = await _read_sse(response)
    seqs = [e["seq"] for e in first + rest]
    assert seqs == list(range(1, len(seqs) + 1))  # nothing lost, nothing twice
    assert rest[0]["seq"] == last + 1 and rest[-1]["type"] == "done"
    assert rest[-1]["data"]["report"]["citations"]
    assert {e["job_id"] for e in first + rest} == {job_id}


async def test_a_dropped_websocket_resumes_with_since(research_settings, research_web, llm):
    research_web.state.page_latency = 0.3
    with serve(create_app(research_settings()), lifespan="on") as server:
        url = server.url("/v1/ws", scheme="ws")
        async with connect(url) as ws:
            await ws.send(
                json.dumps(
                    {"type": "research", "request_id": "r1", "question": QUESTION, "depth": "quick"}
                )
            )
            first = [json.loads(await ws.recv()) for _ in range(3)]
        job_id, last = first[-1]["job_id"], first[-1]["seq"]
        async with connect(url) as ws:
            await ws.send(
                json.dumps(
                    {"type": "research", "request_id": "r2", "job_id": job_id, "since": last}
                )
            )
            rest: list[dict[str, Any]] = []
            while not rest or rest[-1]["type"] not in ("done", "error"):
                rest.append(json.loads(await ws.recv()))
            await ws.send(json.dumps({"type": "research", "request_id": "r3", "job_id": "nope"}))
            missing = json.loads(await ws.recv())
    assert [m["request_id"] for m in first] == ["r1"] * 3
    assert {m["request_id"] for m in rest} == {"r2"}
    seqs = [m["seq"] for m in first + rest]
    assert seqs == list(range(1, len(seqs) + 1))
    assert rest[-1]["type"] == "done" and rest[-1]["data"]["report"]["citations"]
    assert missing["type"] == "error" and missing["data"]["error"]["code"] == "not_found"


async def test_cancel_keeps_what_was_found(research_settings, research_web, llm):
    research_web.state.page_latency = 30.0
    with serve(create_app(research_settings()), lifespan="on") as server:
        async with httpx.AsyncClient(base_url=server.url(""), timeout=30) as http:
            job = (await http.post("/v1/research", json={"question": QUESTION})).json()
            assert job["status"] in ("queued", "running")
            await _until(lambda: research_web.state.pages)
            started = time.monotonic()
            cancelled = await http.delete(f"/v1/research/{job['id']}")
            assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
            assert time.monotonic() - started < 5
            again = await http.delete(f"/v1/research/{job['id']}")
            assert again.status_code == 409  # idempotent: the job had ended, not bad input
            assert again.json()["error"]["code"] == "already_finished"
            assert again.json()["error"]["retryable"] is False
            events = (await http.get(f"/v1/research/{job['id']}/events")).json()["events"]
    assert events[-1]["type"] == "error" and events[-1]["data"]["code"] == "cancelled"
    result = cancelled.json()["result"]
    assert result["partial"] and result["queries"]


async def test_a_restart_resumes_the_job_it_left_running(research_settings, research_web, llm):
    settings = research_settings()
    research_web.state.page_latency = 30.0
    with serve(create_app(settings), lifespan="on") as server:
        async with httpx.AsyncClient(base_url=server.url(""), timeout=30) as http:
            job = (await http.post("/v1/research", json={"question": QUESTION})).json()
            await _until(lambda: len(research_web.state.pages) >= 2)
    # The first server stopped mid-job and handed it back; a new one on the same store
    # resumes it from its checkpoint and finishes it.
    research_web.state.page_latency = 0.0
    with serve(create_app(settings), lifespan="on") as server:
        async with httpx.AsyncClient(base_url=server.url(""), timeout=30) as http:
            for _ in range(200):
                after = (await http.get(f"/v1/research/{job['id']}")).json()
                if after["status"] not in ("queued", "running"):
                    break
                await anyio.sleep(0.05)
            events = (await http.get(f"/v1/research/{job['id']}/events")).json()["events"]
    assert after["status"] == "done" and after["attempts"] == 2
    assert after["result"]["citations"]
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    # The redone step's events were stored once: no event twice, and the plan not redone.
    assert len({json.dumps([e["type"], e["data"]], sort_keys=True) for e in events}) == len(events)
    assert [e["type"] for e in events].count("planned") == 1
    assert events[-1]["type"] == "done"
