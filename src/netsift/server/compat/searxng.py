"""SearXNG's JSON search API (LangChain's `SearxSearchWrapper`, Open WebUI, Perplexica, GPT
Researcher) over netsift: `GET /search?q=…&format=json`, and `GET /?q=…&format=json` for the
callers that query the base URL as given. A client switches by pointing its SearXNG URL at
netsift (`http://HOST:8080`, or `…/search` where it wants the full query URL).

JSON is answered whenever `format=json`, whatever the Accept header (Open WebUI sends
`text/html`). Every result has a numeric `score`, `engines` and `category` (clients index and
sort on them). Providers that failed are in `unresponsive_engines`, and a search where every
provider failed is an empty 200 that says so, as SearXNG answers.

SearXNG's callers send no key. When the server requires keys, they give one in an
`Authorization: Bearer` header (LangChain's `headers=`), or the operator admits keyless callers
from named networks only (`NETSIFT_SEARXNG_KEYLESS_NETWORKS`, e.g. the Open WebUI container's
address): never a key in the URL, and quotas and rate limits still count per address.
"""

from __future__ import annotations

import ipaddress
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import JSONResponse

from ...errors import AllProvidersFailed, InvalidInput, NetsiftError, Unauthorized
from ...models import Attempt, SafeSearch, SearchResponse, SearchResult
from ...params import MAX_QUERY_CHARS
from ..deps import Caller, StateDep, authenticate, state_of
from ..operations import Operations
from ..responses import SearchRequest, status_of
from .shared import build, error_reply, rank_score, time_range_of

__all__ = ["PREFIX", "render_error", "router"]

PREFIX = "/searxng"
# SearXNG pages hold ten results; netsift has no offset, so page N is read as the top N*10 and
# sliced, up to netsift's 50-result ceiling (page 5). Later pages are empty, as at the end.
PAGE_SIZE = 10
MAX_COUNT = 50
_SAFESEARCH: dict[str, SafeSearch] = {"0": "off", "1": "moderate", "2": "strict"}
# SearXNG categories netsift's providers answer; any other is searched as general web.
_CATEGORY_PROVIDERS = {
    "science": ("arxiv", "crossref", "openalex"),
    "it": ("github",),
}

router = APIRouter(prefix=PREFIX, tags=["compat: searxng"], include_in_schema=False)


def render_error(error: NetsiftError) -> JSONResponse:
    status = status_of(error)
    return error_reply({"error": error.message}, error, status=status)


async def admit(request: Request, state: StateDep) -> Caller:
    """The caller: a key when given or required, else an address the operator named."""
    keyless = state.settings.searxng_keyless_networks
    if state.auth.required and "authorization" not in request.headers and keyless:
        host = request.client.host if request.client else ""
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            address = None
        networks = [ipaddress.ip_network(cidr, strict=False) for cidr in keyless]
        if address is None or not any(address in network for network in networks):
            raise Unauthorized(
                "this server needs an API key: send Authorization: Bearer <key>, or ask the "
                "operator to admit your address in NETSIFT_SEARXNG_KEYLESS_NETWORKS"
            )
        caller = Caller(key=f"ip-{host}", label="searxng-keyless")
    else:
        caller = authenticate(state, request)
    await state.limits.hit_request(caller.key)
    return caller


def _providers(engines: str, categories: str, configured: list[str]) -> list[str] | None:
    """The providers asked for by SearXNG engine names, else by category; None: the default."""
    named = [name.strip() for name in engines.split(",") if name.strip()]
    if known := [name for name in named if name in configured]:
        return known
    for category in categories.split(","):
        if providers := _CATEGORY_PROVIDERS.get(category.strip()):
            return [name for name in providers if name in configured] or None
    return None


def _result(result: SearchResult, position: int, category: str) -> dict[str, Any]:
    engines = result.engines or [result.source]
    return {
        "url": result.url,
        "title": result.title,
        "content": result.snippet,
        "engine": result.source,
        "engines": engines,
        "score": rank_score(position),
        "category": category,
        "positions": [position],
        "publishedDate": result.published,
        "thumbnail": result.thumbnail,
    }


def _infoboxes(results: list[SearchResult]) -> list[dict[str, Any]]:
    """Wikipedia's top result as SearXNG's infobox, the way its Wikipedia engine shows it."""
    for result in results:
        if result.source == "wikipedia":
            return [
                {
                    "infobox": result.title,
                    "id": result.url,
                    "content": result.snippet,
                    "img_src": result.thumbnail,
                    "urls": [{"title": "Wikipedia", "url": result.url}],
                    "engine": "wikipedia",
                    "engines": ["wikipedia"],
                }
            ]
    return []


def _unresponsive(attempts: list[Attempt] | list[dict[str, Any]]) -> list[list[str]]:
    failed = []
    for attempt in attempts:
        data = attempt.model_dump() if isinstance(attempt, Attempt) else attempt
        if not data.get("ok"):
            failed.append([str(data.get("provider")), str(data.get("error_code") or "error")])
    return failed


@router.get("/search", summary="SearXNG-compatible search (format=json)")
async def search(
    request: Request,
    state: StateDep,
    caller: Annotated[Caller, Depends(admit)],
    q: Annotated[str, Query(max_length=MAX_QUERY_CHARS)] = "",
    format: str = "json",
    pageno: Annotated[int, Query(ge=1)] = 1,
    time_range: str = "",
    safesearch: str = "",
    language: str = "",
    categories: str = "general",
    engines: str = "",
) -> dict[str, Any]:
    if not q.strip():
        raise InvalidInput("No query")
    if format != "json":
        raise InvalidInput(f"format={format} is not served; netsift answers format=json")
    ops = Operations(state_of(request), caller)
    category = categories.split(",")[0].strip() or "general"
    region = None if language in ("", "all", "auto") else language
    params = build(
        SearchRequest,
        query=q,
        count=min(MAX_COUNT, pageno * PAGE_SIZE),
        providers=_providers(engines, categories, list(state.settings.providers)),
        time_range=time_range_of(time_range),
        region=region,
        safesearch=_SAFESEARCH.get(safesearch, "moderate"),
    )
    try:
        response: SearchResponse = await ops.search(params)
    except AllProvidersFailed as error:
        return _answer(q, [], category, _unresponsive(error.details.get("attempts", [])))
    page = response.results[(pageno - 1) * PAGE_SIZE : pageno * PAGE_SIZE]
    return _answer(q, page, category, _unresponsive(response.attempts), first=(pageno - 1) * 10)


def _answer(
    query: str,
    results: list[SearchResult],
    category: str,
    unresponsive: list[list[str]],
    *,
    first: int = 0,
) -> dict[str, Any]:
    return {
        "query": query,
        "number_of_results": len(results),
        "results": [_result(r, first + n, category) for n, r in enumerate(results, 1)],
        "answers": [],
        "corrections": [],
        "infoboxes": _infoboxes(results),
        "suggestions": [],
        "unresponsive_engines": unresponsive,
    }
