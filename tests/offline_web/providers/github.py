"""GitHub repository search simulator: `GET /search/repositories` (providers/data/github.json).

As the REST API: a token is optional, a bad one is 401 "Bad credentials"; `q` empty → 422
Validation Failed; `per_page` ≤ 100 and only the first 1,000 results (422 beyond). Rate
headers on every answer. `rate_limit` is the secondary limit (429 + retry-after); `quota`
the primary one (403 + `x-ratelimit-remaining: 0`).
"""

from __future__ import annotations

import copy
import time
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from .corpus import documents, slug
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

NAME = "github"
HOSTS = ("github.test",)
MODES = COMMON_MODES | {"quota"}
TOKEN = "ghp_test000000000000000000000000000000"
JSON_TYPE = {"Content-Type": "application/json; charset=utf-8"}


def _rate(remaining: int, limit: int) -> dict[str, str]:
    return {
        "x-ratelimit-limit": str(limit),
        "x-ratelimit-remaining": str(remaining),
        "x-ratelimit-reset": str(int(time.time()) + 60),
        "x-ratelimit-used": str(limit - remaining),
        "x-ratelimit-resource": "search",
    }


def _repo(template: dict[str, Any], doc: Any, n: int) -> dict[str, Any]:
    repo = copy.deepcopy(template)
    name = f"{slug(doc.title)[:40]}"
    owner = doc.host.split(".")[0]
    repo.update(
        id=48_000_000 + n,
        name=name,
        full_name=f"{owner}/{name}",
        html_url=f"https://github.com/{owner}/{name}",
        description=doc.snippet,
        homepage=doc.url,
        stargazers_count=1000 // n,
        pushed_at=f"{doc.published or '2026-01-01'}T10:00:00Z",
        updated_at=f"{doc.published or '2026-01-01'}T10:00:00Z",
    )
    repo["owner"]["login"] = owner
    repo["owner"]["html_url"] = f"https://github.com/{owner}"
    return repo


async def handle(request: Request, knob: Knob, seen: Seen) -> Response:
    if request.url.path.rstrip("/") != "/search/repositories":
        return json_response({"message": "Not Found"}, status=404, headers=JSON_TYPE)
    mode = knob.take()
    if mode == "timeout":
        return await hang(request, knob.hang)
    authorization = seen.headers.get("authorization")
    signed_in = authorization is not None
    limit = 30 if signed_in else 10
    if (signed_in and authorization != f"Bearer {TOKEN}") or mode == "auth":
        return replay(NAME, "bad_credentials")
    params = seen.params
    query = params.get("q", "")
    if not query.strip():
        return replay(NAME, "validation_failed")
    per_page = int_param(params.get("per_page"), 30)
    page = int_param(params.get("page"), 1)
    if per_page is None or page is None or not 1 <= per_page <= 100 or page < 1:
        return replay(NAME, "validation_failed")
    if page * per_page > 1000:
        return replay(NAME, "beyond_first_1000")
    if mode == "rate_limit":
        headers = {"retry-after": str(knob.retry_after), **_rate(limit // 2, limit)}
        return replay(NAME, "rate_limited_secondary", headers=headers)
    if mode == "quota":
        return replay(NAME, "rate_limited_primary", headers=_rate(0, limit))
    if mode == "server_error":
        return json_response({"message": "Server Error"}, status=502, headers=JSON_TYPE)
    headers = {**JSON_TYPE, **_rate(limit - 1, limit)}
    if mode == "empty":
        return Response(b"", headers=headers)
    body = example_body(NAME, "search_repositories_ok")
    template = body["items"][0]
    words = " ".join(w for w in query.split() if ":" not in w)  # qualifiers are not text
    asked = DECOY_QUERY if mode == "decoy" else words
    docs = (
        []
        if mode == "noresults"
        else documents(asked, page * per_page, provider=NAME, link_port=knob.link_port)
    )
    docs = docs[(page - 1) * per_page :]
    body.update(total_count=len(docs), incomplete_results=False)
    body["items"] = [_repo(template, doc, n) for n, doc in enumerate(docs, start=1)]
    response = json_response(body, headers=headers)
    return truncated(response) if mode == "malformed" else response
