"""`POST /v1/responses` as OpenAI's own clients see it: the `openai` SDK's Responses API and
openai-agents' default model class (OpenAIResponsesModel), over a real uvicorn, the research
test web and the scripted model."""

from __future__ import annotations

import re
from typing import Any, Final

import httpx
from agents import (
    Agent,
    ModelSettings,
    OpenAIResponsesModel,
    Runner,
    WebSearchTool,
    function_tool,
    set_tracing_disabled,
)
from openai import AsyncOpenAI

from netsift.server import create_app
from tests.integration.research.fixtures import *  # noqa: F403
from tests.offline_web.llm import MODEL
from tests.offline_web.server import serve

QUESTION = "How thick is the sunshield of the Webb telescope?"
SOURCES: Final = "web_search_call.action.sources"


def _sdk(server) -> AsyncOpenAI:
    return AsyncOpenAI(base_url=server.url("/v1"), api_key="unused", max_retries=0)


async def test_web_search_answers_with_url_citations_and_its_sources(
    research_settings, research_web, llm
):
    with serve(create_app(research_settings()), lifespan="on") as server:
        sdk = _sdk(server)
        response: Any = await sdk.responses.create(
            model=MODEL, input=QUESTION, tools=[{"type": "web_search"}], include=[SOURCES]
        )
        await sdk.close()
    search, message = response.output[0], response.output[-1]
    assert search.type == "web_search_call" and search.status == "completed"
    urls = {source.url for source in search.action.sources}
    assert urls and all(url.startswith("http://") for url in urls)
    assert message.type == "message" and response.status == "completed"
    text = response.output_text
    notes = message.content[0].annotations
    assert re.search(r"\[\d+\]", text) and notes
    for note in notes:  # parsed by the SDK's own types
        assert note.type == "url_citation" and note.url in urls
        assert re.fullmatch(r"\[\d+\]", text[note.start_index : note.end_index])
    assert response.usage is not None and response.usage.total_tokens > 0


async def test_the_stream_sends_the_text_as_it_comes_and_the_response_last(
    research_settings, research_web, llm
):
    with serve(create_app(research_settings()), lifespan="on") as server:
        sdk = _sdk(server)
        stream = await sdk.responses.create(
            model=MODEL, input=QUESTION, tools=[{"type": "web_search"}], stream=True
        )
        events: list[Any] = [event async for event in stream]
        await sdk.close()
    kinds = [event.type for event in events]
    assert kinds[:2] == ["response.created", "response.in_progress"]
    assert kinds[-1] == "response.completed"
    assert [e.sequence_number for e in events] == list(range(len(events)))
    deltas = "".join(e.delta for e in events if e.type == "response.output_text.delta")
    assert kinds.count("response.output_text.delta") > 1  # as the model wrote it
    final = events[-1].response
    assert final.output_text == deltas + final.output_text[len(deltas) :]
    assert final.output[0].type == "web_search_call"


async def test_openai_agents_default_model_runs_a_function_tool_through_netsift(
    research_settings, research_web, llm
):
    set_tracing_disabled(True)
    asked: list[str] = []

    @function_tool
    def weather(city: str) -> str:
        """The weather in a city."""
        asked.append(city)
        return f"sunny in {city}"

    with serve(create_app(research_settings()), lifespan="on") as server:
        sdk = _sdk(server)
        agent = Agent(
            name="helper",
            instructions="Answer briefly.",
            tools=[weather],
            model=OpenAIResponsesModel(model=MODEL, openai_client=sdk),
        )
        result = await Runner.run(agent, "What is the weather in Oslo?")
        searching = Agent(
            name="searcher",
            tools=[WebSearchTool()],
            model=OpenAIResponsesModel(model=MODEL, openai_client=sdk),
            model_settings=ModelSettings(response_include=[SOURCES]),
        )
        found = await Runner.run(searching, QUESTION)
        await sdk.close()
    assert asked == ["Oslo"]
    assert result.final_output == "The tool said: sunny in Oslo"
    assert re.search(r"\[\d+\]", found.final_output)


async def test_what_netsift_cannot_honour_is_refused_by_name(research_settings, research_web, llm):
    with serve(create_app(research_settings()), lifespan="on") as server:
        async with httpx.AsyncClient(base_url=server.url("/v1")) as http:
            stateful = await http.post(
                "/responses", json={"model": MODEL, "input": "hi", "previous_response_id": "r1"}
            )
            files = await http.post(
                "/responses",
                json={"model": MODEL, "input": "hi", "tools": [{"type": "file_search"}]},
            )
            empty = await http.post("/responses", json={"model": MODEL, "input": []})
    assert stateful.status_code == 422 and "no response state" in stateful.text
    assert files.status_code == 400 and "file_search" in files.json()["error"]["message"]
    assert empty.status_code == 422
