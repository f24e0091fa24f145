"""Crossref simulator: `GET /works?query=` (providers/data/crossref.json).

No key. `rows` must be an integer ≤ 1000 and `offset` ≤ 10,000, else 400 validation-failure
(JSON, `message` an array). 404 and 429 bodies are plain text; every answer advertises the
pool's limits in `x-rate-limit-*` headers. `title` is an array, dates are `date-parts`,
abstracts are JATS.
"""

from __future__ import annotations

import copy
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from .corpus import documents
from .sim import (
    COMMON_MODES,
    DECOY_QUERY,
    Knob,
    Seen,
    example_body,
    hang,
    json_response,
    replay,
    truncated,
)

NAME = "crossref"
HOSTS = ("crossref.test",)
MODES = COMMON_MODES
POOL = {"x-rate-limit-limit": "10", "x-rate-limit-interval": "1s", "x-api-pool": "polite"}


def _invalid(kind: str, value: str, message: str) -> Response:
    body = example_body(NAME, "validation_failure")
    body["message"] = [{"type": kind, "value": value, "message": message}]
    return json_response(body, status=400)


def _bounded(value: str | None, default: int, limit: int) -> int | None:
    if value is None:
        return default
    return int(value) if value.isdigit() and int(value) <= limit else None


def _item(template: dict[str, Any], doc: Any) -> dict[str, Any]:
    item = copy.deepcopy(template)
    year, month, day = (int(p) for p in (doc.published or "2024-01-01").split("-"))
    item.update(
        DOI=f"10.5555/{doc.digest}",
        URL=f"https://doi.org/10.5555/{doc.digest}",
        title=[doc.title],
        issued={"date-parts": [[year, month, day]]},
        published={"date-parts": [[year, month, day]]},
        abstract=f"<jats:p>{doc.snippet}</jats:p>",
    )
    return item


async def handle(request: Request, knob: Knob, seen: Seen) -> Response:
    if request.url.path.rstrip("/") != "/works":
        return Response(b"Resource not found.", 404, headers={"Content-Type": "text/plain"})
    mode = knob.take()
    if mode == "timeout":
        return await hang(request, knob.hang)
    params = seen.params
    rows = _bounded(params.get("rows"), 20, 1000)
    if rows is None:
        value = params.get("rows", "")
        return _invalid(
            "integer-not-valid",
            value,
            f"Integer specified as {value} but must be a positive integer less than or"
            " equal to 1000. ",
        )
    offset = _bounded(params.get("offset"), 0, 10_000)
    if offset is None:
        value = params.get("offset", "")
        return _invalid(
            "integer-not-valid",
            value,
            f"Integer specified as {value} but must be a positive integer less than or"
            " equal to 10000. ",
        )
    if mode == "auth":
        return Response(b"Forbidden", 403, headers={"Content-Type": "text/plain"})
    if mode == "rate_limit":
        return replay(NAME, "rate_limited")
    if mode == "server_error":
        return Response(b"Internal Server Error", 500, headers={"Content-Type": "text/plain"})
    if mode == "empty":
        return Response(b"", headers={"Content-Type": "application/json", **POOL})
    body = example_body(NAME, "works_query_ok")
    template = body["message"]["items"][0]
    query = params.get("query", params.get("query.bibliographic", ""))
    asked = DECOY_QUERY if mode == "decoy" else query
    docs = (
        []
        if mode == "noresults" or not query
        else documents(asked, offset + rows, provider=NAME, link_port=knob.link_port)
    )
    docs = docs[offset:]
    message = body["message"]
    message["items"] = [_item(template, doc) for doc in docs]
    message.update({"total-results": len(docs), "items-per-page": rows})
    message["query"] = {"start-index": offset, "search-terms": query}
    response = json_response(body, headers=POOL)
    return truncated(response) if mode == "malformed" else response
