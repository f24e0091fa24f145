"""Each door says what it does: strict input as the schemas say, HEAD where GET is served,
a batch limit the default budget honours, chat reported only when it can answer, and the
Python door raising InvalidInput (never KeyError/TypeError) and working inside an event loop."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

import netsift
from netsift.client import Client
from netsift.config import Settings
from netsift.params import MAX_BATCH_QUERIES
from netsift.server import create_app


@pytest.fixture
async def api(web_client: Client) -> Any:
    transport = httpx.ASGITransport(app=create_app(client=web_client))
    async with httpx.AsyncClient(transport=transport, base_url="http://api.test") as http:
        yield http


def assert_invalid(response: httpx.Response, field: str) -> None:
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["code"] == "invalid_input" and field in error["message"]


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/v1/search", {"query": "rust", "count": "5"}, "count"),
        ("/v1/search", {"query": "rust", "merge": "yes"}, "merge"),
        ("/v1/search/batch", {"queries": ["a"], "count": 2.0}, "count"),
        ("/v1/fetch", {"url": "http://news.test/", "max_length": "500"}, "max_length"),
        ("/v1/fetch", {"url": "http://news.test/", "respect_robots": 0}, "respect_robots"),
        ("/v1/sleeps", {"mode": "timer", "seconds": True}, "seconds"),
        ("/v1/research", {"question": "why is the sky blue", "breadth": "2"}, "breadth"),
    ],
)
async def test_the_api_validates_as_strictly_as_its_schema(api, path, body, field):
    assert_invalid(await api.post(path, json=body), field)


async def test_a_float_field_still_takes_a_json_integer(api):
    response = await api.post("/v1/sleeps", json={"mode": "timer", "seconds": 1, "reason": "x"})
    assert response.status_code != 422, response.text


async def test_head_is_answered_wherever_get_is(api):
    for path in ("/healthz", "/v1/info", "/openapi.json"):
        get, head = await api.get(path), await api.head(path)
        assert head.status_code == get.status_code == 200, (path, head.text)
        assert head.content == b""
        assert head.headers["content-type"] == get.headers["content-type"]
    refused = await api.head("/v1/search")  # POST only: HEAD is not offered there
    assert refused.status_code == 405
    assert "HEAD" not in refused.headers["allow"]


async def test_the_batch_schema_and_the_default_budget_agree(api):
    schema = (await api.get("/openapi.json")).json()["components"]["schemas"]["BatchRequest"]
    most = schema["properties"]["queries"]["maxItems"]
    assert most == MAX_BATCH_QUERIES == Settings().max_searches_per_request
    over = await api.post("/v1/search/batch", json={"queries": ["q"] * (most + 1)})
    assert_invalid(over, "queries")


async def test_info_reports_chat_only_with_a_model(web_settings):
    async def chat_on(settings: Settings) -> bool:
        async with Client(settings) as client:
            transport = httpx.ASGITransport(app=create_app(client=client))
            async with httpx.AsyncClient(transport=transport, base_url="http://api.test") as h:
                info = (await h.get("/v1/info")).json()
        available: bool = info["capabilities"]["chat"]
        return available

    assert await chat_on(web_settings()) is False  # no model configured
    with_model = web_settings(llm_model="m", openai_base_url="http://llm.test/v1")
    assert await chat_on(with_model) is True


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"format": "pdf"}, "format"),
        ({"max_length": "x"}, "max_length"),
        ({"max_length": 0}, "max_length"),
        ({"page_type": "blog"}, "page_type"),
    ],
)
def test_python_fetch_raises_invalid_input(web_settings, offline_web, options, field):
    with pytest.raises(netsift.InvalidInput) as caught:
        netsift.fetch(offline_web.url("news.test", "/article"), settings=web_settings(), **options)
    assert caught.value.code == "invalid_input" and field in caught.value.message
    assert offline_web.state.hits("news.test") == 0  # refused before any request


def test_python_refuses_a_missing_url_and_a_bad_count(web_settings):
    with pytest.raises(netsift.InvalidInput, match="url"):
        netsift.fetch(None, settings=web_settings())  # type: ignore[arg-type]
    with pytest.raises(netsift.InvalidInput, match="count"):
        netsift.search("rust", settings=web_settings(), count="5")  # type: ignore[arg-type]


async def test_client_meta_validates_like_every_door(web_client):
    with pytest.raises(netsift.InvalidInput, match="url"):
        await web_client.meta("")


def test_sync_conveniences_work_inside_a_running_event_loop(web_settings, offline_web):
    url = offline_web.url("news.test", "/article")

    async def notebook_cell() -> str:  # what Jupyter or asyncio.run around a script does
        page = netsift.fetch(url, settings=web_settings(), max_length=100)
        return page.title or ""

    assert asyncio.run(notebook_cell()) == "Harbour town switches its ferries to batteries"


async def test_client_extract_paginates_like_the_module_function(web_client):
    html = "<html><body><article><p>" + "word " * 400 + "</p></article></body></html>"
    client = web_client
    first = client.extract(html, max_length=100)
    assert first.truncated and first.next_start_index == 100
    rest = client.extract(html, max_length=100, start_index=100)
    assert rest.content == netsift.extract(html, max_length=100, start_index=100).content
