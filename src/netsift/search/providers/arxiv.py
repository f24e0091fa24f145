"""arXiv: preprints in physics, mathematics, computer science and more, through the export API.

Official API: https://info.arxiv.org/help/api/user-manual.html (terms of use:
https://info.arxiv.org/help/api/tou.html). Contract and recorded payloads:
shared/providers/README.md#arxiv, shared/providers/arxiv.json and arxiv.xml.

- `GET /api/query?search_query=...&start=&max_results=&sortBy=relevance`; no key. arXiv asks
  for at most one request every three seconds on a single connection.
- A plain query becomes `all:term AND all:term ...`; a query already written in arXiv's syntax
  (`ti:`, `au:`, `abs:`, `cat:` ...) is sent as is.
- The answer is Atom: `entry` → title (hard line breaks collapsed), `link[@rel=alternate]`,
  the PDF link (`link[@title=pdf]`), `summary`, `published`, `author/name`, `arxiv:doi`,
  categories. Errors come as a feed with one entry whose id starts with
  `https://arxiv.org/api/errors` (HTTP 400, sometimes 200) — never a result. 429 is plain
  text "Rate exceeded." without Retry-After; 503 happens.
"""

from __future__ import annotations

import re
from typing import Any

import httpx
from lxml import etree

from ...errors import ProviderUnavailable
from ...models import Query, SearchResult
from ..provider import About, Provider
from .dates import iso_date
from .status import raise_for_status

__all__ = ["Arxiv", "build_search_query"]

NS = {
    "atom": "http://www.w3.org/2005/Atom",
    "arxiv": "http://arxiv.org/schemas/atom",
    "opensearch": "http://a9.com/-/spec/opensearch/1.1/",
}
_FIELDED = re.compile(r"\b(ti|au|abs|co|jr|cat|rn|id|all):", re.IGNORECASE)
_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)


class Arxiv(Provider):
    name = "arxiv"
    about = About(
        website="https://arxiv.org",
        docs="https://info.arxiv.org/help/api/user-manual.html",
        base_url="https://export.arxiv.org",
        requires_key=False,
        results="Atom",
        kind="scholarly",
        rate_limit="1 per 3 seconds",
        max_count=2000,
    )

    def build_request(self, query: Query) -> httpx.Request:
        count = min(query.count, self.about.max_count)
        params = {
            "search_query": build_search_query(query.text),
            "start": str((query.page - 1) * count),
            "max_results": str(count),
            "sortBy": "relevance",
            "sortOrder": "descending",
        }
        headers = {"Accept": "application/atom+xml", "User-Agent": self.settings.user_agent}
        return httpx.Request("GET", f"{self.base_url}/api/query", params=params, headers=headers)

    def parse_response(self, response: httpx.Response, query: Query) -> list[SearchResult]:
        status = response.status_code
        feed = _feed(response.content)
        if feed is not None and (error := _error_entry(feed)) is not None:
            raise ProviderUnavailable(
                f"arxiv refused the query: {error}", details={"status": status}, retryable=False
            )
        raise_for_status(response, self.name, detail=response.text if status == 429 else None)
        if feed is None:
            raise ProviderUnavailable("arxiv sent a body that is not an Atom feed")
        return [_result(entry) for entry in feed.iterfind("atom:entry", NS)]


def build_search_query(text: str) -> str:
    """arXiv's query syntax for free text: every term in any field, all required."""
    if _FIELDED.search(text):
        return text
    terms = [term.strip("\"'()") for term in text.split()]
    return " AND ".join(f"all:{term}" for term in terms if term)


def _feed(content: bytes) -> Any:
    try:
        root = etree.fromstring(content, _PARSER)
    except (etree.XMLSyntaxError, ValueError):
        return None
    return root if root.tag == f"{{{NS['atom']}}}feed" else None


def _error_entry(feed: Any) -> str | None:
    for entry in feed.iterfind("atom:entry", NS):
        entry_id = _text(entry, "atom:id")
        if "arxiv.org/api/errors" in entry_id:
            return _text(entry, "atom:summary") or entry_id
    return None


def _result(entry: Any) -> SearchResult:
    entry_id = _text(entry, "atom:id")
    links = {
        link.get("title") or link.get("rel"): link.get("href")
        for link in entry.iterfind("atom:link", NS)
    }
    primary = entry.find("arxiv:primary_category", NS)
    extra: dict[str, Any] = {
        "arxiv_id": entry_id.rsplit("/abs/", 1)[-1] if "/abs/" in entry_id else None,
        "pdf_url": links.get("pdf"),
        "categories": [c.get("term") for c in entry.iterfind("atom:category", NS)] or None,
        "primary_category": primary.get("term") if primary is not None else None,
        "updated": iso_date(_text(entry, "atom:updated")),
        "comment": _text(entry, "arxiv:comment") or None,
        "journal_ref": _text(entry, "arxiv:journal_ref") or None,
    }
    return SearchResult(
        title=_text(entry, "atom:title"),
        url=links.get("alternate") or entry_id,
        snippet=_text(entry, "atom:summary"),
        source="arxiv",
        published=iso_date(_text(entry, "atom:published")),
        doi=_text(entry, "arxiv:doi") or None,
        authors=[_text(a, "atom:name") for a in entry.iterfind("atom:author", NS)],
        extra={key: value for key, value in extra.items() if value is not None},
    )


def _text(element: Any, path: str) -> str:
    found = element.find(path, NS)
    return " ".join((found.text or "").split()) if found is not None else ""
