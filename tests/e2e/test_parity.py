"""Door parity: each operation, through every door, on the same input, gives the same answer.

Every door is a thin adapter over one `Client` call, so the library (async `Client`), the sync
conveniences, the CLI (`--json`), REST, SSE, the WebSocket, MCP and the agent tools must agree
field by field. Only what honestly differs between two calls is left out of the comparison:
the fields in VOLATILE (timings, ids, cache flags), named here so nothing else can drift.

All doors read the research test web (a SearXNG-format engine and the pages it finds) with
the extractive research mode, so research is deterministic too.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client as MCPClient
from pydantic import BaseModel
from websockets.asyncio.client import connect

import netsift
from netsift import tools
from netsift.client import Client
from netsift.config import Settings
from netsift.mcp import create_server
from netsift.server import create_app
from netsift.tools.fetch_text import lean_page
from tests.e2e.cli import in_process
from tests.integration.research.fixtures import *  # noqa: F403
from tests.integration.research.fixtures import ResearchWeb
from tests.integration.research.web import QUESTION
from tests.offline_web.server import serve

# Fields that differ between two honest calls: when and how long, which job, which request,
# whether a cache answered, and the MCP/tool hint text beside a truncated page.
VOLATILE = frozenset(
    {
        "fetched_at",
        "elapsed_ms",
        "search_time_ms",
        "latency_ms",
        "cached",
        "job_id",
        "request_id",
        "hint",
    }
)
QUERY = "James Webb telescope launch"
QUERIES = ["Webb launch date", "Webb primary mirror"]


def stable(value: Any) -> Any:
    """`value` as JSON without the VOLATILE fields, at any depth."""
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json")
    if isinstance(value, dict):
        return {k: stable(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [stable(v) for v in value]
    return value


def differences(a: Any, b: Any, path: str = "") -> list[str]:
    """Where `a` and `b` differ, field by field, as `path: a != b`."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = [f"{path}.{k}: only on one side" for k in sorted(set(a) ^ set(b))]
        for key in sorted(set(a) & set(b)):
            out += differences(a[key], b[key], f"{path}.{key}")
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [
            d
            for i, (x, y) in enumerate(zip(a, b, strict=True))
            for d in differences(x, y, f"{path}[{i}]")
        ]
    return [] if a == b else [f"{path or 'value'}: {a!r:.120} != {b!r:.120}"]


def assert_same(answers: dict[str, Any]) -> None:
    """Every door's answer equals the library's, field by field."""
    reference = stable(answers["client"])
    assert reference, "the library answered nothing"
    problems = {
        door: found
        for door, answer in answers.items()
        if (found := differences(reference, stable(answer)))
    }
    assert not problems, json.dumps(problems, indent=1)


@pytest.fixture
def settings(research_settings: Callable[..., Settings], tmp_path: Path) -> Settings:
    return research_settings(with_llm=False, cache_url="memory://")


@pytest.fixture
def env(settings: Settings, research_web: ResearchWeb, tmp_path: Path) -> dict[str, str]:
    """The same settings as environment variables, for the CLI."""
    return {
        **research_web.env(),
        "NETSIFT_DATA_DIR": str(settings.data_dir),
        "NETSIFT_CACHE_URL": "memory://",
        "NETSIFT_JOBS_URL": str(settings.jobs_url),
    }


@pytest.fixture
def server(settings: Settings) -> Iterator[Any]:
    """The API on a real uvicorn, for REST, SSE and the WebSocket."""
    with serve(create_app(settings), lifespan="on") as live:
        yield live


def cli(env: dict[str, str]) -> Callable[..., Any]:
    """A CLI call's JSON, run on a worker thread (the CLI starts its own event loop)."""
    call = in_process(env)

    async def run(*args: str) -> Any:
        done = await anyio.to_thread.run_sync(lambda: call(*args, "--json"))
        assert done.code == 0, done.stdout + done.stderr
        return done.json()

    return run


def sse_events(text: str) -> list[dict[str, Any]]:
    return [
        json.loads(line[len("data:") :]) for line in text.splitlines() if line.startswith("data:")
    ]


async def ws_call(server: Any, message: dict[str, Any]) -> list[dict[str, Any]]:
    """One request's messages on the WebSocket, until its `done` or `error`."""
    seen: list[dict[str, Any]] = []
    async with connect(server.url("/v1/ws", scheme="ws")) as ws:
        await ws.send(json.dumps({"request_id": "parity", **message}))
        while not seen or seen[-1]["type"] not in ("done", "error"):
            seen.append(json.loads(await ws.recv()))
    assert seen[-1]["type"] == "done", seen[-1]
    return seen


def ws_result(messages: list[dict[str, Any]]) -> Any:
    results = [m["data"] for m in messages if m["type"] == "result"]
    return results[0] if len(results) == 1 else [{**r, "index": None} for r in results]


async def mcp_call(client: Client, name: str, arguments: dict[str, Any]) -> Any:
    async with MCPClient(create_server(client=client)) as mcp:
        result = await mcp.call_tool(name, arguments)
    assert not result.is_error, result.structured_content
    return result.structured_content


async def test_fetch_is_the_same_through_every_door(settings, env, server, research_web):
    url = research_web.url("launch.test", "/webb-launch")
    answers: dict[str, Any] = {}
    async with Client(settings) as client:
        answers["client"] = await client.fetch(url, max_length=100)
        # The agent doors answer the lean rendering of the same Page (metadata once, part one).
        lean = {"client": lean_page(answers["client"])}
        lean["tools"] = await tools.dispatch(
            "web_fetch", {"url": url, "max_length": 100}, client=client
        )
        lean["mcp"] = await mcp_call(client, "web_fetch", {"url": url, "max_length": 100})
    assert_same(lean)
    answers["sync"] = await anyio.to_thread.run_sync(
        lambda: netsift.fetch(url, settings=settings, max_length=100)
    )
    answers["cli"] = await cli(env)("fetch", url, "--max-length", "100")
    async with httpx.AsyncClient(base_url=server.url("/")) as http:
        answers["rest"] = (
            await http.post("/v1/fetch", json={"url": url, "max_length": 100})
        ).json()
    answers["ws"] = ws_result(
        await ws_call(server, {"type": "fetch", "url": url, "max_length": 100})
    )
    assert answers["client"].truncated and answers["client"].content
    assert_same(answers)


async def test_meta_is_the_same_through_every_door(settings, env, server, research_web):
    url = research_web.url("launch.test", "/webb-launch")
    answers: dict[str, Any] = {}
    async with Client(settings) as client:
        answers["client"] = await client.meta(url)
        answers["tools"] = await tools.dispatch("page_meta", {"url": url}, client=client)
        answers["tools alias"] = await tools.dispatch("meta", {"url": url}, client=client)
        answers["mcp"] = await mcp_call(client, "page_meta", {"url": url})
    answers["cli"] = await cli(env)("meta", url)
    async with httpx.AsyncClient(base_url=server.url("/")) as http:
        answers["rest"] = (await http.post("/v1/meta", json={"url": url})).json()
    answers["ws"] = ws_result(await ws_call(server, {"type": "meta", "url": url}))
    # The card says what kind of page it is on every door (REST and WS once said null).
    assert answers["client"].page_type == "article"
    assert_same(answers)


async def test_search_is_the_same_through_every_door(settings, env, server):
    answers: dict[str, Any] = {}
    async with Client(settings) as client:
        answers["client"] = await client.search(QUERY, count=3)
        answers["tools"] = await tools.dispatch(
            "web_search", {"query": QUERY, "count": 3}, client=client
        )
        answers["mcp"] = await mcp_call(client, "web_search", {"query": QUERY, "count": 3})
    answers["sync"] = await anyio.to_thread.run_sync(
        lambda: netsift.search(QUERY, settings=settings, count=3)
    )
    answers["cli"] = await cli(env)("search", QUERY, "-n", "3")
    body = {"query": QUERY, "count": 3}
    async with httpx.AsyncClient(base_url=server.url("/")) as http:
        answers["rest"] = (await http.post("/v1/search", json=body)).json()
        streamed = await http.post("/v1/search", json=body, headers={"accept": "text/event-stream"})
    answers["sse"] = next(e["data"] for e in sse_events(streamed.text) if e["type"] == "result")
    answers["ws"] = ws_result(await ws_call(server, {"type": "search", **body}))
    assert len(answers["client"].results) == 3
    assert_same(answers)


async def test_batch_search_is_the_same_through_every_door(settings, server):
    answers: dict[str, Any] = {}
    async with Client(settings) as client:
        answers["client"] = {"results": await client.batch_search(QUERIES, count=3)}
        answers["tools"] = await tools.dispatch(
            "batch_search", {"queries": QUERIES, "count": 3}, client=client
        )
        answers["mcp"] = await mcp_call(client, "batch_search", {"queries": QUERIES, "count": 3})
    body = {"queries": QUERIES, "count": 3}
    async with httpx.AsyncClient(base_url=server.url("/")) as http:
        answers["rest"] = (await http.post("/v1/search/batch", json=body)).json()
        streamed = await http.post(
            "/v1/search/batch", json=body, headers={"accept": "text/event-stream"}
        )
    results = [e["data"] for e in sse_events(streamed.text) if e["type"] == "result"]
    answers["sse"] = {"results": [{k: v for k, v in r.items() if k != "index"} for r in results]}
    messages = await ws_call(server, {"type": "batch", **body})
    ws_items = [m["data"] for m in messages if m["type"] == "result"]
    answers["ws"] = {"results": [{k: v for k, v in r.items() if k != "index"} for r in ws_items]}
    assert [item["query"] for item in stable(answers["client"])["results"]] == QUERIES
    assert_same(answers)


async def test_research_is_the_same_through_every_door(settings, env, server):
    answers: dict[str, Any] = {}
    async with Client(settings) as client:
        answers["client"] = await client.research(QUESTION, depth="quick")
        answers["tools"] = await tools.dispatch(
            "deep_research", {"question": QUESTION, "depth": "quick"}, client=client
        )
        answers["tools alias"] = await tools.dispatch(
            "research", {"question": QUESTION, "depth": "quick"}, client=client
        )
        answers["mcp"] = await mcp_call(
            client, "deep_research", {"question": QUESTION, "depth": "quick"}
        )
    answers["sync"] = await anyio.to_thread.run_sync(
        lambda: netsift.research(QUESTION, settings=settings, depth="quick")
    )
    answers["cli"] = await cli(env)("research", QUESTION, "--depth", "quick")
    body = {"question": QUESTION, "depth": "quick"}
    async with httpx.AsyncClient(base_url=server.url("/"), timeout=60) as http:
        answers["rest"] = (await http.post("/v1/research?wait=true", json=body)).json()
        streamed = await http.post(
            "/v1/research", json=body, headers={"accept": "text/event-stream"}
        )
    events = sse_events(streamed.text)
    answers["sse"] = next(e["data"]["report"] for e in events if e["type"] == "done")
    messages = await ws_call(server, {"type": "research", **body})
    answers["ws"] = messages[-1]["data"]["report"]
    report = answers["client"]
    assert report.mode == "extractive" and report.citations
    assert_same(answers)


async def test_map_is_the_same_through_every_door(settings, env, research_web, offline_web):
    """The map of map.test (tests/offline_web/sitemaps.py): sitemaps, a feed, the page."""
    settings = settings.model_copy(update={"resolve": [*settings.resolve, *offline_web.pins]})
    env = {**env, "NETSIFT_RESOLVE": ",".join([*research_web.pins, *offline_web.pins])}
    url = offline_web.url("map.test", "/")
    args = {"url": url, "limit": 5, "query": "pricing"}
    answers: dict[str, Any] = {}
    async with Client(settings) as client:
        answers["client"] = await client.map(url, limit=5, query="pricing")
        answers["tools"] = await tools.dispatch("web_map", args, client=client)
        answers["tools alias"] = await tools.dispatch("map", args, client=client)
        answers["mcp"] = await mcp_call(client, "web_map", args)
    answers["cli"] = await cli(env)("map", url, "--limit", "5", "--query", "pricing")
    with serve(create_app(settings), lifespan="on") as server:
        async with httpx.AsyncClient(base_url=server.url("/")) as http:
            answers["rest"] = (await http.post("/v1/map", json=args)).json()
        answers["ws"] = ws_result(await ws_call(server, {"type": "map", **args}))
    assert len(answers["client"].links) == 5 and answers["client"].sitemaps
    assert_same(answers)
