"""SerpApi: Google's results (and, as `bing`, Bing's) as JSON through a paid scraping API.

Official API: https://serpapi.com/search-api (Google: https://serpapi.com/search-api, Bing:
https://serpapi.com/bing-search-api). Contract and recorded payloads:
shared/providers/README.md#serpapi, shared/providers/serpapi.json.

- `GET /search.json?engine=google&q=...&api_key=...` (`SERPAPI_API_KEY`); SerpApi takes the
  key only as a query parameter, so the net layer's audit log must redact `api_key`.
- Google: `gl` country, `hl` language, `safe` active/off, `tbs=qdr:d|w|m|y`, `start` 0,10,...
  (ten results a page; Google ignores `num` since 2025).
- Errors are `{"error": "..."}`: 401 key, 403 account, 429 for both the hourly throughput and
  "run out of searches" (quota: only the message tells them apart). No results is a **200**
  with a top-level `error` and no `organic_results`: an honest empty answer.
"""

from __future__ import annotations

from typing import Any

import httpx

from ...errors import ProviderUnavailable, QuotaExceeded
from ...models import Query, SearchResult
from ..provider import About, Provider
from .dates import iso_date
from .region import parse_region
from .status import raise_for_status, read_json
from .text import plain_text

__all__ = ["SerpApi", "parse_serpapi", "serpapi_request"]

_QUOTA_WORDS = ("run out of searches", "plan searches", "monthly searches")


class SerpApi(Provider):
    name = "serpapi"
    about = About(
        website="https://serpapi.com",
        docs="https://serpapi.com/search-api",
        base_url="https://serpapi.com",
        requires_key=True,
        key_env=("SERPAPI_API_KEY",),
        results="JSON",
        kind="web",
        rate_limit="1/second",  # plan-dependent hourly throughput; override per plan
        max_count=10,
    )

    def build_request(self, query: Query) -> httpx.Request:
        region = parse_region(query.region)
        params: dict[str, str | int] = {
            "engine": "google",
            "q": query.text,
            "google_domain": "google.com",
            "start": (query.page - 1) * 10,
            "safe": "off" if query.safesearch == "off" else "active",
        }
        if region.country:
            params["gl"] = "uk" if region.country == "gb" else region.country
        if region.language:
            params["hl"] = region.language
        if query.time_range:
            params["tbs"] = f"qdr:{query.time_range}"
        return serpapi_request(self.base_url, params, self.settings.key())

    def parse_response(self, response: httpx.Response, query: Query) -> list[SearchResult]:
        return parse_serpapi(response, self.name)


def serpapi_request(base_url: str, params: dict[str, str | int], key: str | None) -> httpx.Request:
    """SerpApi's one endpoint for every engine; the key goes in the query, as its API asks."""
    return httpx.Request(
        "GET",
        f"{base_url}/search.json",
        params={**params, "api_key": key or ""},
        headers={"Accept": "application/json"},
    )


def parse_serpapi(response: httpx.Response, provider: str) -> list[SearchResult]:
    """SerpApi's answer for any engine (their `organic_results` share field names)."""
    status = response.status_code
    if status != 200:
        detail = _error_text(response)
        if status == 429 and detail and any(w in detail.lower() for w in _QUOTA_WORDS):
            raise QuotaExceeded(f"{provider} (SerpApi): {detail}", details={"status": status})
        raise_for_status(response, provider, detail=detail)
    data = read_json(response, provider)
    if not isinstance(data, dict):
        raise ProviderUnavailable(f"{provider} (SerpApi) sent JSON that is not an object")
    state = (data.get("search_metadata") or {}).get("status")
    organic = data.get("organic_results")
    if isinstance(organic, list):
        return [_result(i, provider) for i in organic if isinstance(i, dict) and i.get("link")]
    if state == "Success" and isinstance(data.get("error"), str):
        return []  # "Google hasn't returned any results for this query."
    raise ProviderUnavailable(
        f"{provider} (SerpApi) answered without results (status {state!r}):"
        f" {data.get('error') or 'no organic_results'}"
    )


def _result(item: dict[str, Any], provider: str) -> SearchResult:
    extra: dict[str, Any] = {}
    for key in ("position", "displayed_link", "date"):
        if item.get(key) is not None:
            extra[key] = item[key]
    return SearchResult(
        title=plain_text(item.get("title")),
        url=item["link"],
        snippet=plain_text(item.get("snippet")),
        source=provider,
        published=iso_date(item.get("date")),
        thumbnail=item.get("thumbnail") or None,
        favicon=item.get("favicon") or None,
        extra=extra,
    )


def _error_text(response: httpx.Response) -> str | None:
    try:
        data = response.json()
    except ValueError:
        return None
    return str(data["error"]) if isinstance(data, dict) and data.get("error") else None
