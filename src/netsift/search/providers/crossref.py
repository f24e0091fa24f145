"""Crossref: metadata of works registered with a DOI (articles, chapters, proceedings).

Official API: https://api.crossref.org/swagger-ui/index.html and
https://www.crossref.org/documentation/retrieve-metadata/rest-api/ (etiquette, pools).
Contract and recorded payloads: shared/providers/README.md#crossref,
shared/providers/crossref.json.

- `GET /works?query=...&rows=&offset=&select=...`; no key. Sending a contact (`mailto` param,
  `CROSSREF_MAILTO`, also named in the User-Agent) moves netsift to the faster "polite" pool.
- `message.items[]`: `title` and `container-title` are lists, `author[]` has `given`/`family`,
  dates are `date-parts` `[[year, month?, day?]]`, `abstract` is JATS XML (tags stripped).
- Failures: 400 `{"status": "failed", "message-type": "validation-failure", "message": [...]}`;
  429 and 404 are plain text. Rate limits are advertised per response
  (`x-rate-limit-limit` per `x-rate-limit-interval`).
"""

from __future__ import annotations

import re
from typing import Any

import httpx

from ...errors import ProviderUnavailable
from ...models import Query, SearchResult
from ..provider import About, Provider
from .dates import iso_date_parts
from .status import raise_for_status, read_json, retry_after_from
from .text import plain_text

__all__ = ["Crossref"]

SELECT = (
    "DOI,title,author,container-title,issued,published,URL,type,abstract,score,"
    "is-referenced-by-count,publisher"
)
MAX_OFFSET = 10_000
_INTERVAL = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*s\s*$")


class Crossref(Provider):
    name = "crossref"
    about = About(
        website="https://www.crossref.org",
        docs="https://www.crossref.org/documentation/retrieve-metadata/rest-api/",
        base_url="https://api.crossref.org",
        requires_key=False,
        key_env=("CROSSREF_MAILTO",),
        results="JSON",
        kind="scholarly",
        rate_limit="5/second",  # the public pool; the polite pool (with mailto) allows 10/second
        max_count=1000,
    )

    def build_request(self, query: Query) -> httpx.Request:
        rows = min(query.count, self.about.max_count)
        params = {
            "query": query.text,
            "rows": str(rows),
            "offset": str(min((query.page - 1) * rows, MAX_OFFSET)),
            "select": SELECT,
        }
        user_agent = self.settings.user_agent
        if mailto := self.settings.extra.get("mailto"):
            params["mailto"] = mailto
            user_agent = f"{user_agent} (mailto:{mailto})"
        headers = {"Accept": "application/json", "User-Agent": user_agent}
        return httpx.Request("GET", f"{self.base_url}/works", params=params, headers=headers)

    def parse_response(self, response: httpx.Response, query: Query) -> list[SearchResult]:
        status = response.status_code
        if status != 200:
            raise_for_status(
                response,
                self.name,
                detail=_error_text(response),
                retry_after=retry_after_from(response) or _interval(response),
            )
        data = read_json(response, self.name)
        message = data.get("message") if isinstance(data, dict) else None
        if not isinstance(message, dict) or data.get("status") != "ok":
            raise ProviderUnavailable("crossref sent JSON that is not a work list")
        items = message.get("items")
        if not isinstance(items, list):
            raise ProviderUnavailable("crossref sent a work list without items")
        return [_result(item) for item in items if isinstance(item, dict) and item.get("DOI")]


def _result(item: dict[str, Any]) -> SearchResult:
    doi = str(item["DOI"])
    authors = [
        " ".join(part for part in (a.get("given"), a.get("family")) if part)
        or str(a.get("name") or "")
        for a in item.get("author") or []
        if isinstance(a, dict)
    ]
    extra: dict[str, Any] = {
        "type": item.get("type"),
        "publisher": item.get("publisher"),
        "venue": _first(item.get("container-title")),
        "cited_by_count": item.get("is-referenced-by-count"),
        "score": item.get("score"),
    }
    return SearchResult(
        title=plain_text(_first(item.get("title"))),
        url=item.get("URL") or f"https://doi.org/{doi}",
        snippet=plain_text(item.get("abstract")),
        source="crossref",
        published=_date(item.get("issued")) or _date(item.get("published")),
        doi=doi,
        authors=[name for name in authors if name],
        extra={key: value for key, value in extra.items() if value is not None},
    )


def _first(values: Any) -> str | None:
    return str(values[0]) if isinstance(values, list) and values else None


def _date(field: Any) -> str | None:
    parts = field.get("date-parts") if isinstance(field, dict) else None
    return iso_date_parts(parts[0]) if isinstance(parts, list) and parts else None


def _interval(response: httpx.Response) -> float | None:
    """Crossref sends no Retry-After; one rate-limit interval (`1s`) is the wait."""
    match = _INTERVAL.match(response.headers.get("x-rate-limit-interval", ""))
    return float(match[1]) if match else None


def _error_text(response: httpx.Response) -> str | None:
    try:
        data = response.json()
    except ValueError:
        text = " ".join(response.text.split())
        return text[:200] or None
    problems = data.get("message") if isinstance(data, dict) else None
    if isinstance(problems, list):
        return "; ".join(str(p.get("message", "")).strip() for p in problems if isinstance(p, dict))
    return None
