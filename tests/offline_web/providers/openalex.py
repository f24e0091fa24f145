"""OpenAlex simulator: `GET /works?search=` (providers/data/openalex.json).

Checks `per-page`/`per_page` (1-200) and `page · per_page ≤ 10,000` (400 "Pagination error."),
and the `api_key` when one is sent (a wrong key → 401; none is accepted, as the keyless
budget still is). `rate_limit` is the burst 429 with Retry-After; `quota` the daily budget
429 with `X-RateLimit-Remaining: 0`. Abstracts come as `abstract_inverted_index`.
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
    int_param,
    json_response,
    replay,
    truncated,
)

NAME = "openalex"
HOSTS = ("openalex.test",)
MODES = COMMON_MODES | {"quota"}
KEY = "oa-test-0000000000"


def inverted_index(text: str) -> dict[str, list[int]]:
    index: dict[str, list[int]] = {}
    for position, word in enumerate(text.split()):
        index.setdefault(word, []).append(position)
    return index


def _work(template: dict[str, Any], doc: Any, n: int) -> dict[str, Any]:
    work = copy.deepcopy(template)
    doi = f"https://doi.org/10.5555/{doc.digest}"
    year = int((doc.published or "2024")[:4])
    work.update(
        id=f"https://openalex.org/W{4390000000 + n}",
        doi=doi,
        title=doc.title,
        display_name=doc.title,
        relevance_score=round(500 / n, 2),
        publication_year=year,
        publication_date=doc.published or f"{year}-01-01",
        abstract_inverted_index=inverted_index(doc.snippet),
    )
    work["ids"] = {"openalex": work["id"], "doi": doi}
    work["primary_location"]["landing_page_url"] = doc.url
    return work


async def handle(request: Request, knob: Knob, seen: Seen) -> Response:
    if request.url.path.rstrip("/") != "/works":
        return json_response({"error": "Not found", "message": "No such endpoint."}, status=404)
    mode = knob.take()
    if mode == "timeout":
        return await hang(request, knob.hang)
    params = seen.params
    key = params.get("api_key")
    if (key is not None and key != KEY) or mode == "auth":
        return json_response(
            {"error": "Invalid API key", "message": "The api_key parameter is not a valid key."},
            status=401,
        )
    per_page = int_param(params.get("per-page", params.get("per_page")), 25)
    page = int_param(params.get("page"), 1)
    if per_page is None or not 1 <= per_page <= 200:
        return replay(NAME, "bad_per_page")
    if page is None or page < 1 or page * per_page > 10_000:
        return replay(NAME, "page_too_deep")
    if mode == "rate_limit":
        body = example_body(NAME, "rate_limited_burst")
        body["retryAfter"] = knob.retry_after
        return json_response(body, status=429, headers={"Retry-After": str(knob.retry_after)})
    if mode == "quota":
        return replay(NAME, "daily_budget_exhausted")
    if mode == "server_error":
        return json_response({"error": "Internal server error", "message": "oops"}, status=500)
    if mode == "empty":
        return Response(b"", headers={"Content-Type": "application/json"})
    body = example_body(NAME, "works_search_ok")
    template = body["results"][0]
    query = params.get("search", "")
    asked = DECOY_QUERY if mode == "decoy" else query
    docs = (
        []
        if mode == "noresults" or not query
        else documents(asked, page * per_page, provider=NAME, link_port=knob.link_port)
    )
    docs = docs[(page - 1) * per_page :]
    body["meta"].update(count=len(docs), page=page, per_page=per_page)
    body["results"] = [_work(template, doc, n) for n, doc in enumerate(docs, start=1)]
    response = json_response(body)
    return truncated(response) if mode == "malformed" else response
