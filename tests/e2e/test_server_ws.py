"""The WebSocket at /v1/ws over a real uvicorn: several requests in flight on one socket."""

from __future__ import annotations

import json
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus
from websockets.typing import Subprotocol

from netsift.server import create_app
from tests.offline_web.server import serve


async def collect(ws, until: set[str]) -> Any:
    """Messages by request_id until every id in `until` got its `done` or `error`."""
    seen: dict[Any, Any] = {}
    finished: set[str] = set()
    order = []
    while not until <= finished:
        message = json.loads(await ws.recv())
        rid = message["request_id"]
        seen.setdefault(rid, []).append(message)
        order.append((rid, message["type"]))
        if message["type"] in ("done", "error"):
            finished.add(rid)
    seen["_order"] = order
    return seen


async def test_requests_in_flight_interleave(door_settings, sims, offline_web):
    sims["tavily"].latency = 1.0
    with serve(create_app(door_settings()), lifespan="on") as server:
        async with connect(server.url("/v1/ws", scheme="ws")) as ws:
            await ws.send(json.dumps({"type": "search", "request_id": "s1", "query": "rust async"}))
            await ws.send(
                json.dumps(
                    {
                        "type": "fetch",
                        "request_id": "f1",
                        "url": offline_web.url("news.test", "/article"),
                        "max_length": 100,
                    }
                )
            )
            await ws.send(json.dumps({"type": "meta", "request_id": "m1", "url": "ftp://x.test/"}))
            await ws.send("not json at all")
            await ws.send(json.dumps({"type": "dance", "request_id": "d1"}))
            await ws.send(json.dumps({"type": "search", "request_id": "v1", "count": 99}))
            got = await collect(ws, {"s1", "f1", "m1", "d1", "v1"})
    order = got.pop("_order")
    assert [m["type"] for m in got["s1"]] == [
        "started",
        "search_started",
        "search_done",
        "result",
        "done",
    ]
    assert got["s1"][3]["data"]["provider"] == "tavily"
    assert [m["type"] for m in got["f1"]] == ["started", "result", "done"]
    assert got["f1"][1]["data"]["title"] == "Harbour town switches its ferries to batteries"
    # The fetch was sent after the slow search and finished before it.
    assert order.index(("f1", "done")) < order.index(("s1", "result"))
    assert got["m1"][-1]["data"]["error"]["code"] == "unsupported_scheme"
    assert got["d1"][0]["data"]["error"]["code"] == "invalid_input"
    assert "dance" in got["d1"][0]["data"]["error"]["message"]
    assert got["v1"][0]["type"] == "error" and "count" in got["v1"][0]["data"]["error"]["message"]
    unnamed = got[None]  # not JSON: no request_id to answer with
    assert unnamed[0]["data"]["error"]["message"].startswith("the message is not valid JSON")


async def test_batch_over_the_socket(door_settings):
    with serve(create_app(door_settings()), lifespan="on") as server:
        async with connect(server.url("/v1/ws", scheme="ws")) as ws:
            queries = ["rust async runtime", "python web framework"]
            await ws.send(json.dumps({"type": "batch", "request_id": "b1", "queries": queries}))
            got = await collect(ws, {"b1"})
    results = [m["data"] for m in got["b1"] if m["type"] == "result"]
    assert [r["query"] for r in results] == queries
    assert got["b1"][-1]["type"] == "done"


async def test_socket_needs_the_api_key(door_settings):
    with serve(create_app(door_settings(api_keys=["sekret-1"])), lifespan="on") as server:
        url = server.url("/v1/ws", scheme="ws")
        with pytest.raises(InvalidStatus) as refused:
            async with connect(url):
                pass
        assert refused.value.response.status_code == 403
        with pytest.raises(InvalidStatus):
            async with connect(url, additional_headers={"Authorization": "Bearer wrong"}):
                pass
        headers = {"Authorization": "Bearer sekret-1"}
        async with connect(url, additional_headers=headers) as ws:
            await ws.send(json.dumps({"type": "search", "request_id": "a1", "query": "rust"}))
            got = await collect(ws, {"a1"})
    assert got["a1"][-1]["type"] == "done"


def offer(*names: str) -> list[Subprotocol]:
    return [Subprotocol(name) for name in names]


async def test_browser_sends_the_key_as_a_subprotocol(door_settings):
    """A browser's `new WebSocket(url, ["netsift.bearer", key])`: no Authorization header."""
    with serve(create_app(door_settings(api_keys=["sekret-1"])), lifespan="on") as server:
        url = server.url("/v1/ws", scheme="ws")
        async with connect(url, subprotocols=offer("netsift.bearer", "sekret-1")) as ws:
            assert ws.subprotocol == "netsift.bearer"  # answered with the scheme, not the key
            assert ws.response is not None and "sekret-1" not in str(ws.response.headers)
            await ws.send(json.dumps({"type": "search", "request_id": "p1", "query": "rust"}))
            got = await collect(ws, {"p1"})
        assert got["p1"][-1]["type"] == "done"
        for offered in (
            offer("netsift.bearer", "sekret-2"),
            offer("netsift.bearer"),
            offer("sekret-1"),
        ):
            with pytest.raises(InvalidStatus) as refused:
                async with connect(url, subprotocols=offered):
                    pass
            assert refused.value.response.status_code == 403
        # Never through the URL: a query token would end up in access logs.
        with pytest.raises(InvalidStatus):
            async with connect(f"{url}?token=sekret-1"):
                pass
    # Without keys the offer is still answered, or a browser would drop the socket.
    with serve(create_app(door_settings()), lifespan="on") as server:
        url = server.url("/v1/ws", scheme="ws")
        async with connect(url, subprotocols=offer("netsift.bearer", "anything")) as ws:
            assert ws.subprotocol == "netsift.bearer"


async def test_quota_applies_per_message(door_settings):
    settings = door_settings(server_search_quota="1/hour")
    with serve(create_app(settings), lifespan="on") as server:
        async with connect(server.url("/v1/ws", scheme="ws")) as ws:
            await ws.send(json.dumps({"type": "search", "request_id": "q1", "query": "rust"}))
            first = await collect(ws, {"q1"})
            await ws.send(json.dumps({"type": "search", "request_id": "q2", "query": "rust"}))
            second = await collect(ws, {"q2"})
    assert first["q1"][-1]["type"] == "done"
    error = second["q2"][0]["data"]["error"]
    assert error["code"] == "quota_exceeded" and error["details"]["retry_after"] >= 1
