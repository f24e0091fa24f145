"""Wikipedia: full-text search over one language edition through the MediaWiki Action API.

Official API: https://www.mediawiki.org/wiki/API:Search (and API:Etiquette,
https://meta.wikimedia.org/wiki/User-Agent_policy). Contract and recorded payloads:
shared/providers/README.md#wikipedia, shared/providers/wikipedia.json.

- `GET /w/api.php?action=query&list=search&srsearch=...&format=json&formatversion=2`; no key,
  but a descriptive User-Agent is required (netsift's names the project and a URL).
- The edition follows the region's language (`de` → de.wikipedia.org) unless the base URL is
  set explicitly. `srlimit` up to 500, `sroffset` for pages.
- Results have no URL field: it is built from the title (`/wiki/Title_with_underscores`).
  Snippets are HTML with `span.searchmatch`; `timestamp` is the last edit, kept in `extra`.
- Errors are **HTTP 200** with a top-level `error{code, info}`; throttling is 429 (or 403 for
  clients that break the User-Agent policy).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import httpx

from ...errors import ProviderUnavailable, RateLimited
from ...models import Query, SearchResult
from ..provider import About, Provider
from .region import parse_region
from .status import raise_for_status, read_json, retry_after_from
from .text import plain_text

__all__ = ["Wikipedia", "build_article_url"]

_TITLE_SAFE = ";@$!*(),/~:"  # what MediaWiki's wfUrlencode leaves as is
_THROTTLED = ("ratelimited", "maxlag")


class Wikipedia(Provider):
    name = "wikipedia"
    about = About(
        website="https://www.wikipedia.org",
        docs="https://www.mediawiki.org/wiki/API:Search",
        base_url="https://en.wikipedia.org",
        requires_key=False,
        results="JSON",
        kind="encyclopedia",
        rate_limit="5/second",  # no hard read limit; API:Etiquette asks for serial requests
        max_count=500,
    )

    def site(self, query: Query) -> str:
        """The wiki to ask: the configured base URL, else the region language's edition."""
        if self.settings.base_url:
            return self.settings.base_url.rstrip("/")
        language = parse_region(query.region).language
        if language and language.isalpha():
            return f"https://{language}.wikipedia.org"
        return self.about.base_url

    def build_request(self, query: Query) -> httpx.Request:
        count = min(query.count, self.about.max_count)
        params = {
            "action": "query",
            "list": "search",
            "srsearch": query.text,
            "srlimit": str(count),
            "sroffset": str((query.page - 1) * count),
            "srprop": "snippet|timestamp|wordcount|size",
            "format": "json",
            "formatversion": "2",
            "utf8": "1",
        }
        headers = {"Accept": "application/json", "User-Agent": self.settings.user_agent}
        return httpx.Request("GET", f"{self.site(query)}/w/api.php", params=params, headers=headers)

    def parse_response(self, response: httpx.Response, query: Query) -> list[SearchResult]:
        status = response.status_code
        if status in (403, 429):
            raise RateLimited(
                f"wikipedia throttled the search (HTTP {status}); Wikimedia asks for a"
                " descriptive User-Agent and serial requests",
                retry_after=retry_after_from(response),
                details={"status": status},
            )
        raise_for_status(response, self.name)
        data = read_json(response, self.name)
        if not isinstance(data, dict):
            raise ProviderUnavailable("wikipedia sent JSON that is not an object")
        if isinstance(error := data.get("error"), dict):
            _raise_api_error(error, response)
        hits = (data.get("query") or {}).get("search")
        if not isinstance(hits, list):
            raise ProviderUnavailable("wikipedia sent JSON without query.search")
        site = self.site(query)
        return [_result(hit, site) for hit in hits if isinstance(hit, dict) and hit.get("title")]


def build_article_url(site: str, title: str) -> str:
    """`https://en.wikipedia.org/wiki/Rust_(programming_language)` from the title."""
    return f"{site}/wiki/{quote(title.replace(' ', '_'), safe=_TITLE_SAFE)}"


def _result(hit: dict[str, Any], site: str) -> SearchResult:
    extra = {key: hit[key] for key in ("pageid", "wordcount", "timestamp") if key in hit}
    return SearchResult(
        title=hit["title"],
        url=build_article_url(site, hit["title"]),
        snippet=plain_text(hit.get("snippet")),
        source="wikipedia",
        extra=extra,
    )


def _raise_api_error(error: dict[str, Any], response: httpx.Response) -> None:
    code = str(error.get("code") or "unknown")
    info = str(error.get("info") or "")
    if code in _THROTTLED:
        raise RateLimited(
            f"wikipedia asks to slow down ({code}): {info}",
            retry_after=retry_after_from(response),
            details={"provider_code": code},
        )
    raise ProviderUnavailable(
        f"wikipedia's API refused the search ({code}): {info}",
        details={"provider_code": code},
        retryable=False,
    )
