"""Tavily: a search API built for agents, answering with cleaned page content.

Official API: https://docs.tavily.com/documentation/api-reference/endpoint/search. Contract and
recorded payloads: shared/providers/README.md#tavily, shared/providers/tavily.json.

- `POST /search` with a JSON body; the key as `Authorization: Bearer tvly-...`
  (`TAVILY_API_KEY`), never in the body (the legacy `api_key` field would end up in logs).
- `max_results` 0-20; `time_range` day/week/month/year; no paging, so only page 1 exists.
- Errors are `{"detail": {"error": "..."}}`: 401/403 key, 429 rate, **432** plan limit and
  **433** pay-as-you-go limit (quota). No rate-limit headers are documented.
"""

from __future__ import annotations

from typing import Any

import httpx

from ...errors import InvalidInput, ProviderUnavailable, QuotaExceeded
from ...models import Query, SearchResult
from ..provider import About, Provider
from .dates import iso_date
from .status import raise_for_status, read_json
from .text import plain_text

__all__ = ["Tavily"]

_TIME_RANGE = {"d": "day", "w": "week", "m": "month", "y": "year"}
_QUOTA_STATUSES = (432, 433)


class Tavily(Provider):
    name = "tavily"
    about = About(
        website="https://tavily.com",
        docs="https://docs.tavily.com/documentation/api-reference/endpoint/search",
        base_url="https://api.tavily.com",
        requires_key=True,
        key_env=("TAVILY_API_KEY",),
        results="JSON",
        kind="web",
        rate_limit="100/minute",  # development keys; production keys allow 1000/minute
        max_count=20,
    )

    def build_request(self, query: Query) -> httpx.Request:
        if query.page > 1:
            raise InvalidInput("tavily has no result pages; ask for page 1 with a larger count")
        body: dict[str, Any] = {
            "query": query.text,
            "search_depth": "basic",
            "topic": "general",
            "max_results": min(query.count, self.about.max_count),
            "include_answer": False,
            "include_raw_content": False,
            "include_favicon": True,
        }
        if query.time_range:
            body["time_range"] = _TIME_RANGE[query.time_range]
        headers = {"Accept": "application/json", "X-Client-Source": "netsift"}
        if key := self.settings.key():
            headers["Authorization"] = f"Bearer {key}"
        return httpx.Request("POST", f"{self.base_url}/search", json=body, headers=headers)

    def parse_response(self, response: httpx.Response, query: Query) -> list[SearchResult]:
        status = response.status_code
        if status != 200:
            detail = _error_text(response)
            if status in _QUOTA_STATUSES:
                raise QuotaExceeded(
                    f"tavily's usage limit is reached (HTTP {status}): {detail}",
                    details={"status": status},
                )
            raise_for_status(response, self.name, detail=detail)
        data = read_json(response, self.name)
        if not isinstance(data, dict) or not isinstance(data.get("results"), list):
            raise ProviderUnavailable("tavily sent JSON without a results list")
        return [_result(i) for i in data["results"] if isinstance(i, dict) and i.get("url")]


def _result(item: dict[str, Any]) -> SearchResult:
    extra = {"score": item["score"]} if item.get("score") is not None else {}
    return SearchResult(
        title=plain_text(item.get("title")),
        url=item["url"],
        snippet=plain_text(item.get("content")),
        source="tavily",
        published=iso_date(item.get("published_date")),
        favicon=item.get("favicon") or None,
        extra=extra,
    )


def _error_text(response: httpx.Response) -> str | None:
    try:
        data = response.json()
    except ValueError:
        return None
    detail = data.get("detail") if isinstance(data, dict) else None
    if isinstance(detail, dict) and detail.get("error"):
        return str(detail["error"])
    return str(detail) if detail else None
