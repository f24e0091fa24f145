"""Brave Search API simulator: `GET|POST /res/v1/web/search` (providers/data/brave.json).

Checks what the real API checks: `X-Subscription-Token` (missing → 422 VALIDATION, wrong →
422 SUBSCRIPTION_TOKEN_INVALID), `q` required, `count` 1-20, `offset` 0-9. Sends the rate-limit
headers on every answer; a 429 says when to retry in `X-RateLimit-Reset` (Brave sends no
Retry-After).
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
    highlight,
    int_param,
    json_response,
    replay,
    truncated,
)

NAME = "brave"
HOSTS = ("brave.test",)
MODES = COMMON_MODES | {"quota"}
KEY = "BSA-test-0000000000000000000000000"
PATH = "/res/v1/web/search"


def _limits(retry_after: int, *, monthly_left: int = 1987) -> dict[str, str]:
    return {
        "X-RateLimit-Limit": "1, 2000",
        "X-RateLimit-Policy": "1;w=1, 2000;w=2592000",
        "X-RateLimit-Remaining": f"0, {monthly_left}",
        "X-RateLimit-Reset": f"{retry_after}, 1468211",
    }


def _validation(loc: list[str], msg: str, kind: str = "missing") -> Response:
    body = example_body(NAME, "validation_missing_q")
    body["error"]["meta"]["errors"] = [{"type": kind, "loc": loc, "msg": msg}]
    return json_response(body, status=422)


async def _params(request: Request, seen: Seen) -> dict[str, str]:
    if request.method == "POST" and seen.body:
        data = json.loads(seen.body)
        return {k: str(v) for k, v in data.items()}
    return dict(seen.params)


def _result(template: dict[str, Any], doc: Any, query: str, *, extra: bool) -> dict[str, Any]:
    item = copy.deepcopy(template)
    item["title"] = doc.title
    item["url"] = doc.url
    item["description"] = highlight(doc.snippet, query, "<strong>", "</strong>")
    item["profile"].update(url=doc.url, long_name=doc.host, name=doc.host.split(".")[0].title())
    item["meta_url"].update(netloc=doc.host, hostname=doc.host, path=f"› {doc.display}")
    item["thumbnail"]["original"] = f"https://{doc.host}/social.png"
    if doc.published:
        item["page_age"] = f"{doc.published}T09:00:00"
        item["age"] = doc.published
    else:
        item.pop("page_age", None)
        item.pop("age", None)
    if extra:
        item["extra_snippets"] = [f"More about {query} on {doc.host}."]
    else:
        item.pop("extra_snippets", None)
    return item


async def handle(request: Request, knob: Knob, seen: Seen) -> Response:
    if not request.url.path.endswith("/web/search"):
        return json_response({"type": "ErrorResponse", "error": {"status": 404}}, status=404)
    mode = knob.take()
    if mode == "timeout":
        return await hang(request, knob.hang)
    token = seen.headers.get("x-subscription-token")
    if not token:
        return _validation(["header", "x-subscription-token"], "Field required")
    if token != KEY or mode == "auth":
        return replay(NAME, "auth_invalid_token")
    params = await _params(request, seen)
    query = params.get("q", "")
    if not query:
        return _validation(["query", "q"], "Field required")
    count = int_param(params.get("count"), 20)
    if count is None or not 1 <= count <= 20:
        return _validation(["query", "count"], "Input should be between 1 and 20", "range")
    offset = int_param(params.get("offset"), 0)
    if offset is None or not 0 <= offset <= 9:
        return _validation(["query", "offset"], "Input should be between 0 and 9", "range")
    if mode == "rate_limit":
        return replay(NAME, "rate_limited", headers=_limits(knob.retry_after))
    if mode == "quota":
        return replay(NAME, "quota_exhausted")
    if mode == "server_error":
        return json_response(
            {"type": "ErrorResponse", "error": {"status": 500, "code": "INTERNAL_ERROR"}},
            status=500,
        )
    headers = {"X-RateLimit-Remaining": "0, 1987"}
    if mode == "empty":
        return Response(b"", headers={"Content-Type": "application/json", **headers})
    if mode == "noresults":
        body = example_body(NAME, "search_empty")
        body["query"]["original"] = query
        return json_response(body, headers=headers)
    body = example_body(NAME, "search_ok")
    template = body["web"]["results"][0]
    asked = DECOY_QUERY if mode == "decoy" else query
    docs = documents(asked, count, provider=NAME, link_port=knob.link_port)
    extra = params.get("extra_snippets", "").lower() in ("1", "true")
    body["query"]["original"] = query
    body["web"]["results"] = [_result(template, doc, asked, extra=extra) for doc in docs]
    body["mixed"]["main"] = [{"type": "web", "index": i, "all": False} for i in range(len(docs))]
    response = json_response(body, headers=_limits(1) | {"X-RateLimit-Remaining": "0, 1987"})
    return truncated(response) if mode == "malformed" else response
