"""Usage a host can bill: every search sent for a client — by search, research or chat — takes
from that client's quota, stops at the per-request cap, and is counted in `/metrics`, in
`GET /v1/usage` and in a research job's status. Over a real uvicorn, with API keys."""

from __future__ import annotations

from typing import Any

import anyio
import httpx

from netsift.server import create_app
from tests.integration.research.fixtures import *  # noqa: F403
from tests.integration.research.web import QUESTION
from tests.offline_web.server import serve

KEY = "k-usage-test-1234567890"
AUTH = {"Authorization": f"Bearer {KEY}"}


async def _ended(http: httpx.AsyncClient, job_id: str) -> dict[str, Any]:
    for _ in range(400):
        job: dict[str, Any] = (await http.get(f"/v1/research/{job_id}")).json()
        if job["status"] not in ("queued", "running"):
            return job
        await anyio.sleep(0.05)
    raise AssertionError("the job never ended")


async def test_research_searches_count_against_the_quota_and_the_record(
    research_settings, research_web, llm
):
    settings = research_settings(api_keys=[KEY], server_search_quota="3/day")
    with serve(create_app(settings), lifespan="on") as server:
        async with httpx.AsyncClient(base_url=server.url(""), headers=AUTH, timeout=30) as http:
            body = {"question": QUESTION, "depth": "quick", "breadth": 4}
            job = (await http.post("/v1/research", json=body)).json()
            done = await _ended(http, job["id"])
            usage = (await http.get("/v1/usage")).json()
            metrics = (await http.get("/metrics")).text
            refused = await http.post("/v1/search", json={"query": "webb mirror"})
    # The planner asked for 4 searches; the quota allowed 3 and the provider saw 3.
    assert len(research_web.state.searches) == 3
    assert done["status"] == "done" and done["usage"]["searches"] == 3
    assert done["usage"]["searches_by_provider"] == {"searxng": 3}
    assert done["usage"]["pages"] == len(research_web.state.pages) > 0
    assert done["usage"]["tokens"] > 0
    assert usage["searches"] == 3 and usage["pages"] == done["usage"]["pages"]
    assert usage["tokens"] == done["usage"]["tokens"]
    assert 'kind="search:searxng"' in metrics and "netsift_usage_total" in metrics
    assert refused.status_code == 429 and refused.json()["error"]["code"] == "quota_exceeded"


async def test_the_per_request_cap_limits_a_research_run(research_settings, research_web, llm):
    settings = research_settings(max_searches_per_request=2)
    with serve(create_app(settings), lifespan="on") as server:
        async with httpx.AsyncClient(base_url=server.url(""), timeout=30) as http:
            body = {"question": QUESTION, "depth": "quick", "breadth": 4}
            job = (await http.post("/v1/research", json=body)).json()
            done = await _ended(http, job["id"])
    assert len(research_web.state.searches) == 2
    assert done["usage"]["searches"] == 2


async def test_chat_searches_count_against_the_quota(research_settings, research_web, llm):
    settings = research_settings(api_keys=[KEY], server_search_quota="1/day")
    with serve(create_app(settings), lifespan="on") as server:
        async with httpx.AsyncClient(base_url=server.url(""), headers=AUTH, timeout=30) as http:
            body = {
                "model": "scripted-test-model",
                "messages": [{"role": "user", "content": "How thick is the Webb sunshield?"}],
                "web_search": True,
                "search_queries": ["webb sunshield", "webb sunshield layers"],
                "max_searches": 2,
            }
            answer = await http.post("/v1/chat/completions", json=body)
            usage = (await http.get("/v1/usage")).json()
    assert len(research_web.state.searches) == 1  # the second was over the quota
    assert answer.status_code == 200  # the chat still answers, with what it could search
    assert usage["searches"] == 1 and usage["tokens"] > 0
