"""SearXNG simulator: `GET|POST /search` (and `/`) with `format=json` (searxng.json).

Checks what an instance checks: `format` must be `json` (the `auth` mode plays an instance
whose settings.yml leaves JSON disabled: Flask's 403 page), `q` required (400 "No query"),
`pageno` ≥ 1 and `safesearch` 0/1/2 (400 "Invalid value …"). With `knob_limiter` on, the bot
detection of public instances applies (429 "Too Many Requests" for curl-like clients).
`outage` answers 200 with no results and every engine unresponsive.
"""

from __future__ import annotations

import copy
from typing import Any
from urllib.parse import urlsplit

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

NAME = "searxng"
HOSTS = ("searxng.test",)
MODES = COMMON_MODES | {"outage", "limiter"}
_BOTS = ("curl", "wget", "python-requests", "python", "go-http-client", "java", "libwww")


def _limited(seen: Seen) -> bool:
    """SearXNG's botdetection (server.limiter: true) on the request's headers."""
    headers = seen.headers
    agent = headers.get("user-agent", "").lower()
    return (
        "text/html" not in headers.get("accept", "")
        or not any(e in headers.get("accept-encoding", "") for e in ("gzip", "deflate"))
        or not headers.get("accept-language")
        or not agent
        or agent.startswith(_BOTS)
    )


def _result(template: dict[str, Any], doc: Any, position: int) -> dict[str, Any]:
    item = copy.deepcopy(template)
    parts = urlsplit(doc.url)
    item.update(
        url=doc.url,
        title=doc.title,
        content=doc.snippet,
        parsed_url=[parts.scheme, parts.netloc, parts.path, "", parts.query, ""],
        publishedDate=f"{doc.published}T00:00:00" if doc.published else None,
        engine="duckduckgo",
        engines=["duckduckgo", "brave"],
        positions=[position, position],
        score=round(4.0 / position, 3),
    )
    return item


async def handle(request: Request, knob: Knob, seen: Seen) -> Response:
    if request.url.path.rstrip("/") not in ("", "/search"):
        return Response(b"Not Found", 404, headers={"Content-Type": "text/html; charset=utf-8"})
    mode = knob.take()
    if mode == "timeout":
        return await hang(request, knob.hang)
    params = dict(seen.params)
    if request.method == "POST":
        params.update(seen.form())
    if mode == "limiter" and _limited(seen):
        return replay(NAME, "limiter_blocked")
    if mode == "auth" and params.get("format") == "json":
        return replay(NAME, "json_format_disabled")
    if params.get("format") != "json":
        return Response(
            b"<!DOCTYPE html><html><body><p>results as HTML</p></body></html>",
            headers={"Content-Type": "text/html; charset=utf-8"},
        )
    query = params.get("q", "").strip()
    if not query:
        return replay(NAME, "empty_query")
    for name, allowed in (("pageno", None), ("safesearch", (0, 1, 2))):
        value = int_param(params.get(name), 1)
        if (
            value is None
            or value < (1 if name == "pageno" else 0)
            or (allowed and value not in allowed)
        ):
            return json_response(
                {"error": f"Invalid value {params.get(name)!r} for parameter {name}"}, status=400
            )
    time_range = params.get("time_range")
    if time_range and time_range not in ("day", "week", "month", "year"):
        return json_response(
            {"error": f"Invalid value {time_range!r} for parameter time_range"}, status=400
        )
    if mode == "rate_limit":
        return replay(NAME, "limiter_blocked")
    if mode == "server_error":
        return json_response({"error": "search error"}, status=500)
    if mode == "empty":
        return Response(b"", headers={"Content-Type": "application/json"})
    if mode == "outage":
        body = example_body(NAME, "search_empty_all_engines_failed")
        body["query"] = query
        return json_response(body)
    body = example_body(NAME, "search_ok")
    template = body["results"][0]
    body["query"] = query
    body["unresponsive_engines"] = []
    if mode == "noresults":
        body.update(results=[], infoboxes=[], suggestions=[])
        return json_response(body)
    pageno = int_param(params.get("pageno"), 1) or 1
    asked = DECOY_QUERY if mode == "decoy" else query
    docs = documents(asked, 10 * pageno, provider=NAME, link_port=knob.link_port)[
        10 * (pageno - 1) :
    ]
    body["results"] = [_result(template, doc, n) for n, doc in enumerate(docs, start=1)]
    response = json_response(body, headers={"Server-Timing": "total;dur=812.4"})
    return truncated(response) if mode == "malformed" else response
