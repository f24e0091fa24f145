"""The WebSocket research resume message and the chat body are as strict as the REST bodies:
`"since": "5"`, `"since": true`, `"stream": "true"` and `"max_searches": "5"` are refused in
netsift's error shape, never coerced."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect

from netsift.server import create_app
from tests.integration.research.fixtures import *  # noqa: F403
from tests.offline_web.server import serve

ASK = [{"role": "user", "content": "How thick is the sunshield of the Webb telescope?"}]


@pytest.mark.parametrize("since", ["5", True, 2.0])
async def test_a_resume_message_refuses_what_its_schema_forbids(research_settings, since: Any):
    with serve(create_app(research_settings()), lifespan="on") as server:
        async with connect(server.url("/v1/ws", scheme="ws")) as ws:
            message = {"type": "research", "request_id": "r1", "job_id": "j1", "since": since}
            await ws.send(json.dumps(message))
            reply = json.loads(await ws.recv())
    assert reply["type"] == "error" and reply["request_id"] == "r1"
    error = reply["data"]["error"]
    assert error["code"] == "invalid_input" and "since" in error["message"]
    assert error["retryable"] is False


async def test_a_well_formed_resume_message_reaches_the_job_lookup(research_settings):
    with serve(create_app(research_settings()), lifespan="on") as server:
        async with connect(server.url("/v1/ws", scheme="ws")) as ws:
            message = {"type": "research", "request_id": "r1", "job_id": "j1", "since": 5}
            await ws.send(json.dumps(message))
            reply = json.loads(await ws.recv())
    assert reply["data"]["error"]["code"] == "not_found"  # validated, then looked up


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        ({"stream": "true"}, "stream"),
        ({"web_search": 1}, "web_search"),
        ({"max_searches": "5"}, "max_searches"),
        ({"max_searches": True}, "max_searches"),
        ({"model": 5}, "model"),
        ({"search_queries": ["webb", 5]}, "search_queries"),
    ],
)
async def test_the_chat_body_refuses_what_its_schema_forbids(
    research_settings, llm, extra: dict[str, Any], field: str
):
    transport = httpx.ASGITransport(app=create_app(research_settings()))
    async with httpx.AsyncClient(transport=transport, base_url="http://api.test") as http:
        response = await http.post("/v1/chat/completions", json={"messages": ASK, **extra})
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["code"] == "invalid_input" and field in error["message"]
    assert llm.state.requests == []  # refused before the model was called
