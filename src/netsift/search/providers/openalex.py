"""OpenAlex: scholarly works (papers, books, datasets) with DOIs, authors and citations.

Official API: https://developers.openalex.org (works: /api-entities/works/search-works,
authentication and limits: /how-to-use-the-api/rate-limits-and-authentication). Contract and
recorded payloads: shared/providers/README.md#openalex, shared/providers/openalex.json.

- `GET /works?search=...&per-page=&page=`; since 2026-02-13 real use needs `api_key`
  (`OPENALEX_API_KEY`, a query parameter the audit log must redact); without one a keyless
  budget of a handful of searches a day remains, so the key is optional here.
- A work's `doi` is a URL (`https://doi.org/10...`): results carry the bare DOI and link to the
  DOI URL, else the landing page, else the OpenAlex id. Authors come from
  `authorships[].author.display_name`; the snippet is the abstract rebuilt from
  `abstract_inverted_index` (word → positions).
- Errors are `{"error", "message"}`: 400 bad parameters, 429 with `Retry-After` (burst), 429
  with `X-RateLimit-Remaining: 0` (the daily budget: a quota until midnight UTC).
"""

from __future__ import annotations

from typing import Any

import httpx

from ...errors import ProviderUnavailable, QuotaExceeded
from ...models import Query, SearchResult
from ..provider import About, Provider
from .dates import iso_date
from .status import raise_for_status, read_json
from .text import plain_text

__all__ = ["OpenAlex", "build_abstract", "strip_doi"]

MAX_SNIPPET_WORDS = 80


class OpenAlex(Provider):
    name = "openalex"
    about = About(
        website="https://openalex.org",
        docs="https://developers.openalex.org/api-entities/works/search-works",
        base_url="https://api.openalex.org",
        requires_key=False,
        key_env=("OPENALEX_API_KEY",),
        results="JSON",
        kind="scholarly",
        rate_limit="10/second",
        max_count=100,
    )

    def build_request(self, query: Query) -> httpx.Request:
        params = {
            "search": query.text,
            "per-page": str(min(query.count, self.about.max_count)),
            "page": str(query.page),
        }
        if key := self.settings.key():
            params["api_key"] = key
        if mailto := self.settings.extra.get("mailto"):
            params["mailto"] = mailto
        return httpx.Request(
            "GET", f"{self.base_url}/works", params=params, headers={"Accept": "application/json"}
        )

    def parse_response(self, response: httpx.Response, query: Query) -> list[SearchResult]:
        status = response.status_code
        if status != 200:
            detail = _error_text(response)
            if status == 429 and response.headers.get("x-ratelimit-remaining") == "0":
                raise QuotaExceeded(
                    f"openalex's daily budget is used up (it resets at midnight UTC): {detail}",
                    details={"status": status},
                )
            raise_for_status(response, self.name, detail=detail)
        data = read_json(response, self.name)
        if not isinstance(data, dict) or not isinstance(data.get("results"), list):
            raise ProviderUnavailable("openalex sent JSON without a results list")
        results = [_result(work) for work in data["results"] if isinstance(work, dict)]
        return [result for result in results if result.url]


def strip_doi(doi: str | None) -> str | None:
    """`10.1145/3690000.3690001` from `https://doi.org/10.1145/...` (or the bare DOI)."""
    if not doi:
        return None
    for prefix in ("https://doi.org/", "http://doi.org/", "https://dx.doi.org/", "doi:"):
        if doi.lower().startswith(prefix):
            return doi[len(prefix) :]
    return doi


def build_abstract(index: dict[str, list[int]] | None) -> str:
    """The abstract text from OpenAlex's inverted index (word → its positions)."""
    if not index:
        return ""
    placed = sorted((pos, word) for word, positions in index.items() for pos in positions)
    return " ".join(word for _, word in placed)


def _result(work: dict[str, Any]) -> SearchResult:
    location = work.get("primary_location") or {}
    doi = strip_doi(work.get("doi"))
    url = work.get("doi") or location.get("landing_page_url") or work.get("id") or ""
    words = build_abstract(work.get("abstract_inverted_index")).split()
    snippet = " ".join(words[:MAX_SNIPPET_WORDS]) + (" …" if len(words) > MAX_SNIPPET_WORDS else "")
    authors = [
        str(a["author"]["display_name"])
        for a in work.get("authorships") or []
        if isinstance(a, dict) and (a.get("author") or {}).get("display_name")
    ]
    extra: dict[str, Any] = {
        "openalex_id": work.get("id"),
        "cited_by_count": work.get("cited_by_count"),
        "type": work.get("type"),
        "publication_year": work.get("publication_year"),
        "venue": (location.get("source") or {}).get("display_name"),
        "pdf_url": location.get("pdf_url") or (work.get("open_access") or {}).get("oa_url"),
    }
    return SearchResult(
        title=plain_text(work.get("display_name") or work.get("title")),
        url=url,
        snippet=snippet,
        source="openalex",
        published=iso_date(work.get("publication_date")) or _year(work.get("publication_year")),
        doi=doi,
        authors=authors,
        extra={key: value for key, value in extra.items() if value is not None},
    )


def _year(year: Any) -> str | None:
    return f"{year:04d}" if isinstance(year, int) else None


def _error_text(response: httpx.Response) -> str | None:
    try:
        data = response.json()
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    parts = [str(data[key]) for key in ("error", "message") if data.get(key)]
    return ": ".join(parts) or None
