"""Brave Search API: web results from Brave's own index.

Official API: https://api-dashboard.search.brave.com/app/documentation/web-search/get-started
(reference: .../web-search/query, .../web-search/response-headers). Contract and recorded
payloads: shared/providers/README.md#brave, shared/providers/brave.json.

- Key in the `X-Subscription-Token` header (`BRAVE_API_KEY`, `BRAVE_SEARCH_API_KEY`).
- A bad or missing key is **422** with `error.code` `SUBSCRIPTION_TOKEN_INVALID` / `VALIDATION`,
  not 401: classify by the code. `RATE_LIMITED` and `QUOTA_LIMITED` are both 429.
- No Retry-After: `X-RateLimit-Reset` holds "per-second, per-month" seconds; the window that is
  exhausted (`X-RateLimit-Remaining` 0) says how long to wait. Plans change, so trust the headers.
- No results ⇒ the `web` object is absent (an honest empty answer, not a schema error).
"""

from __future__ import annotations

from typing import Any

import httpx

from ...errors import ProviderAuth, ProviderUnavailable, QuotaExceeded, RateLimited
from ...models import Query, SearchResult
from ..provider import About, Provider
from .dates import iso_date
from .region import parse_region
from .status import raise_for_status, read_json
from .text import plain_text

__all__ = ["Brave"]

_FRESHNESS = {"d": "pd", "w": "pw", "m": "pm", "y": "py"}
_AUTH_CODES = ("SUBSCRIPTION_TOKEN_INVALID", "SUBSCRIPTION_NOT_FOUND")


class Brave(Provider):
    name = "brave"
    about = About(
        website="https://brave.com/search/api/",
        docs="https://api-dashboard.search.brave.com/app/documentation/web-search/get-started",
        base_url="https://api.search.brave.com",
        requires_key=True,
        key_env=("BRAVE_API_KEY", "BRAVE_SEARCH_API_KEY"),
        results="JSON",
        kind="web",
        rate_limit="1/second",
        max_count=20,
    )

    def build_request(self, query: Query) -> httpx.Request:
        count = min(query.count, self.about.max_count)
        params: dict[str, str | int] = {
            "q": query.text,
            "count": count,
            "offset": min(query.page - 1, 9),
            "safesearch": query.safesearch,
        }
        if query.time_range:
            params["freshness"] = _FRESHNESS[query.time_range]
        region = parse_region(query.region)
        if region.country:
            params["country"] = region.country.upper()
        if region.language:
            params["search_lang"] = region.language
        headers = {"Accept": "application/json"}
        if key := self.settings.key():
            headers["X-Subscription-Token"] = key
        return httpx.Request(
            "GET", f"{self.base_url}/res/v1/web/search", params=params, headers=headers
        )

    def parse_response(self, response: httpx.Response, query: Query) -> list[SearchResult]:
        if response.status_code != 200:
            _raise_error(response)
        data = read_json(response, self.name)
        if not isinstance(data, dict) or data.get("type") != "search":
            raise ProviderUnavailable("brave sent JSON that is not a search response")
        web = data.get("web") or {}
        return [_result(item) for item in web.get("results", []) if item.get("url")]


def _result(item: dict[str, Any]) -> SearchResult:
    thumbnail = item.get("thumbnail") or {}
    extra: dict[str, Any] = {}
    if item.get("extra_snippets"):
        extra["extra_snippets"] = [plain_text(s) for s in item["extra_snippets"]]
    if item.get("age"):
        extra["age"] = item["age"]
    return SearchResult(
        title=plain_text(item.get("title")),
        url=item["url"],
        snippet=plain_text(item.get("description")),
        source="brave",
        published=iso_date(item.get("page_age")),
        thumbnail=thumbnail.get("src"),
        favicon=(item.get("meta_url") or {}).get("favicon"),
        extra=extra,
    )


def _raise_error(response: httpx.Response) -> None:
    body = _error_body(response)
    code = str(body.get("code") or "")
    detail = str(body.get("detail") or "") or None
    if code in _AUTH_CODES or (code == "VALIDATION" and _missing_token(body)):
        raise ProviderAuth(
            f"brave refused the subscription token ({code}): check BRAVE_API_KEY",
            details={"status": response.status_code, "provider_code": code},
        )
    if code == "QUOTA_LIMITED" or response.status_code == 402:
        details: dict[str, Any] = {"status": response.status_code, "provider_code": code}
        if (reset := _reset_seconds(response)) is not None:
            details["retry_after"] = reset
        raise QuotaExceeded(f"brave's plan quota is used up ({code}): {detail}", details=details)
    if code == "RATE_LIMITED" or response.status_code == 429:
        raise RateLimited(
            f"brave says too many requests: {detail}",
            retry_after=_reset_seconds(response),
            details={"status": response.status_code, "provider_code": code},
        )
    raise_for_status(response, "brave", detail=f"{code} {detail or ''}".strip() or None)


def _error_body(response: httpx.Response) -> dict[str, Any]:
    try:
        data = response.json()
    except ValueError:
        return {}
    error = data.get("error") if isinstance(data, dict) else None
    return error if isinstance(error, dict) else {}


def _missing_token(error: dict[str, Any]) -> bool:
    problems = (error.get("meta") or {}).get("errors") or []
    return any(
        "x-subscription-token" in [str(p).lower() for p in e.get("loc", [])] for e in problems
    )


def _reset_seconds(response: httpx.Response) -> float | None:
    """The reset of the exhausted window (remaining 0), else of the first (per-second) one."""
    resets = _numbers(response.headers.get("x-ratelimit-reset"))
    if not resets:
        return None
    remaining = _numbers(response.headers.get("x-ratelimit-remaining"))
    for index, left in enumerate(remaining[: len(resets)]):
        if left == 0:
            return resets[index]
    return resets[0]


def _numbers(header: str | None) -> list[float]:
    values = []
    for part in (header or "").split(","):
        try:
            values.append(float(part.strip()))
        except ValueError:
            return []
    return values
