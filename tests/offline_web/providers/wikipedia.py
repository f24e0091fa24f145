"""Wikipedia simulator: the Action API search (`/w/api.php`) and the REST page summary.

As MediaWiki (providers/data/wikipedia.json): API errors are HTTP 200 with an `error` object
and a `MediaWiki-API-Error` header (a missing `srsearch` is `missingparam`); a client without
a descriptive User-Agent gets 403 (Wikimedia's UA policy, also what `auth` plays); a 429
carries Retry-After. Search snippets mark matches with `span.searchmatch`.
"""

from __future__ import annotations

import copy
import html
from typing import Any
from urllib.parse import quote, unquote

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

NAME = "wikipedia"
HOSTS = ("wikipedia.test", "en.wikipedia.test", "de.wikipedia.test")
MODES = COMMON_MODES
JSON_TYPE = {"Content-Type": "application/json; charset=utf-8"}
_GENERIC_AGENTS = ("python-requests", "python-httpx", "python-urllib", "curl", "wget", "java")


def _forbidden() -> Response:
    text = (
        '<!DOCTYPE html><html lang="en"><meta charset="utf-8"><title>Wikimedia Error</title>'
        "<p>Please set a user-agent and respect our robot policy"
        " https://w.wiki/4wJS. See also https://phabricator.wikimedia.org/T400119.</p></html>"
    )
    return Response(text.encode(), 403, headers={"Content-Type": "text/html; charset=utf-8"})


def _api_error(code: str, info: str) -> Response:
    body = example_body(NAME, "action_error_missing_param")
    body["error"].update(code=code, info=info)
    return json_response(body, headers={**JSON_TYPE, "MediaWiki-API-Error": code})


def _search_item(template: dict[str, Any], doc: Any, query: str, n: int) -> dict[str, Any]:
    item = copy.deepcopy(template)
    item.update(
        title=doc.title,
        pageid=24_000_000 + n,
        snippet=highlight(html.escape(doc.snippet), query, '<span class="searchmatch">', "</span>"),
        timestamp=f"{doc.published or '2026-01-01'}T12:00:00Z",
    )
    return item


def _summary(request: Request, title: str, mode: str) -> Response:
    if mode == "noresults":
        body = example_body(NAME, "summary_not_found")
        body["uri"] = f"/{request.url.hostname}/v1/page/summary/{quote(title)}"
        return json_response(body, status=404, headers={"Content-Type": "application/problem+json"})
    body = example_body(NAME, "summary_ok")
    shown = title.replace("_", " ")
    body.update(
        title=shown, displaytitle=f'<span class="mw-page-title-main">{html.escape(shown)}</span>'
    )
    body["titles"].update(canonical=title, normalized=shown, display=body["displaytitle"])
    page = f"https://{request.url.hostname}/wiki/{quote(title)}"
    body["content_urls"]["desktop"]["page"] = page
    body["extract"] = f"{shown} is the subject of this article; it covers its history and design."
    body["extract_html"] = f"<p><b>{html.escape(shown)}</b> is the subject of this article.</p>"
    return json_response(body, headers=JSON_TYPE)


async def handle(request: Request, knob: Knob, seen: Seen) -> Response:
    path = request.url.path
    summary = "/page/summary/" in path
    if not summary and not path.endswith("/api.php"):
        return Response(b"Not Found", 404, headers={"Content-Type": "text/html; charset=utf-8"})
    mode = knob.take("summary" if summary else "search")
    if mode == "timeout":
        return await hang(request, knob.hang)
    agent = seen.headers.get("user-agent", "").lower()
    if mode == "auth" or not agent or agent.startswith(_GENERIC_AGENTS):
        return _forbidden()
    if mode == "rate_limit":
        return replay(NAME, "rate_limited", headers={"Retry-After": str(knob.retry_after)})
    if mode == "server_error":
        return Response(
            b"Wikimedia Error", 503, headers={"Content-Type": "text/html; charset=utf-8"}
        )
    if mode == "empty":
        return Response(b"", headers=JSON_TYPE)
    if summary:
        title = unquote(path.split("/page/summary/", 1)[1])
        response = _summary(request, title, mode)
        return truncated(response) if mode == "malformed" else response
    params = seen.params
    if params.get("action") != "query" or params.get("list") != "search":
        return _api_error("badvalue", 'Unrecognized value for parameter "action" or "list".')
    query = params.get("srsearch", "")
    if not query.strip():
        return replay(NAME, "action_error_missing_param")
    limit = int_param(params.get("srlimit"), 10)
    offset = int_param(params.get("sroffset"), 0)
    if limit is None or not 1 <= limit <= 500 or offset is None or offset < 0:
        return _api_error("badinteger", 'Invalid value for "srlimit" or "sroffset".')
    if mode == "noresults":
        body = example_body(NAME, "action_search_empty_with_suggestion")
        body["query"]["searchinfo"].pop("suggestion", None)
        body["query"]["searchinfo"].pop("suggestionsnippet", None)
        return json_response(body, headers=JSON_TYPE)
    body = example_body(NAME, "action_search_ok")
    template = body["query"]["search"][0]
    asked = DECOY_QUERY if mode == "decoy" else query
    docs = documents(asked, offset + limit, provider=NAME, link_port=knob.link_port)[offset:]
    body["query"]["search"] = [
        _search_item(template, doc, asked, n) for n, doc in enumerate(docs, start=1)
    ]
    body["query"]["searchinfo"]["totalhits"] = 10
    if offset + len(docs) < 10:
        body["continue"] = {"sroffset": offset + len(docs), "continue": "-||"}
    else:
        body.pop("continue", None)
    response = json_response(body, headers=JSON_TYPE)
    return truncated(response) if mode == "malformed" else response
