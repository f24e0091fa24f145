"""Bing web results, through SerpApi's Bing engine.

Microsoft retired the Bing Search APIs (v7, `api.bing.microsoft.com`) on 2025-08-11; existing
keys stopped working. The `bing` name stays so configurations keep a way to Bing's index: it
asks SerpApi with `engine=bing` and the `SERPAPI_API_KEY`. Official API:
https://serpapi.com/bing-search-api. Contract: shared/providers/README.md#bing (the retired v7
shape, bing.json) and README.md#serpapi (scenario `bing_search_ok` in serpapi.json).

- `cc` country, `first` 1-based offset, `count` 1-50, `safeSearch` Off/Moderate/Strict.
- Bing's freshness filter has no documented SerpApi parameter, so `time_range` is not sent.
- Errors and the empty answer are SerpApi's (see `serpapi.py`).
"""

from __future__ import annotations

import httpx

from ...models import Query, SearchResult
from ..provider import About, Provider
from .region import parse_region
from .serpapi import parse_serpapi, serpapi_request

__all__ = ["Bing"]

_SAFESEARCH = {"off": "Off", "moderate": "Moderate", "strict": "Strict"}


class Bing(Provider):
    name = "bing"
    about = About(
        website="https://www.bing.com",
        docs="https://serpapi.com/bing-search-api",
        base_url="https://serpapi.com",
        requires_key=True,
        key_env=("SERPAPI_API_KEY",),
        results="JSON",
        kind="web",
        rate_limit="1/second",  # SerpApi's plan-dependent throughput
        max_count=50,
        notes=("Bing's own Web Search API was retired on 2025-08-11; this goes through SerpApi",),
    )

    def build_request(self, query: Query) -> httpx.Request:
        count = min(query.count, self.about.max_count)
        params: dict[str, str | int] = {
            "engine": "bing",
            "q": query.text,
            "first": (query.page - 1) * count + 1,
            "count": count,
            "safeSearch": _SAFESEARCH[query.safesearch],
        }
        region = parse_region(query.region)
        if region.country:
            params["cc"] = region.country.upper()
        return serpapi_request(self.base_url, params, self.settings.key())

    def parse_response(self, response: httpx.Response, query: Query) -> list[SearchResult]:
        return parse_serpapi(response, self.name)
