"""Every request body is depth-bounded before anything parses it: a deeply nested JSON body sent
to every route of the OpenAPI document, every compatible API's route (under its prefix, at the
main port's root and on the Firecrawl listener) and the WebSocket is a 400 `invalid_input` in
that route's own error shape, never a 500 (a `RecursionError` in a parser once was one)."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest
from fastapi.routing import APIRoute, APIWebSocketRoute
from websockets.asyncio.client import connect

from netsift.config import Settings
from netsift.server import compat, create_app
from netsift.server.body_bounds import MAX_DEPTH, nesting_depth
from netsift.server.compat import firecrawl, searxng, tavily
from tests.offline_web.server import serve

MAIN = "http://api.test:8080"
FIRECRAWL_PORT = 3002
LISTENER = f"http://api.test:{FIRECRAWL_PORT}"
# Deep enough for Python's json to raise RecursionError and jiter to give up (200 levels).
DEEP = 5_000
BODIES = {
    "array": b"[" * DEEP + b"]" * DEEP,
    "in a field": b'{"query": "x", "url": "http://a.test/", "urls": '
    + b"[" * DEEP
    + b"]" * DEEP
    + b"}",
    "objects": b'{"a":' * DEEP + b"1" + b"}" * DEEP,
    "unclosed": b"[" * DEEP,
}


def netsift_shape(body: Any) -> bool:
    return (
        body["error"]["code"] == "invalid_input" and "nested too deeply" in body["error"]["message"]
    )


def tavily_shape(body: Any) -> bool:
    return (
        body["detail"]["code"] == "invalid_input" and "nested too deeply" in body["detail"]["error"]
    )


def firecrawl_shape(body: Any) -> bool:
    return body["success"] is False and body["details"] == "invalid_input"


def searxng_shape(body: Any) -> bool:
    return set(body) == {"error"} and "nested too deeply" in body["error"]


SHAPES: dict[str, Callable[[Any], bool]] = {
    tavily.PREFIX: tavily_shape,
    firecrawl.PREFIX: firecrawl_shape,
    searxng.PREFIX: searxng_shape,
}


def concrete(path: str) -> str:
    return re.sub(r"\{[^}]+\}", "x1", path)


def openapi_routes() -> list[tuple[str, str]]:
    document = create_app(Settings()).openapi()
    return [
        (method.upper(), concrete(path))
        for path, operations in document["paths"].items()
        for method in operations
    ]


def compat_routes() -> list[tuple[str, str, str, Callable[[Any], bool]]]:
    """(method, base, path, shape): each compatible route under its prefix, then where its
    clients reach it at a root (routing.py)."""
    found = []
    for router in compat.ROUTERS:
        for route in router.routes:
            if isinstance(route, APIWebSocketRoute):
                continue  # no body to bound (Firecrawl's watcher)
            assert isinstance(route, APIRoute)
            prefix = next(p for p in SHAPES if route.path.startswith(p + "/"))
            path = concrete(route.path)
            for method in sorted(route.methods or ()):
                found.append((method, MAIN, path, SHAPES[prefix]))
                if prefix == firecrawl.PREFIX:
                    rooted = path.removeprefix(prefix)
                    found.append((method, LISTENER, rooted, firecrawl_shape))
                    if rooted.startswith("/v2/"):
                        found.append((method, MAIN, rooted, firecrawl_shape))
    found.append(("GET", MAIN, "/search?q=x&format=json", searxng_shape))
    found.append(("GET", MAIN, "/?q=x&format=json", searxng_shape))
    return found


@pytest.fixture(scope="module")
def app():
    # No lifespan: the refusal must come before any route, Client or quota is reached.
    return create_app(Settings(firecrawl_port=FIRECRAWL_PORT, capabilities=["search", "fetch"]))


async def send(app: Any, method: str, url: str, content: Any) -> httpx.Response:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport) as http:
        headers = {"content-type": "application/json"}
        return await http.request(method, url, content=content, headers=headers)


def test_every_route_is_listed():
    routes = openapi_routes()
    assert ("POST", "/v1/search") in routes and ("POST", "/v1/crawl") in routes
    assert len(routes) >= 25  # the whole document, not a hand-picked few
    assert len(compat_routes()) >= 40


@pytest.mark.parametrize("kind", sorted(BODIES))
@pytest.mark.parametrize(("method", "path"), openapi_routes())
async def test_netsift_routes_refuse_a_deep_body(app, method: str, path: str, kind: str):
    response = await send(app, method, MAIN + path, BODIES[kind])
    assert response.status_code == 400, response.text
    assert netsift_shape(response.json()), response.text


@pytest.mark.parametrize("kind", sorted(BODIES))
@pytest.mark.parametrize(("method", "base", "path", "shape"), compat_routes())
async def test_compatible_routes_refuse_a_deep_body_in_their_shape(
    app, method: str, base: str, path: str, shape: Callable[[Any], bool], kind: str
):
    response = await send(app, method, base + path, BODIES[kind])
    assert response.status_code == 400, response.text
    assert shape(response.json()), response.text


async def test_a_chunked_body_is_measured_too(app):
    async def chunks() -> AsyncIterator[bytes]:
        for _ in range(DEEP // 100):
            yield b"[" * 100

    response = await send(app, "POST", MAIN + "/v1/search", chunks())
    assert response.status_code == 400 and netsift_shape(response.json())
    response = await send(app, "POST", LISTENER + "/v1/search", chunks())
    assert response.status_code == 400 and firecrawl_shape(response.json())


async def test_a_body_within_the_bound_reaches_validation(app):
    nested = b'{"query": ' + b"[" * (MAX_DEPTH - 1) + b"]" * (MAX_DEPTH - 1) + b"}"
    response = await send(app, "POST", MAIN + "/v1/search", nested)
    assert response.status_code == 422  # read and validated: `query` is not a string
    assert "query" in response.json()["error"]["message"]


async def test_a_deep_websocket_message_is_refused_and_the_socket_stays_open():
    with serve(create_app(Settings(capabilities=["search"])), lifespan="on") as server:
        async with connect(server.url("/v1/ws", scheme="ws")) as ws:
            await ws.send(BODIES["array"].decode())
            refused = json.loads(await ws.recv())
            await ws.send(json.dumps({"type": "nope", "request_id": "r2"}))
            after = json.loads(await ws.recv())
    assert refused["type"] == "error" and netsift_shape(refused["data"])
    assert after["request_id"] == "r2" and after["data"]["error"]["code"] == "invalid_input"


@pytest.mark.parametrize(
    ("text", "depth"),
    [
        (b"", 0),
        (b'"plain"', 0),
        (b"{}", 1),
        (b'{"a": [1, {"b": []}]}', 4),
        (b'{"a": "[[[[{{{{", "b": [{}]}', 3),  # brackets inside strings do not nest
        (b'["\\"[[[", [[]]]', 3),  # nor after an escaped quote
        (b'["\\\\", [[]]]', 3),  # an escaped backslash ends before the quote
        (b'"unterminated [[[[', 0),  # a string to the end holds the rest
        (b'["a" "[[" ]', 1),
        (b"[" * 300, 300),
    ],
)
def test_nesting_depth_counts_brackets_outside_strings(text: bytes, depth: int):
    assert nesting_depth(text) == depth


def test_nesting_depth_agrees_with_the_parser():
    values: list[Any] = [{"a": [[1], {"b": [[[{}]]]}]}, [[], [[], [[]]]], {"s": "]]}}[[{{"}]
    for value in values:
        text = json.dumps(value).encode()
        assert nesting_depth(text) == depth_of(value)


def depth_of(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max((depth_of(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((depth_of(v) for v in value), default=0)
    return 0


def test_nesting_depth_carries_across_windows_and_stops_past_the_limit():
    spread = b"[" * 40 + b"[]" * 5_000 + b"[" * 30  # the 70th level lies windows after the 40th
    assert nesting_depth(spread) == 70
    assert nesting_depth(spread, limit=MAX_DEPTH) == 70
    assert MAX_DEPTH < nesting_depth(b"[" * 1_000_000, limit=MAX_DEPTH) < 1_000_000  # stopped
