"""Tavily simulator: `POST /search` with a JSON body (providers/data/tavily.json).

Auth as the real API: `Authorization: Bearer tvly-…` (or the legacy `api_key` in the body);
neither or a wrong one → 401 `{"detail": {"error": …}}`. `query` required and ≤ 400 chars,
`max_results` 0-20 (400 otherwise). `quota` answers 432 (plan limit). No rate-limit headers.
"""

from __future__ import annotations

import copy
import json
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

NAME = "tavily"
HOSTS = ("tavily.test",)
MODES = COMMON_MODES | {"quota"}
KEY = "tvly-dev-0000000000000000000000000000"


def _bad_request(message: str) -> Response:
    return json_response({"detail": {"error": message}}, status=400)


def _result(
    template: dict[str, Any], doc: Any, position: int, body: dict[str, Any]
) -> dict[str, Any]:
    item = copy.deepcopy(template)
    item.update(url=doc.url, title=doc.title, content=doc.snippet)
    item["score"] = round(0.95 - 0.05 * position, 4)
    if body.get("include_favicon"):
        item["favicon"] = f"https://{doc.host}/favicon.ico"
    else:
        item.pop("favicon", None)
    if body.get("topic") == "news" and doc.published:
        item["published_date"] = f"{doc.published}T00:00:00Z"
    return item


async def handle(request: Request, knob: Knob, seen: Seen) -> Response:
    if request.method != "POST" or request.url.path.rstrip("/") != "/search":
        return json_response({"detail": {"error": "Not Found"}}, status=404)
    mode = knob.take()
    if mode == "timeout":
        return await hang(request, knob.hang)
    try:
        body = json.loads(seen.body or b"{}")
    except json.JSONDecodeError:
        return _bad_request("Invalid JSON body.")
    if not isinstance(body, dict):
        return _bad_request("Invalid JSON body.")
    bearer = seen.headers.get("authorization", "")
    key = (
        bearer.removeprefix("Bearer ").strip()
        if bearer.startswith("Bearer ")
        else body.get("api_key")
    )
    if key != KEY or mode == "auth":
        return replay(NAME, "auth_invalid")
    query = body.get("query")
    if not isinstance(query, str) or not query.strip():
        return _bad_request("Query is missing.")
    if len(query) > 400:
        return replay(NAME, "bad_request_query_too_long")
    count = body.get("max_results", 5)
    if not isinstance(count, int) or not 0 <= count <= 20:
        return _bad_request("max_results must be between 0 and 20.")
    if mode == "rate_limit":
        return replay(NAME, "rate_limited")
    if mode == "quota":
        return replay(NAME, "plan_limit_exceeded")
    if mode == "server_error":
        return json_response({"detail": {"error": "Internal Server Error"}}, status=500)
    if mode == "empty":
        return Response(b"", headers={"Content-Type": "application/json"})
    answer = example_body(NAME, "search_ok")
    template = answer["results"][0]
    answer["query"] = query
    asked = DECOY_QUERY if mode == "decoy" else query
    docs = (
        []
        if mode == "noresults"
        else documents(asked, count, provider=NAME, link_port=knob.link_port)
    )
    answer["results"] = [_result(template, d, n, body) for n, d in enumerate(docs, start=1)]
    response = json_response(answer)
    return truncated(response) if mode == "malformed" else response
