"""The chat proxy as the real `openai` SDK sees it, over a real uvicorn and the offline web:
`[n]` markers and `url_citation` annotations tied to `netsift.sources`, an answer that says
when search failed or found nothing, `web_search_options`, `/v1/models`, and upstream errors
passed through with their status, message and `x-should-retry` (one upstream call each)."""

from __future__ import annotations

import re

import httpx
import openai
import pytest
from openai import AsyncOpenAI
from openai.types.chat import ChatCompletionMessageParam

from netsift.server import create_app
from tests.integration.research.fixtures import *  # noqa: F403
from tests.offline_web.llm import MODEL
from tests.offline_web.server import serve

ASK: list[ChatCompletionMessageParam] = [
    {"role": "user", "content": "How thick is the sunshield of the Webb telescope?"}
]


def _sdk(server, retries: int = 2) -> AsyncOpenAI:
    return AsyncOpenAI(base_url=server.url("/v1"), api_key="unused", max_retries=retries)


async def test_answers_carry_markers_and_url_citations_tied_to_the_sources(
    research_settings, research_web, llm
):
    with serve(create_app(research_settings()), lifespan="on") as server:
        sdk = _sdk(server)
        answer = await sdk.chat.completions.create(
            model=MODEL, messages=ASK, extra_body={"web_search": True}
        )
        await sdk.close()
    message = answer.choices[0].message
    text = message.content or ""
    sources = {s["rank"]: s for s in (answer.model_extra or {})["netsift"]["sources"]}
    markers = [int(n) for n in re.findall(r"\[(\d+)\]", text)]
    assert markers and set(markers) <= set(sources)
    annotations = message.annotations or []
    assert len(annotations) == len(markers)
    for note in annotations:  # parsed by the SDK's own types
        span = text[note.url_citation.start_index : note.url_citation.end_index]
        n = int(span.strip("[]"))
        assert note.type == "url_citation" and note.url_citation.url == sources[n]["url"]
    # Streamed, the markers' annotations close the answer in a last chunk.
    with serve(create_app(research_settings()), lifespan="on") as server:
        sdk = _sdk(server)
        stream = await sdk.chat.completions.create(
            model=MODEL, messages=ASK, stream=True, extra_body={"web_search": True}
        )
        chunks = [chunk async for chunk in stream]
        await sdk.close()
    closing = (chunks[-1].choices[0].delta.model_extra or {})["annotations"]
    assert closing and all(a["type"] == "url_citation" for a in closing)
    # The context told the model the sources are untrusted data, fenced.
    context = llm.state.requests[0]["messages"][0]["content"]
    assert "untrusted" in context and "<<<UNTRUSTED SOURCES" in context


async def test_the_answer_says_when_search_failed_or_found_nothing(
    research_settings, research_web, llm
):
    with serve(create_app(research_settings()), lifespan="on") as server:
        sdk = _sdk(server)
        research_web.state.failing_searches = "all"
        failed = await sdk.chat.completions.create(
            model=MODEL, messages=ASK, extra_body={"web_search": True}
        )
        research_web.state.failing_searches = None
        empty = await sdk.chat.completions.create(
            model=MODEL,
            messages=ASK,
            extra_body={"web_search": True, "search_queries": ["zzqx quantum marmalade"]},
        )
        stream = await sdk.chat.completions.create(
            model=MODEL,
            messages=ASK,
            stream=True,
            extra_body={"web_search": True, "search_queries": ["zzqx quantum marmalade"]},
        )
        streamed = "".join([c.choices[0].delta.content or "" async for c in stream if c.choices])
        await sdk.close()
    assert (failed.choices[0].message.content or "").startswith("(Web search failed:")
    assert "uses no web sources" in (failed.choices[0].message.content or "")
    assert (empty.choices[0].message.content or "").startswith("(Web search found nothing")
    assert streamed.startswith("(Web search found nothing")


async def test_web_search_options_are_honoured(research_settings, research_web, llm):
    with serve(create_app(research_settings()), lifespan="on") as server:
        sdk = _sdk(server)
        answer = await sdk.chat.completions.create(
            model=MODEL,
            messages=ASK,
            web_search_options={
                "search_context_size": "low",
                "user_location": {"type": "approximate", "approximate": {"country": "DE"}},
            },
        )
        await sdk.close()
    meta = (answer.model_extra or {})["netsift"]
    assert 1 <= len(meta["sources"]) <= 3  # "low": three sources at most
    assert research_web.state.search_params
    assert all(p.get("language") == "en-DE" for p in research_web.state.search_params)
    assert "web_search_options" not in llm.state.requests[0]  # not sent to the model


async def test_models_lists_the_configured_model(research_settings, research_web, llm):
    with serve(create_app(research_settings()), lifespan="on") as server:
        sdk = _sdk(server)
        listed = [m.id async for m in sdk.models.list()]
        one = await sdk.models.retrieve(MODEL)
        with pytest.raises(openai.NotFoundError):
            await sdk.models.retrieve("gpt-nothing")
        await sdk.close()
    assert listed == [MODEL] and one.id == MODEL


@pytest.mark.parametrize(
    ("mode", "status", "error", "retry", "words"),
    [
        ("bad_request", 400, openai.BadRequestError, "false", "Invalid value for 'temperature'"),
        ("no_model", 404, openai.NotFoundError, "false", "does not exist"),
        ("rate_limit", 429, openai.RateLimitError, "true", "Rate limit reached"),
    ],
)
async def test_upstream_errors_pass_through_with_status_message_and_retry_advice(
    research_settings, research_web, llm, mode, status, error, retry, words
):
    llm.state.modes.append(mode)
    with serve(create_app(research_settings()), lifespan="on") as server:
        sdk = _sdk(server, retries=0)
        with pytest.raises(error) as raised:
            await sdk.chat.completions.create(model=MODEL, messages=ASK)
        await sdk.close()
    response = raised.value.response
    assert response.status_code == status
    assert response.headers["x-should-retry"] == retry
    assert words in raised.value.message
    body = response.json()["error"]
    assert body["details"]["status"] == status and "refused" not in body["details"]
    if status == 429:
        assert response.headers["retry-after"] == "1"
    assert len(llm.state.requests) == 1  # netsift did not retry behind the proxy


async def test_the_sdk_does_not_retry_what_netsift_calls_final(
    research_settings, research_web, llm
):
    llm.state.sticky.add("bad_request")
    with serve(create_app(research_settings()), lifespan="on") as server:
        sdk = _sdk(server, retries=2)  # the SDK's default
        with pytest.raises(openai.BadRequestError):
            await sdk.chat.completions.create(model=MODEL, messages=ASK)
        await sdk.close()
        async with httpx.AsyncClient(base_url=server.url(""), timeout=30) as http:
            models = (await http.get("/v1/models")).json()
    assert len(llm.state.requests) == 1
    assert models["data"][0]["id"] == MODEL
