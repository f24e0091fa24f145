"""Tavily's `search_depth: advanced` answers each result with its page's passages most
relevant to the query (`chunks_per_source`, joined by " [...] "), chosen by netsift's context
rules; a page that cannot be read keeps its snippet. The real tavily-python client, over a
real uvicorn and the tidal-lagoon web of tests/integration/context."""

from __future__ import annotations

from tavily import TavilyClient

from netsift.server import create_app
from tests.integration.context.test_context import QUERY, settings, web  # noqa: F401
from tests.offline_web.server import serve


def test_advanced_search_gives_each_result_its_best_chunks(settings):  # noqa: F811
    with serve(create_app(settings), lifespan="on") as server:
        client = TavilyClient(api_key="any", api_base_url=server.url("/tavily"))
        basic = client.search(QUERY, max_results=5)
        advanced = client.search(QUERY, max_results=5, search_depth="advanced", chunks_per_source=2)
    by_url = {r["url"]: r["content"] for r in advanced["results"]}
    assert [r["url"] for r in advanced["results"]] == [r["url"] for r in basic["results"]]
    lagoon = next(content for url, content in by_url.items() if "lagoon.test" in url)
    assert lagoon.count(" [...] ") <= 1 and "turbines" in lagoon
    assert lagoon != next(r["content"] for r in basic["results"] if "lagoon.test" in r["url"])
    gone = next(content for url, content in by_url.items() if "gone.test" in url)
    assert gone == next(r["content"] for r in basic["results"] if "gone.test" in r["url"])
    planted = next(content for url, content in by_url.items() if "planted.test" in url)
    assert "AI assistants" not in planted
