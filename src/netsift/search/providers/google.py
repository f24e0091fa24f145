"""Google Programmable Search Engine (Custom Search JSON API).

Official API: https://developers.google.com/custom-search/v1/reference/rest/v1/cse/list. Closed
to new customers; it ends on 2027-01-01. Contract and recorded payloads:
shared/providers/README.md#google, shared/providers/google.json.

- `GET /customsearch/v1?key=...&cx=...&q=...` (`GOOGLE_API_KEY` + `GOOGLE_CSE_ID`); the key is
  a query parameter as the contract records, so the audit log must redact `key`.
- `num` 1-10, `start` 1-based with `start + num <= 101` (the API never returns more than 100),
  `safe` active/off, `dateRestrict` d1/w1/m1/y1, `gl` country, `hl` language.
- A bad key is **400** `API_KEY_INVALID`; 403 is a project without access; 429
  `RESOURCE_EXHAUSTED` is the daily quota (100/day free) or the per-minute limit: the message
  names which. No `items` at all is an honest empty answer when `totalResults` is "0".
- Dates have no field: `pagemap.metatags[].article:published_time`, else the snippet's
  "Aug 19, 2026 ... " prefix (which is cut from the snippet).
"""

from __future__ import annotations

import re
from typing import Any

import httpx

from ...errors import InvalidInput, ProviderAuth, ProviderUnavailable, QuotaExceeded, RateLimited
from ...models import Query, SearchResult
from ..provider import About, Provider
from .dates import iso_date
from .region import parse_region
from .status import raise_for_status, read_json
from .text import plain_text

__all__ = ["Google"]

MAX_RESULTS = 100
_DATE_PREFIX = re.compile(r"^([A-Z][a-z]{2} \d{1,2}, \d{4}) \.\.\. ")


class Google(Provider):
    name = "google"
    about = About(
        website="https://programmablesearchengine.google.com",
        docs="https://developers.google.com/custom-search/v1/reference/rest/v1/cse/list",
        base_url="https://www.googleapis.com",
        requires_key=True,
        key_env=("GOOGLE_API_KEY", "GOOGLE_CSE_ID"),
        results="JSON",
        kind="web",
        rate_limit="100/minute",  # per-minute quota; the free daily quota is 100/day
        max_count=10,
        notes=("closed to new customers; the API ends on 2027-01-01",),
    )

    def configured(self) -> bool:
        return self.settings.key() is not None and bool(self.settings.extra.get("cx"))

    def missing(self) -> str:
        return "GOOGLE_API_KEY and GOOGLE_CSE_ID"

    def build_request(self, query: Query) -> httpx.Request:
        num = min(query.count, self.about.max_count)
        start = (query.page - 1) * num + 1
        if start + num - 1 > MAX_RESULTS:
            raise InvalidInput(
                f"google returns at most {MAX_RESULTS} results; page {query.page} of {num}"
                " is beyond them"
            )
        params: dict[str, str | int] = {
            "key": self.settings.key() or "",
            "cx": self.settings.extra.get("cx", ""),
            "q": query.text,
            "num": num,
            "start": start,
            "safe": "off" if query.safesearch == "off" else "active",
        }
        if query.time_range:
            params["dateRestrict"] = f"{query.time_range}1"
        region = parse_region(query.region)
        if region.country:
            params["gl"] = "uk" if region.country == "gb" else region.country
        if region.language:
            params["hl"] = region.language
        return httpx.Request(
            "GET",
            f"{self.base_url}/customsearch/v1",
            params=params,
            headers={"Accept": "application/json"},
        )

    def parse_response(self, response: httpx.Response, query: Query) -> list[SearchResult]:
        if response.status_code != 200:
            _raise_error(response)
        data = read_json(response, self.name)
        if not isinstance(data, dict) or data.get("kind") != "customsearch#search":
            raise ProviderUnavailable("google sent JSON that is not a search response")
        items = data.get("items")
        if isinstance(items, list):
            return [_result(i) for i in items if isinstance(i, dict) and i.get("link")]
        if str((data.get("searchInformation") or {}).get("totalResults")) == "0":
            return []
        raise ProviderUnavailable("google answered without items and without saying it found none")


def _result(item: dict[str, Any]) -> SearchResult:
    snippet = plain_text(item.get("snippet"))
    published = None
    if match := _DATE_PREFIX.match(snippet):
        published = iso_date(match[1])
        snippet = snippet[match.end() :]
    pagemap = item.get("pagemap") or {}
    for tags in pagemap.get("metatags") or []:
        if isinstance(tags, dict) and (when := iso_date(tags.get("article:published_time"))):
            published = when
            break
    thumbnails = pagemap.get("cse_thumbnail") or [{}]
    return SearchResult(
        title=plain_text(item.get("title")),
        url=item["link"],
        snippet=snippet,
        source="google",
        published=published,
        thumbnail=thumbnails[0].get("src"),
        extra={"display_link": item["displayLink"]} if item.get("displayLink") else {},
    )


def _raise_error(response: httpx.Response) -> None:
    error = _error(response)
    message = str(error.get("message") or "") or None
    reasons = {str(d.get("reason")) for d in error.get("details") or [] if isinstance(d, dict)}
    reasons |= {str(e.get("reason")) for e in error.get("errors") or [] if isinstance(e, dict)}
    status = response.status_code
    details: dict[str, Any] = {"status": status}
    if "API_KEY_INVALID" in reasons or "keyInvalid" in reasons:
        raise ProviderAuth(f"google refused the API key: {message}", details=details)
    if status == 429:
        if message and "per day" in message.lower():
            raise QuotaExceeded(f"google's daily quota is used up: {message}", details=details)
        raise RateLimited(f"google says too many requests: {message}", details=details)
    raise_for_status(response, "google", detail=message)


def _error(response: httpx.Response) -> dict[str, Any]:
    try:
        data = response.json()
    except ValueError:
        return {}
    error = data.get("error") if isinstance(data, dict) else None
    return error if isinstance(error, dict) else {}
