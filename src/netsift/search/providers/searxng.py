"""SearXNG: a self-hosted metasearch instance, asked for JSON.

Official docs: https://docs.searxng.org/dev/search_api.html (search API) and
https://docs.searxng.org/admin/settings/settings_search.html (`search.formats`). Contract and
recorded payloads: shared/providers/README.md#searxng, shared/providers/searxng.json.

- Needs the instance's URL (`SEARXNG_URL`, also `SEARXNG_API_URL`, `SEARX_HOST`); no key.
- `GET {url}/search?q=&format=json&pageno=&language=&safesearch=0|1|2&time_range=`.
- The shipped settings allow only `html`: JSON disabled is a **403** with Flask's HTML page,
  which will not heal by waiting, so it is reported as `provider_auth` saying what to enable.
- Instances with the limiter answer 429 "Too Many Requests" to clients that do not look like
  browsers; netsift sends Accept with text/html, Accept-Language and gzip.
- `unresponsive_engines` lists the upstream engines that failed; with no results at all that is
  an outage (`provider_unavailable`), not "no results". With results, they are logged.
"""

from __future__ import annotations

import logging
from typing import Any

import httpx

from ...errors import ProviderAuth, ProviderUnavailable, RateLimited
from ...models import Query, SearchResult
from ..provider import About, Provider
from .dates import iso_date
from .region import parse_region
from .status import raise_for_status, read_json, retry_after_from
from .text import plain_text

__all__ = ["SearXNG"]

log = logging.getLogger(__name__)

_SAFESEARCH = {"off": "0", "moderate": "1", "strict": "2"}
_TIME_RANGE = {"d": "day", "w": "week", "m": "month", "y": "year"}


class SearXNG(Provider):
    name = "searxng"
    about = About(
        website="https://docs.searxng.org",
        docs="https://docs.searxng.org/dev/search_api.html",
        base_url="http://127.0.0.1:8888",  # SearXNG's default bind; set SEARXNG_URL
        requires_key=False,
        key_env=("SEARXNG_URL", "SEARXNG_API_URL", "SEARX_HOST"),
        results="JSON",
        kind="web",
        rate_limit="5/second",
        max_count=20,
        notes=("self-hosted: the rate limit is the instance operator's; override it per host",),
    )

    def configured(self) -> bool:
        return bool(self.settings.base_url)

    def build_request(self, query: Query) -> httpx.Request:
        region = parse_region(query.region)
        params = {
            "q": query.text,
            "format": "json",
            "pageno": str(query.page),
            "safesearch": _SAFESEARCH[query.safesearch],
        }
        if region.bcp47:
            params["language"] = region.bcp47
        if query.time_range:
            params["time_range"] = _TIME_RANGE[query.time_range]
        headers = {
            "Accept": "application/json, text/html;q=0.9",
            "Accept-Encoding": "gzip, deflate",
            "Accept-Language": f"{region.bcp47 or 'en-US'},en;q=0.8",
            "User-Agent": self.settings.user_agent,
        }
        base = self.base_url.rstrip("/")
        return httpx.Request("GET", f"{base}/search", params=params, headers=headers)

    def parse_response(self, response: httpx.Response, query: Query) -> list[SearchResult]:
        status = response.status_code
        if status == 403:
            raise ProviderAuth(
                "searxng refused format=json (HTTP 403): enable it on the instance by adding"
                " `json` to `search.formats` in its settings.yml",
                details={"status": status},
            )
        if status == 429:
            raise RateLimited(
                "searxng's limiter refused the request (HTTP 429); allow this client in the"
                " instance's limiter or botdetection settings",
                retry_after=retry_after_from(response),
                details={"status": status},
            )
        if status != 200:
            raise_for_status(response, self.name, detail=_error_text(response))
        data = read_json(response, self.name)
        if not isinstance(data, dict) or not isinstance(data.get("results"), list):
            raise ProviderUnavailable("searxng sent JSON without a results list")
        failed = _unresponsive(data)
        items = [item for item in data["results"] if isinstance(item, dict) and item.get("url")]
        if not items and failed:
            raise ProviderUnavailable(
                f"searxng's engines all failed: {failed}", details={"unresponsive_engines": failed}
            )
        if failed:
            log.info("searxng answered without some engines: %s", failed)
        return [_result(item) for item in items]


def _result(item: dict[str, Any]) -> SearchResult:
    extra: dict[str, Any] = {}
    for key in ("engines", "score", "category"):
        if item.get(key) not in (None, "", []):
            extra[key] = item[key]
    return SearchResult(
        title=plain_text(item.get("title")),
        url=item["url"],
        snippet=plain_text(item.get("content")),
        source="searxng",
        published=iso_date(item.get("publishedDate")),
        thumbnail=item.get("thumbnail") or item.get("img_src") or None,
        extra=extra,
    )


def _unresponsive(data: dict[str, Any]) -> str:
    """`google (Suspended: CAPTCHA), startpage (timeout)`, or "" when all engines answered."""
    pairs = data.get("unresponsive_engines") or []
    return ", ".join(
        f"{pair[0]} ({pair[1]})" for pair in pairs if isinstance(pair, list) and len(pair) >= 2
    )


def _error_text(response: httpx.Response) -> str | None:
    try:
        data = response.json()
    except ValueError:
        return None
    return str(data["error"]) if isinstance(data, dict) and data.get("error") else None
