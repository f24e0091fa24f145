"""WebSocket hygiene over a real uvicorn: an unreadable frame closes the socket with a code and
a reason, a too-deep message is answered with an error, and the in-flight cap holds for
research jobs too."""

from __future__ import annotations

import json
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from netsift.server import create_app
from netsift.server.routers.ws import MAX_IN_FLIGHT
from tests.integration.research.fixtures import *  # noqa: F403
from tests.integration.research.web import QUESTION
from tests.offline_web.server import serve


async def test_a_binary_frame_closes_with_a_code_and_a_reason(door_settings):
    with serve(create_app(door_settings()), lifespan="on") as server:
        async with connect(server.url("/v1/ws", scheme="ws")) as ws:
            await ws.send(b"\x00\x01binary")
            with pytest.raises(ConnectionClosed) as closed:
                await ws.recv()
    assert closed.value.rcvd is not None
    assert closed.value.rcvd.code == 1003
    assert "text" in closed.value.rcvd.reason


async def test_a_deeply_nested_message_is_an_error_and_the_socket_stays(door_settings):
    with serve(create_app(door_settings()), lifespan="on") as server:
        async with connect(server.url("/v1/ws", scheme="ws"), max_size=None) as ws:
            await ws.send("[" * 100_000 + "]" * 100_000)
            error = json.loads(await ws.recv())
            await ws.send(json.dumps({"type": "dance", "request_id": "d1"}))
            after = json.loads(await ws.recv())
    assert error["type"] == "error"
    assert error["data"]["error"]["code"] == "invalid_input"
    assert "nested too deeply" in error["data"]["error"]["message"]
    assert after["request_id"] == "d1"  # the socket still reads messages


async def test_research_messages_count_against_the_in_flight_cap(
    research_settings, research_web, llm
):
    research_web.state.page_latency = 0.3
    with serve(create_app(research_settings()), lifespan="on") as server:
        async with connect(server.url("/v1/ws", scheme="ws")) as ws:
            start = {"type": "research", "request_id": "r0", "question": QUESTION, "depth": "quick"}
            await ws.send(json.dumps(start))
            first = json.loads(await ws.recv())
            job_id = first["job_id"]
            extra = 5
            for n in range(1, MAX_IN_FLIGHT + extra):
                message = {"type": "research", "request_id": f"r{n}", "job_id": job_id}
                await ws.send(json.dumps(message))
            refused: list[dict[str, Any]] = []
            done: set[str] = set()
            while len(done) + len(refused) < MAX_IN_FLIGHT + extra:
                message = json.loads(await ws.recv())
                if message["type"] == "error" and message["seq"] == 0:
                    refused.append(message)
                elif message["type"] in ("done", "error"):
                    done.add(message["request_id"])
    assert len(refused) == extra
    assert {m["data"]["error"]["code"] for m in refused} == {"rate_limited"}
    assert len(done) == MAX_IN_FLIGHT
