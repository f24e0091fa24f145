"""arXiv export API simulator: `GET /api/query` answering Atom (providers/data/arxiv.json, .xml).

As the real API: errors are a 400 Atom feed with one `Error` entry (negative `max_results`,
more than 2000 per call), a 429 is plain text "Rate exceeded." with no Retry-After, 5xx is
503. Titles and summaries keep the hard line breaks arXiv puts in them. Entries come from
the recorded feed, rebuilt for the query terms found in `search_query` (`all:`, `ti:` …).
"""

from __future__ import annotations

import copy
import re
from functools import cache

from lxml import etree
from starlette.requests import Request
from starlette.responses import Response

from .corpus import Doc, documents
from .sim import (
    COMMON_MODES,
    DECOY_QUERY,
    PROVIDERS_DIR,
    Knob,
    Seen,
    example,
    hang,
    int_param,
    replay,
    truncated,
)

NAME = "arxiv"
HOSTS = ("arxiv.test",)
MODES = COMMON_MODES
ATOM = "{http://www.w3.org/2005/Atom}"
ARXIV = "{http://arxiv.org/schemas/atom}"
OPENSEARCH = "{http://a9.com/-/spec/opensearch/1.1/}"
ATOM_TYPE = {"Content-Type": "application/atom+xml; charset=utf-8"}
_FIELD = re.compile(r"\b(?:all|ti|au|abs|co|jr|cat|rn|id):", re.IGNORECASE)
_OPERATORS = {"AND", "OR", "ANDNOT"}


def search_terms(search_query: str) -> str:
    """The words of an arXiv `search_query`, without field prefixes, operators and quotes."""
    text = _FIELD.sub(" ", search_query).replace('"', " ").replace("(", " ").replace(")", " ")
    return " ".join(w for w in text.split() if w not in _OPERATORS)


@cache
def _recorded() -> bytes:
    return (PROVIDERS_DIR / "arxiv.xml").read_bytes()


def _error_feed(message: str, anchor: str) -> Response:
    _, headers, body = example(NAME, "bad_max_results")
    text = body.decode().replace("max_results_must_be_non-negative", anchor)
    text = text.replace("max_results must be non-negative", message)
    return Response(text.encode(), 400, headers=headers)


def _wrapped(text: str, width: int = 60) -> str:
    """Hard line breaks, as arXiv's titles and summaries have them."""
    lines, line = [], ""
    for word in text.split():
        if line and len(line) + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    return "\n  ".join([*lines, line])


def _entry(template: etree._Element, doc: Doc, n: int) -> etree._Element:
    entry = copy.deepcopy(template)
    arxiv_id = f"26{n:02d}.{int(doc.digest[:5], 16) % 100000:05d}"
    entry.find(f"{ATOM}id").text = f"http://arxiv.org/abs/{arxiv_id}v1"
    entry.find(f"{ATOM}title").text = _wrapped(doc.title)
    entry.find(f"{ATOM}summary").text = _wrapped(doc.snippet)
    published = f"{doc.published or '2025-01-01'}T12:00:00Z"
    entry.find(f"{ATOM}published").text = published
    entry.find(f"{ATOM}updated").text = published
    for link in entry.findall(f"{ATOM}link"):
        if link.get("rel") == "alternate":
            link.set("href", f"https://arxiv.org/abs/{arxiv_id}v1")
        elif link.get("title") == "pdf":
            link.set("href", f"https://arxiv.org/pdf/{arxiv_id}v1")
        elif link.get("title") == "doi":
            link.set("href", f"https://doi.org/10.5555/{doc.digest}")
    doi = entry.find(f"{ARXIV}doi")
    if doi is not None:
        doi.text = f"10.5555/{doc.digest}"
    return entry


def build_feed(query: str, docs: list[Doc], start: int) -> bytes:
    feed = etree.fromstring(_recorded())
    entries = feed.findall(f"{ATOM}entry")
    template = entries[0]
    for entry in entries:
        feed.remove(entry)
    for n, doc in enumerate(docs, start=1):
        feed.append(_entry(template, doc, n))
    feed.find(f"{OPENSEARCH}totalResults").text = str(start + len(docs))
    feed.find(f"{OPENSEARCH}itemsPerPage").text = str(len(docs))
    feed.find(f"{OPENSEARCH}startIndex").text = str(start)
    feed.find(f"{ATOM}title").text = f"arXiv Query: search_query={query}"
    return bytes(etree.tostring(feed, xml_declaration=True, encoding="UTF-8"))


async def handle(request: Request, knob: Knob, seen: Seen) -> Response:
    if request.url.path.rstrip("/") != "/api/query":
        return Response(b"Not Found", 404, headers={"Content-Type": "text/plain"})
    mode = knob.take()
    if mode == "timeout":
        return await hang(request, knob.hang)
    params = seen.params
    start = int_param(params.get("start"), 0)
    count = int_param(params.get("max_results"), 10)
    if count is None or count < 0:
        return _error_feed("max_results must be non-negative", "max_results_must_be_non-negative")
    if count > 2000:
        return _error_feed("max_results must be <= 2000", "max_results_too_large")
    if start is None or start < 0:
        return _error_feed("start must be non-negative", "start_must_be_non-negative")
    if mode == "auth":
        return Response(b"Access denied", 403, headers={"Content-Type": "text/plain"})
    if mode == "rate_limit":
        return replay(NAME, "rate_limited")
    if mode == "server_error":
        return Response(b"Service Unavailable", 503, headers={"Content-Type": "text/plain"})
    if mode == "empty":
        return Response(b"", headers=ATOM_TYPE)
    raw = params.get("search_query", "")
    words = search_terms(raw)
    if mode == "noresults" or not words:
        return replay(NAME, "query_empty")
    asked = DECOY_QUERY if mode == "decoy" else words
    docs = documents(asked, start + count, provider=NAME, link_port=knob.link_port)[start:]
    response = Response(build_feed(raw, docs, start), headers=ATOM_TYPE)
    return truncated(response) if mode == "malformed" else response
