"""SerpApi simulator: `GET /search.json` for `engine=google` and `engine=bing` (serpapi.json).

netsift's `bing` provider goes through here too (Bing's own API is retired). Checks: `api_key`
(missing or wrong → 401), `q` (400 "Missing query `q` parameter."), a known `engine`; Google
pages with `num`/`start`, Bing with `count` (1-50)/`first`. An empty answer is 200 with a
top-level `error` string, as SerpApi sends it. `quota` is the 429 "run out of searches".
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

NAME = "serpapi"
HOSTS = ("serpapi.test",)
MODES = COMMON_MODES | {"quota", "forbidden"}
KEY = "serpapi-test-0000000000000000000000000000000000000000000000000000000000000000"
JSON_TYPE = {"Content-Type": "application/json; charset=utf-8"}


def _error(message: str, status: int) -> Response:
    return json_response({"error": message}, status=status, headers=JSON_TYPE)


def _result(template: dict[str, Any], doc: Any, position: int) -> dict[str, Any]:
    item = copy.deepcopy(template)
    item.update(
        position=position,
        title=doc.title,
        link=doc.url,
        displayed_link=f"https://{doc.host}",
        snippet=doc.snippet,
        snippet_highlighted_words=[],
        source=doc.host,
    )
    item.pop("redirect_link", None)
    item.pop("sitelinks", None)
    if doc.published:
        item["date"] = doc.published
    return item


async def handle(request: Request, knob: Knob, seen: Seen) -> Response:
    if request.url.path.rstrip("/") not in ("/search.json", "/search"):
        return _error("Not found", 404)
    mode = knob.take()
    if mode == "timeout":
        return await hang(request, knob.hang)
    params = seen.params
    if params.get("api_key") != KEY or mode == "auth":
        return replay(NAME, "auth_invalid")
    if mode == "forbidden":
        return replay(NAME, "account_forbidden")
    engine = params.get("engine", "google")
    if engine not in ("google", "bing"):
        return _error(f"Unsupported `{engine}` search engine.", 400)
    query = params.get("q", "")
    if not query.strip():
        return replay(NAME, "missing_query")
    if engine == "bing":
        count = int_param(params.get("count"), 10)
        if count is None or not 1 <= count <= 50:
            return _error("`count` must be between 1 and 50.", 400)
    else:
        count = int_param(params.get("num"), 10)
        if count is None or not 1 <= count <= 100:
            return _error("`num` must be between 1 and 100.", 400)
    if mode == "rate_limit":
        return _error("You have exceeded the hourly throughput limit for your plan.", 429)
    if mode == "quota":
        return replay(NAME, "out_of_searches")
    if mode == "server_error":
        return _error("Internal server error.", 500)
    if mode == "empty":
        return Response(b"", headers=JSON_TYPE)
    scenario = "bing_search_ok" if engine == "bing" else "google_search_ok"
    body = example_body(NAME, scenario)
    template = body["organic_results"][0]
    body["search_parameters"].update(q=query)
    body["search_information"]["query_displayed"] = query
    if mode == "noresults":
        empty = example_body(NAME, "google_no_results")
        empty["search_parameters"].update(engine=engine, q=query)
        empty["search_information"]["query_displayed"] = query
        return json_response(empty, headers=JSON_TYPE)
    asked = DECOY_QUERY if mode == "decoy" else query
    docs = documents(
        asked, count, provider="bing" if engine == "bing" else "serpapi", link_port=knob.link_port
    )
    body["organic_results"] = [_result(template, d, n) for n, d in enumerate(docs, start=1)]
    response = json_response(body, headers=JSON_TYPE)
    return truncated(response) if mode == "malformed" else response
