"""Search over HTTP against the provider simulators: JSON, batches, failover, and live SSE."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import httpx
import pytest

from netsift.client import Client
from netsift.server import create_app
from tests.offline_web.server import serve

PROVIDERS = ["brave", "tavily"]


@pytest.fixture
async def search_api(sim_settings):
    settings = sim_settings(providers=PROVIDERS, capabilities=["search", "fetch"])
    async with Client(settings) as client:
        transport = httpx.ASGITransport(app=create_app(client=client))
        async with httpx.AsyncClient(transport=transport, base_url="http://api.test") as http:
            yield http


async def test_search_answers_with_attempts_and_request_id(search_api, sims):
    response = await search_api.post(
        "/v1/search", json={"query": "rust async runtime", "count": 3, "request_id": "req-1"}
    )
    assert response.status_code == 200, response.text
    found = response.json()
    assert found["request_id"] == "req-1"
    assert found["provider"] == "brave"
    assert 0 < found["result_count"] <= 3
    assert [a["provider"] for a in found["attempts"]] == ["brave"]
    assert sims["brave"].count == 1


async def test_header_request_id_is_used_when_the_body_has_none(search_api):
    response = await search_api.post(
        "/v1/search", json={"query": "rust async runtime"}, headers={"x-request-id": "hdr-9"}
    )
    assert response.json()["request_id"] == "hdr-9"
    assert response.headers["x-request-id"] == "hdr-9"


async def test_failover_is_visible_in_attempts(search_api, sims):
    sims["brave"].set("rate_limit")
    found = (await search_api.post("/v1/search", json={"query": "rust async runtime"})).json()
    assert found["provider"] == "tavily"
    first, second = found["attempts"]
    assert (first["provider"], first["ok"], first["error_code"]) == ("brave", False, "rate_limited")
    assert (second["provider"], second["ok"]) == ("tavily", True)


async def test_all_providers_failing_is_502_with_attempts(search_api, sims):
    sims["brave"].set("auth")
    sims["tavily"].set("server_error")
    response = await search_api.post("/v1/search", json={"query": "rust async runtime"})
    assert response.status_code == 502
    error = response.json()["error"]
    assert error["code"] == "all_providers_failed"
    assert [a["provider"] for a in error["details"]["attempts"]] == PROVIDERS
    metrics = (await search_api.get("/metrics")).text
    assert (
        'netsift_provider_searches_total{outcome="provider_auth",provider="brave"} 1.0' in metrics
    )
    assert 'netsift_errors_total{code="all_providers_failed"} 1.0' in metrics


async def test_unknown_provider_is_400(search_api):
    response = await search_api.post(
        "/v1/search", json={"query": "rust", "providers": ["altavista"]}
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_input"


async def test_count_out_of_range_is_422(search_api):
    response = await search_api.post("/v1/search", json={"query": "rust", "count": 51})
    assert response.status_code == 422
    assert "count" in response.json()["error"]["message"]


async def test_cache_hits_and_metrics(search_api, sims):
    body = {"query": "rust async runtime"}
    first = (await search_api.post("/v1/search", json=body)).json()
    second = (await search_api.post("/v1/search", json=body)).json()
    assert (first["cached"], second["cached"]) == (False, True)
    assert sims["brave"].count == 1
    metrics = (await search_api.get("/metrics")).text
    assert 'netsift_search_cache_total{result="hit"} 1.0' in metrics
    assert 'netsift_search_cache_total{result="miss"} 1.0' in metrics
    assert 'netsift_searches_total{cached="false",client="anonymous"} 1.0' in metrics
    assert 'netsift_provider_searches_total{outcome="ok",provider="brave"} 1.0' in metrics
    assert 'route="/v1/search",status="200"' in metrics
    assert "netsift_http_request_duration_seconds_bucket" in metrics


async def test_batch_answers_in_order_with_errors_inline(search_api, sims):
    sims["brave"].set("server_error", times=1)
    sims["tavily"].set("server_error", times=1)
    queries = ["rust async runtime", "python web framework"]
    response = await search_api.post(
        "/v1/search/batch", json={"queries": queries, "providers": PROVIDERS, "request_id": "b-1"}
    )
    assert response.status_code == 200, response.text
    batch = response.json()
    assert batch["request_id"] == "b-1"
    assert [item["query"] for item in batch["results"]] == queries
    assert all((item["response"] is None) != (item["error"] is None) for item in batch["results"])


async def test_batch_with_a_failing_query_keeps_the_others(search_api, sims):
    sims["brave"].set("server_error", times=1)
    sims["tavily"].set("server_error", times=1)
    queries = ["rust async runtime", "python web framework", "linux kernel scheduler"]
    response = await search_api.post("/v1/search/batch", json={"queries": queries})
    items = response.json()["results"]
    assert [item["query"] for item in items] == queries
    failed = [item for item in items if item["error"]]
    assert 1 <= len(failed) <= 2
    assert failed[0]["error"]["code"] == "all_providers_failed"
    assert any(item["response"] for item in items)


def read_events(response: httpx.Response) -> list[tuple[str | None, Any, float]]:
    """(type, event, seconds since the request) for each SSE event, as it arrives."""
    started = time.monotonic()
    events = []
    kind = None
    for line in response.iter_lines():
        if line.startswith("event: "):
            kind = line[len("event: ") :]
        elif line.startswith("data: "):
            events.append((kind, json.loads(line[len("data: ") :]), time.monotonic() - started))
    return events


@pytest.fixture
def live_api(sim_settings):
    """A real uvicorn serving the app, whose lifespan opens its own Client."""
    settings = sim_settings(providers=PROVIDERS, capabilities=["search", "fetch"])
    with serve(create_app(settings), lifespan="on") as server:
        yield server


def test_sse_streams_attempts_as_they_happen(live_api, sims):
    sims["brave"].set("auth")
    sims["tavily"].latency = 1.0
    with httpx.stream(
        "POST",
        live_api.url("/v1/search"),
        json={"query": "rust async runtime", "request_id": "sse-1"},
        headers={"accept": "text/event-stream"},
        timeout=10,
    ) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        events = read_events(response)
    kinds = [kind for kind, _, _ in events]
    assert kinds == [
        "started",
        "search_started",
        "search_done",
        "search_started",
        "search_done",
        "result",
        "done",
    ]
    assert [event["seq"] for _, event, _ in events] == list(range(1, 8))
    assert all(event["job_id"] == "sse-1" for _, event, _ in events)
    by_kind = [(kind, event["data"]) for kind, event, _ in events]
    assert by_kind[2][1]["provider"] == "brave" and by_kind[2][1]["error_code"] == "provider_auth"
    assert by_kind[4][1]["provider"] == "tavily" and by_kind[4][1]["ok"] is True
    assert by_kind[5][1]["provider"] == "tavily" and by_kind[5][1]["request_id"] == "sse-1"
    # Incremental: tavily's start reached the client about a second before its answer did.
    tavily_started, tavily_done = events[3][2], events[4][2]
    assert tavily_done - tavily_started > 0.6


def test_sse_failure_is_an_error_event(live_api, sims):
    sims["brave"].set("server_error")
    sims["tavily"].set("server_error")
    with httpx.stream(
        "POST",
        live_api.url("/v1/search"),
        json={"query": "rust async runtime"},
        headers={"accept": "text/event-stream"},
        timeout=10,
    ) as response:
        events = read_events(response)
    kind, event, _ = events[-1]
    assert kind == "error"
    assert event["data"]["error"]["code"] == "all_providers_failed"


def test_sse_batch_streams_each_result(live_api, sims):
    queries = ["rust async runtime", "python web framework"]
    with httpx.stream(
        "POST",
        live_api.url("/v1/search/batch"),
        json={"queries": queries, "providers": ["tavily"]},
        headers={"accept": "text/event-stream"},
        timeout=10,
    ) as response:
        events = read_events(response)
    results = [event["data"] for kind, event, _ in events if kind == "result"]
    assert [(r["index"], r["query"]) for r in results] == [(0, queries[0]), (1, queries[1])]
    assert sum(kind == "search_done" for kind, _, _ in events) == 2
    assert events[-1][0] == "done"


def test_sse_refusals_keep_their_status(sim_settings, sims):
    settings = sim_settings(providers=PROVIDERS, capabilities=["fetch"])
    with serve(create_app(settings), lifespan="on") as server:
        response = httpx.post(
            server.url("/v1/search"),
            json={"query": "rust"},
            headers={"accept": "text/event-stream"},
        )
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "disabled"


class HopCountingLoop(asyncio.SelectorEventLoop):
    """Counts results handed back from other threads: anyio's worker threads (FastAPI's
    threadpool) and asyncio's executor (`to_thread`) both report through this call."""

    hops = 0

    def call_soon_threadsafe(self, callback, *args, context=None):  # type: ignore[override]
        self.hops += 1
        return super().call_soon_threadsafe(callback, *args, context=context)


def test_cached_search_stays_on_the_event_loop(sim_settings):
    """A cached search is a dictionary lookup: a worker-thread hop per request (a sync
    dependency, a rate limiter's sweep) used to cost more than the search itself."""
    settings = sim_settings(providers=["tavily"], capabilities=["search"])

    async def hops_per_request() -> float:
        loop = asyncio.get_running_loop()
        assert isinstance(loop, HopCountingLoop)
        async with Client(settings) as client:
            transport = httpx.ASGITransport(app=create_app(client=client))
            async with httpx.AsyncClient(transport=transport, base_url="http://api.test") as http:
                warm = await http.post("/v1/search", json={"query": "rust async runtime"})
                assert warm.status_code == 200 and not warm.json()["cached"]
                before = loop.hops
                for _ in range(20):
                    found = await http.post("/v1/search", json={"query": "rust async runtime"})
                    assert found.json()["cached"]
                    for _ in range(3):  # let background tasks (expiry sweeps) run
                        await asyncio.sleep(0)
                return (loop.hops - before) / 20

    with asyncio.Runner(loop_factory=HopCountingLoop) as runner:
        assert runner.run(hops_per_request()) == 0
