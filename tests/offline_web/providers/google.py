"""Google Programmable Search (Custom Search JSON API) simulator: `GET /customsearch/v1`.

As the real API (providers/data/google.json): no `key` → 403 PERMISSION_DENIED, a wrong one
→ 400 API_KEY_INVALID, a wrong `cx` or a bad `num` (1-10) / `start + num > 100` → 400
INVALID_ARGUMENT. No `items` key at all when nothing matches. `rate_limit` is the per-minute
429 RESOURCE_EXHAUSTED, `quota` the per-day one; `auth` the closed-to-new-projects 403.
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
    highlight,
    int_param,
    json_response,
    replay,
    truncated,
)

NAME = "google"
HOSTS = ("google.test",)
MODES = COMMON_MODES | {"quota"}
KEY = "AIzaSyTEST0000000000000000000000000000"
CX = "0123456789abcdef0"
JSON_TYPE = {"Content-Type": "application/json; charset=UTF-8"}


def _item(template: dict[str, Any], doc: Any, query: str) -> dict[str, Any]:
    item = copy.deepcopy(template)
    snippet = f"{doc.published} ... {doc.snippet}" if doc.published else doc.snippet
    item.update(
        title=doc.title,
        htmlTitle=highlight(doc.title, query, "<b>", "</b>"),
        link=doc.url,
        displayLink=doc.host,
        snippet=snippet,
        htmlSnippet=highlight(snippet, query, "<b>", "</b>"),
        formattedUrl=doc.url,
        htmlFormattedUrl=doc.url,
    )
    item["pagemap"]["metatags"] = [{"og:title": doc.title, "og:type": "article"}]
    if doc.published:
        item["pagemap"]["metatags"][0]["article:published_time"] = f"{doc.published}T08:00:00Z"
    return item


async def handle(request: Request, knob: Knob, seen: Seen) -> Response:
    if request.url.path.rstrip("/") != "/customsearch/v1":
        return json_response({"error": {"code": 404, "message": "Not Found"}}, status=404)
    mode = knob.take()
    if mode == "timeout":
        return await hang(request, knob.hang)
    params = seen.params
    if not params.get("key"):
        return replay(NAME, "not_enabled_or_closed")
    if params["key"] != KEY:
        return replay(NAME, "auth_invalid_key")
    if mode == "auth":
        return replay(NAME, "not_enabled_or_closed")
    query = params.get("q", "")
    num = int_param(params.get("num"), 10)
    start = int_param(params.get("start"), 1)
    if (
        params.get("cx") != CX
        or not query.strip()
        or num is None
        or start is None
        or not 1 <= num <= 10
        or start < 1
        or start + num > 101
    ):
        return replay(NAME, "start_out_of_range")
    if mode == "rate_limit":
        body = example_body(NAME, "quota_exceeded")
        body["error"]["message"] = body["error"]["message"].replace("per day", "per minute")
        return json_response(body, status=429, headers=JSON_TYPE)
    if mode == "quota":
        return replay(NAME, "quota_exceeded")
    if mode == "server_error":
        return json_response({"error": {"code": 503, "status": "UNAVAILABLE"}}, status=503)
    if mode == "empty":
        return Response(b"", headers=JSON_TYPE)
    if mode == "noresults":
        body = example_body(NAME, "no_results")
        body["queries"]["request"][0]["searchTerms"] = query
        return json_response(body, headers=JSON_TYPE)
    body = example_body(NAME, "search_ok")
    template = body["items"][0]
    asked = DECOY_QUERY if mode == "decoy" else query
    docs = documents(asked, start - 1 + num, provider=NAME, link_port=knob.link_port)[start - 1 :]
    for page in (*body["queries"]["request"], *body["queries"]["nextPage"]):
        page.update(searchTerms=query, count=num, title=f"Google Custom Search - {query}")
    body["queries"]["request"][0]["startIndex"] = start
    body["queries"]["nextPage"][0]["startIndex"] = start + num
    body["items"] = [_item(template, doc, asked) for doc in docs]
    response = json_response(body, headers=JSON_TYPE)
    return truncated(response) if mode == "malformed" else response
