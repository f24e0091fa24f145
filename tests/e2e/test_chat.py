"""`POST /v1/chat/completions` over a real uvicorn, called with the real openai SDK: a
transparent proxy without `web_search`, numbered sources with it, an answer even when search
is down, and streaming."""

from __future__ import annotations

import json
from typing import Any

import httpx
from openai import AsyncOpenAI
from openai.types.chat import ChatCompletionMessageParam

from netsift.server import create_app
from tests.integration.research.fixtures import *  # noqa: F403
from tests.offline_web.server import serve

ASK: list[ChatCompletionMessageParam] = [
    {"role": "user", "content": "How thick is the sunshield of the Webb telescope?"}
]


def _sdk(server) -> AsyncOpenAI:
    return AsyncOpenAI(base_url=server.url("/v1"), api_key="unused", max_retries=0)


async def test_without_web_search_the_request_passes_through(research_settings, research_web, llm):
    with serve(create_app(research_settings()), lifespan="on") as server:
        sdk = _sdk(server)
        answer = await sdk.chat.completions.create(
            model="scripted-test-model", messages=ASK, temperature=0.2, user="u1"
        )
        await sdk.close()
    assert (answer.choices[0].message.content or "").startswith("Scripted answer. I saw:")
    assert (answer.model_extra or {}).get("netsift") is None
    [seen] = llm.state.requests
    assert seen["messages"] == ASK and seen["temperature"] == 0.2 and seen["user"] == "u1"
    assert research_web.state.searches == []


async def test_web_search_adds_numbered_sources(research_settings, research_web, llm):
    with serve(create_app(research_settings()), lifespan="on") as server:
        sdk = _sdk(server)
        answer = await sdk.chat.completions.create(
            model="scripted-test-model",
            messages=ASK,
            extra_body={"web_search": True, "max_searches": 2},
        )
        await sdk.close()
    meta = (answer.model_extra or {})["netsift"]
    assert 1 <= meta["searches_performed"] <= 2 and not meta["search_unavailable"]
    assert meta["sources"][0]["rank"] == 1 and "sunshield.test" in meta["sources"][0]["url"]
    context = llm.state.requests[0]["messages"][0]
    assert context["role"] == "system" and "[1] The Webb telescope sunshield" in context["content"]
    assert llm.state.requests[0]["messages"][1:] == ASK
    assert "web_search" not in llm.state.requests[0]  # netsift's own fields stay here


async def test_given_queries_are_the_ones_searched(research_settings, research_web, llm):
    with serve(create_app(research_settings()), lifespan="on") as server:
        async with httpx.AsyncClient(base_url=server.url(""), timeout=30) as http:
            body = {"messages": ASK, "web_search": True, "search_queries": ["webb cost dollars"]}
            answer = (await http.post("/v1/chat/completions", json=body)).json()
    assert research_web.state.searches == ["webb cost dollars"]
    assert answer["netsift"]["searches_performed"] == 1
    assert "budget.test" in answer["netsift"]["sources"][0]["url"]


async def test_search_down_still_answers_and_says_so(research_settings, research_web, llm):
    research_web.state.failing_searches = "all"
    with serve(create_app(research_settings()), lifespan="on") as server:
        async with httpx.AsyncClient(base_url=server.url(""), timeout=30) as http:
            body = {"messages": ASK, "web_search": True}
            response = await http.post("/v1/chat/completions", json=body)
    assert response.status_code == 200
    answer = response.json()
    assert answer["choices"][0]["message"]["content"]
    assert answer["netsift"]["search_unavailable"] and answer["netsift"]["sources"] == []
    assert "web search could not be used" in llm.state.requests[0]["messages"][0]["content"]


async def test_streaming_with_web_search(research_settings, research_web, llm):
    with serve(create_app(research_settings()), lifespan="on") as server:
        sdk = _sdk(server)
        stream = await sdk.chat.completions.create(
            model="scripted-test-model", messages=ASK, stream=True, extra_body={"web_search": True}
        )
        chunks = [chunk async for chunk in stream]
        async with httpx.AsyncClient(base_url=server.url(""), timeout=30) as http:
            body = {"messages": ASK, "stream": True}
            async with http.stream("POST", "/v1/chat/completions", json=body) as response:
                lines = [line async for line in response.aiter_lines() if line]
        await sdk.close()
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text.startswith("Scripted answer. I saw:") and len(chunks) > 2
    assert (chunks[0].model_extra or {})["netsift"]["sources"]
    assert lines[-1] == "data: [DONE]"
    assert all("netsift" not in json.loads(line[6:]) for line in lines[:-1])


async def test_chat_needs_a_model_and_the_capability(research_settings, research_web, llm):
    body: dict[str, Any] = {"messages": ASK}
    for settings in (
        research_settings(with_llm=False),
        research_settings(capabilities=["search", "fetch", "research"]),
    ):
        with serve(create_app(settings), lifespan="on") as server:
            async with httpx.AsyncClient(base_url=server.url(""), timeout=30) as http:
                response = await http.post("/v1/chat/completions", json=body)
        assert response.status_code == 503 and response.json()["error"]["code"] == "disabled"
    assert llm.state.requests == []
