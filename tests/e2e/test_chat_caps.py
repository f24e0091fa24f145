"""Chat with web search obeys the host's per-request search cap as research does
(`NETSIFT_MAX_SEARCHES_PER_REQUEST`): the cap is the meter's, whichever door asks."""

from __future__ import annotations

import httpx

from netsift.server import create_app
from tests.integration.research.fixtures import *  # noqa: F403
from tests.offline_web.server import serve


async def test_the_per_request_cap_limits_a_chat_answer(research_settings, research_web, llm):
    settings = research_settings(max_searches_per_request=2)
    with serve(create_app(settings), lifespan="on") as server:
        async with httpx.AsyncClient(base_url=server.url(""), timeout=30) as http:
            body = {
                "model": "scripted-test-model",
                "messages": [{"role": "user", "content": "How thick is the Webb sunshield?"}],
                "web_search": True,
                "search_queries": ["webb sunshield", "webb sunshield layers", "webb kapton"],
                "max_searches": 3,
            }
            answer = await http.post("/v1/chat/completions", json=body)
            fresh = {**body, "search_queries": ["webb mirror", "webb orbit", "webb launch"]}
            again = await http.post("/v1/chat/completions", json=fresh)
    # Three asked, two allowed, in each request: the cap is per request, not per host.
    assert len(research_web.state.searches) == 4
    for reply in (answer, again):
        assert reply.status_code == 200  # it answers with what it could search
        assert reply.json()["netsift"]["searches_performed"] == 2
