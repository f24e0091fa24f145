"""Firecrawl's search with `scrapeOptions`, through firecrawl-py: each result read as a scrape's
document, in the search's order, with pages read several at once; a result that cannot be read
carries its error and the others are kept."""

from __future__ import annotations

import httpx
from firecrawl import Firecrawl

from netsift.server import create_app
from tests.integration.research.fixtures import *  # noqa: F403
from tests.integration.research.fixtures import ResearchSettings, ResearchWeb
from tests.integration.research.web import QUESTION
from tests.offline_web.server import serve


def test_search_reads_each_result_as_a_document(
    research_settings: ResearchSettings, research_web: ResearchWeb
) -> None:
    research_web.state.page_latency = 0.3  # reads overlap only if they are sent together
    with serve(create_app(research_settings(with_llm=False)), lifespan="on") as live:
        firecrawl = Firecrawl(api_key="any", api_url=live.url(""))
        plain = firecrawl.search(QUESTION, limit=4)
        found = firecrawl.search(QUESTION, limit=4, scrape_options={"formats": ["markdown"]})
        raw = httpx.post(
            live.url("/v2/search"),
            json={"query": QUESTION, "limit": 4, "scrapeOptions": {"formats": ["links"]}},
            timeout=60,
        ).json()
    assert found.web and len(found.web) == len(plain.web or [])
    assert [item.metadata.source_url for item in found.web] == [r.url for r in plain.web or []]
    for item in found.web:
        assert item.markdown and item.metadata.status_code == 200
    assert all("links" in item and "error" not in item for item in raw["data"]["web"])
    assert research_web.state.most_in_flight > 1
