"""Door parity: each operation, through every door, on the same input, gives the same answer.

Every door is a thin adapter over one `Client` call, so the library (async `Client`), the sync
conveniences, the CLI (`--json`), REST, SSE, the WebSocket, MCP and the agent tools must agree
field by field. Only what honestly differs between two calls is left out of the comparison:
the fields in VOLATILE (timings, ids, cache flags), named here so nothing else can drift.

All doors read the research test web (a SearXNG-format engine and the pages it finds) with
the extractive research mode, so research is deterministic too.
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
import typer.main
from mcp import Client as MCPClient
from pydantic import BaseModel
from websockets.asyncio.client import connect

import netsift
from netsift import tools
from netsift.cli import app as cli_app
from netsift.client import Client
from netsift.config import Settings
from netsift.mcp import ANNOTATIONS, REFERENCE_FETCH, create_server
from netsift.operations import (
    CATALOGUE,
    CLI_FLAGS,
    CLI_PRESENTATION,
    HOST_COMMANDS,
    HOST_ROUTES,
    HTTP_CONTROLS,
    Operation,
    by_tool,
    by_ws,
)
from netsift.server import create_app
from netsift.server.routers import ws
from netsift.tools.fetch_text import lean_page
from netsift.tools.schemas import ARGS, TOOLS
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


async def test_context_is_the_same_through_every_door(settings, env, server):
    args = {"query": QUERY, "max_tokens": 1024, "max_sources": 3}
    answers: dict[str, Any] = {}
    async with Client(settings) as client:
        answers["client"] = await client.context(QUERY, max_tokens=1024, max_sources=3)
        answers["tools"] = await tools.dispatch("web_context", args, client=client)
        answers["tools alias"] = await tools.dispatch("context", args, client=client)
        answers["mcp"] = await mcp_call(client, "web_context", args)
    answers["cli"] = await cli(env)("context", QUERY, "--max-tokens", "1024", "--max-sources", "3")
    async with httpx.AsyncClient(base_url=server.url("/")) as http:
        answers["rest"] = (await http.post("/v1/context", json=args)).json()
    answers["ws"] = ws_result(await ws_call(server, {"type": "context", **args}))
    assert answers["client"].passages and answers["client"].tokens <= 1024
    assert_same(answers)


async def test_extract_data_is_the_same_through_every_door(
    settings, env, research_web, offline_web, tmp_path
):
    """A product's fields from its JSON-LD and table (shop.test/product), without a model."""
    settings = settings.model_copy(update={"resolve": [*settings.resolve, *offline_web.pins]})
    env = {**env, "NETSIFT_RESOLVE": ",".join([*research_web.pins, *offline_web.pins])}
    url = offline_web.url("shop.test", "/product")
    schema = {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "price": {"type": "number"},
            "weight": {"type": "string"},
            "colour": {"type": "string"},
        },
    }
    args = {"urls": [url], "output_schema": schema}
    answers: dict[str, Any] = {}
    async with Client(settings) as client:
        answers["client"] = await client.extract_data([url], output_schema=schema)
        answers["tools"] = await tools.dispatch("extract_data", args, client=client)
        answers["mcp"] = await mcp_call(client, "extract_data", args)
    schema_file = tmp_path / "schema.json"
    schema_file.write_text(json.dumps(schema))
    answers["cli"] = await cli(env)("extract-data", url, "--schema", str(schema_file))
    with serve(create_app(settings), lifespan="on") as server:
        async with httpx.AsyncClient(base_url=server.url("/")) as http:
            answers["rest"] = (await http.post("/v1/extract", json=args)).json()
    result = answers["client"]
    assert result.data["price"] == 129.0 and result.data["colour"] is None
    assert result.evidence["weight"][0].origin == "table" and "colour" in result.missing
    assert_same(answers)


# --- The catalogue (netsift/operations.py): each door offers exactly its operations and options.


def cli_commands() -> dict[str, Any]:
    """The `netsift` commands by name (typer's click objects: its own copy of click)."""
    return dict(typer.main.get_command(cli_app).commands)  # type: ignore[attr-defined]


def openapi_routes(settings: Settings) -> dict[str, dict[str, Any]]:
    """`METHOD /path` → its OpenAPI operation, for every route the document lists."""
    document = create_app(settings).openapi()
    return {
        f"{method.upper()} {path}": spec
        for path, methods in document["paths"].items()
        for method, spec in methods.items()
    } | {"_components": document.get("components", {})}


def route_options(route: dict[str, Any], components: dict[str, Any]) -> set[str]:
    """A route's path and query parameters and its JSON body's properties, by name."""
    names = {param["name"] for param in route.get("parameters", [])}
    body = route.get("requestBody", {}).get("content", {}).get("application/json", {})
    schema = body.get("schema", {})
    for option in schema.get("anyOf", [schema]):  # an optional body: one model or null
        if "$ref" in option:
            option = components["schemas"][option["$ref"].rsplit("/", 1)[-1]]
        names |= set(option.get("properties", {}))
    return names


def test_each_door_offers_exactly_the_catalogues_operations(settings):
    """A command, route, message type or tool that is no operation's (nor the host's) fails
    here: declare it in operations.py first, so every door and the docs follow."""
    commands = {op.cli for op in CATALOGUE if op.cli}
    assert set(cli_commands()) == commands | HOST_COMMANDS
    routes = openapi_routes(settings)
    declared = [route for op in CATALOGUE for route in op.http]
    assert len(declared) == len(set(declared)), "a route belongs to one operation"
    assert set(routes) - {"_components"} == set(declared) | HOST_ROUTES
    assert set(ws.MODELS) | set(ws.JOB_MESSAGES) == set(by_ws())
    assert [tool.name for tool in TOOLS] == list(by_tool())
    assert {c for tool in TOOLS for c in tool.capabilities} <= {
        c for op in CATALOGUE for c in op.capabilities()
    }


async def test_mcp_offers_the_catalogues_tools_and_the_reference_fetch(settings):
    async with MCPClient(create_server(settings)) as mcp:
        listed = {tool.name for tool in (await mcp.list_tools()).tools}
    assert listed == set(by_tool()) | {REFERENCE_FETCH}
    assert set(ANNOTATIONS) <= listed, "annotations for a tool MCP does not serve"


@pytest.mark.parametrize("op", [op for op in CATALOGUE if op.cli], ids=lambda op: op.name)
def test_the_cli_offers_the_operations_options(op: Operation):
    """Each command offers its operation's params (by their names, CLI_FLAGS aside), and only
    those, the library caller's own options (its caps) and how it prints."""
    command = cli_commands()[op.cli or ""]
    offered = {CLI_FLAGS.get(p.name or "", p.name or "") for p in command.params}
    offered -= CLI_PRESENTATION | {op.input or ""}
    if command.params[0].param_type_name == "argument" and op.input:
        offered.discard(command.params[0].name or "")  # the input itself (a file for extract)
    assert op.fields() - op.cli_leaves_out <= offered, "an option the command lacks"
    assert offered <= op.library_fields(), "a command option no operation declares"
    assert not op.cli_leaves_out & offered, "cli_leaves_out names an option it offers now"


@pytest.mark.parametrize(
    "op", [op for op in CATALOGUE if op.http and op.params], ids=lambda op: op.name
)
def test_each_operations_route_takes_its_params(settings, op: Operation):
    """The operation's route (its first) takes exactly its params: the body's fields, the path
    and the query, besides the controls HTTP adds (request_id, wait)."""
    routes = openapi_routes(settings)
    options = route_options(routes[op.http[0]], routes["_components"]) - HTTP_CONTROLS
    assert options - {op.input or ""} == op.fields()  # extract's HTML is its input, as on the CLI


@pytest.mark.parametrize("kind", sorted(ws.MODELS))
def test_each_websocket_message_takes_its_operations_params(kind: str):
    op = by_ws()[kind]
    own = {"request_id", *([op.input] if op.input else [])}  # extract's HTML comes in the message
    assert set(ws.MODELS[kind].model_fields) == op.fields() | own


def _shape(schema: Any) -> Any:
    """A JSON Schema without what a door may tune (defaults, bounds, wording): its types."""
    tuned = {"description", "default", "title", "maximum", "minimum", "exclusiveMinimum"}
    tuned |= {"maxLength", "minLength", "maxItems", "minItems", "exclusiveMaximum"}
    if isinstance(schema, dict):
        return {k: _shape(v) for k, v in schema.items() if k not in tuned}
    if isinstance(schema, list):
        return [_shape(v) for v in schema]
    return schema


@pytest.mark.parametrize("name", list(by_tool()))
def test_each_tool_takes_its_operations_params_but_the_hosts(name: str):
    """A tool's arguments are its operation's params but those left to the host, plus its
    own; each shared one has the params' type, so a valid tool call is a valid operation."""
    op = by_tool()[name]
    args = ARGS[name]
    assert set(args.model_fields) == op.tool_fields()
    assert op.params is not None
    params = op.params.model_json_schema()["properties"]
    tool = args.model_json_schema()["properties"]
    for field in op.tool_fields() - op.tool_options:
        wanted, given = _shape(params[field]), _shape(tool[field])
        # the same type, or one of the params' (a tool may rule out null: `max_length`)
        assert given == wanted or given in wanted.get("anyOf", []), field


# Operations whose Client method the job runtime's rebuild adds (issue 24); until then their
# doors read the job store (tests/unit/test_doors_use_client_methods.py lists where).
JOB_METHODS_PENDING = frozenset({"job_status"})


def _type_name(annotation: Any) -> str:
    """`list[BatchItem]` for `list[netsift.search.batch.BatchItem]` or the string annotation."""
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", "")
    if not isinstance(annotation, str) and getattr(annotation, "__args__", None):
        text = str(annotation)
    return re.sub(r"\b[\w]+\.", "", text).replace(" ", "")


@pytest.mark.parametrize("op", CATALOGUE, ids=lambda op: op.name)
def test_each_operation_is_a_client_method_answering_its_result(op: Operation):
    """The catalogue names the Client method every door calls, and what it answers."""
    if op.name in JOB_METHODS_PENDING:
        assert not hasattr(Client, op.name), "the method came: drop it from JOB_METHODS_PENDING"
        return
    method = getattr(Client, op.name)
    assert _type_name(inspect.signature(method).return_annotation) == _type_name(op.result)


@pytest.mark.parametrize(
    "op",
    [
        op
        for op in CATALOGUE
        if op.http and isinstance(op.result, type) and op.name not in ws.JOB_MESSAGES
    ],
    ids=lambda op: op.name,
)
def test_each_operations_route_answers_its_result(settings, op: Operation):
    """A route that answers at once answers the operation's result (a job's start answers
    the job, with the result in it when it is waited for: the job runtime's)."""
    ok = openapi_routes(settings)[op.http[0]]["responses"]
    answer = ok.get("200") or ok.get("201") or {}
    schema = answer.get("content", {}).get("application/json", {}).get("schema", {})
    if op in ws.OPERATIONS.values():  # the WebSocket's operations each answer a model
        assert "$ref" in schema, f"{op.http[0]} declares no response model"
    if "$ref" in schema:
        assert schema["$ref"].rsplit("/", 1)[-1] == op.result.__name__


@pytest.mark.parametrize(
    "op",
    [
        op
        for op in CATALOGUE
        if op.http[:1] and op.http[0].startswith("POST") and op.name not in ws.JOB_MESSAGES
    ],
    ids=lambda op: op.name,
)
def test_each_operations_route_declares_the_statuses_of_its_errors(settings, op: Operation):
    """The OpenAPI document tells a client each status the operation's errors may bring (a
    job's start answers at once; its run's errors come in the job)."""
    route = openapi_routes(settings)[op.http[0]]
    declared = {int(status) for status in route["responses"] if status.isdigit()}
    assert set(op.statuses()) <= declared
