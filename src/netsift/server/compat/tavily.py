"""Tavily's API (`tavily-python`, LangChain's Tavily tools) over netsift: `/tavily/search`,
`/tavily/extract`, `/tavily/map`, `/tavily/crawl` and `/tavily/research`. A client switches with
`api_base_url="http://HOST:8080/tavily"`; its API key is a netsift key (`Authorization:
Bearer`, Tavily's own scheme).

Tavily's clients send every documented field and pass arbitrary extras through, so unknown
fields are ignored, not refused. Errors take Tavily's shape, `{"detail": {"error": "…"}}`,
which is where tavily-python reads the message from.
"""

from __future__ import annotations

import time
import uuid
from typing import Any, Literal
from urllib.parse import urlsplit

import regex
from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from ...context import fill
from ...crawl.scope import PATTERN_TIMEOUT, Scope, check_patterns
from ...errors import InvalidInput, NetsiftError
from ...models import ContentFormat, Page, SearchResponse, SearchResult
from ...params import (
    CONTEXT_MAX_TOKENS,
    MAX_MAP_LIMIT,
    MAX_QUERY_CHARS,
    ContextParams,
    Depth,
    ResearchParams,
)
from ..deps import CallerDep, StateDep
from ..operations import Operations
from ..responses import ExtractDataRequest, MapRequest, SearchRequest, status_of
from .kept import Kept
from .shared import (
    build,
    crawl_include,
    error_reply,
    in_domains,
    parse_body,
    rank_score,
    read_pages,
    time_range_of,
)

__all__ = ["PREFIX", "render_error", "router"]

PREFIX = "/tavily"
# Tavily's own bounds: at most 20 results per search and 20 URLs per extract call.
MAX_RESULTS = 20
MAX_CHUNKS = 3  # Tavily's own bound on chunks_per_source
CHUNK_JOIN = " [...] "  # how Tavily joins a result's chunks in its `content`
MAX_EXTRACT_URLS = 20
# With domain filters, netsift asks for more results than wanted and filters them, since not
# every provider understands `site:`; three times covers a filter that keeps a third.
FILTER_OVERFETCH = 3
MAX_SEARCH_COUNT = 50  # netsift's own per-search ceiling (params.py)
# Tavily's crawl `timeout` default (seconds, tavily-python's too); the same number is the
# client's HTTP timeout, so the crawl must end a little before it: it stops at this share of
# the time and answers with the pages it has, leaving the rest for reading and sending them.
DEFAULT_CRAWL_TIMEOUT = 150.0
CRAWL_TIME_SHARE = 0.9

router = APIRouter(prefix=PREFIX, tags=["compat: tavily"], include_in_schema=False)


class _Lenient(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)


class TavilySearch(_Lenient):
    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    search_depth: str = "basic"
    topic: str = "general"
    time_range: str | None = None
    days: int | None = None
    max_results: int = Field(default=5, ge=0, le=MAX_RESULTS)
    include_domains: list[str] = Field(default_factory=list)
    exclude_domains: list[str] = Field(default_factory=list)
    include_answer: bool | Literal["basic", "advanced"] = False
    include_raw_content: bool | Literal["markdown", "text"] = False
    include_images: bool = False
    include_favicon: bool = False
    include_usage: bool = False
    country: str | None = None
    chunks_per_source: int = Field(default=3, ge=1, le=MAX_CHUNKS)


class TavilyExtract(_Lenient):
    urls: list[str] | str
    format: Literal["markdown", "text"] = "markdown"
    include_images: bool = False
    include_favicon: bool = False
    include_usage: bool = False
    timeout: float | None = Field(default=None, gt=0, le=300)


class _TavilySite(_Lenient):
    """What Tavily's map and crawl both take: a site, its bounds and a budget."""

    url: str = Field(min_length=1)
    limit: int = Field(default=50, ge=1)
    instructions: str | None = None
    select_paths: list[str] = Field(default_factory=list)
    exclude_paths: list[str] = Field(default_factory=list)
    select_domains: list[str] = Field(default_factory=list)
    exclude_domains: list[str] = Field(default_factory=list)
    include_usage: bool = False


class TavilyCrawl(_TavilySite):
    max_depth: int = Field(default=1, ge=0)  # Tavily's default: the start page's links
    format: Literal["markdown", "text"] = "markdown"
    timeout: float = Field(default=DEFAULT_CRAWL_TIMEOUT, gt=0)
    include_favicon: bool = False


class TavilyMap(_TavilySite):
    timeout: float | None = Field(default=None, gt=0)


def render_error(error: NetsiftError) -> JSONResponse:
    """Tavily's error body; the status is netsift's (400, 401, 403, 429, 5xx), which
    tavily-python maps to BadRequest, InvalidAPIKey, Forbidden and UsageLimitExceeded."""
    status = status_of(error)
    if status == 422:
        status = 400  # Tavily answers a malformed request with 400
    body = {"detail": {"error": error.message, "code": error.code}}
    return error_reply(body, error, status=status)


def _content(page: Page | NetsiftError | None) -> str | None:
    """A result's `raw_content`: the page read, or null where reading it failed."""
    return page.content if isinstance(page, Page) else None


@router.post("/search", summary="Tavily-compatible search")
async def search(request: Request, state: StateDep, caller: CallerDep) -> dict[str, Any]:
    started = time.monotonic()
    params = parse_body(TavilySearch, await request.body())
    ops = Operations(state, caller)
    filtered = bool(params.include_domains or params.exclude_domains)
    wanted = max(params.max_results, 1)
    count = min(MAX_SEARCH_COUNT, wanted * FILTER_OVERFETCH if filtered else wanted)
    response: SearchResponse = await ops.search(
        build(
            SearchRequest,
            query=params.query,
            count=count,
            time_range=time_range_of(params.time_range, days=params.days),
            region=params.country,
        )
    )
    kept = [
        result
        for result in response.results
        if in_domains(result.url, include=params.include_domains, exclude=params.exclude_domains)
    ][: params.max_results]
    raw: list[Page | NetsiftError | None] = [None] * len(kept)
    fmt: ContentFormat = "text" if params.include_raw_content == "text" else "markdown"
    if params.include_raw_content:
        raw = list(await read_pages(ops, (r.url for r in kept), format=fmt))
    contents = [r.snippet for r in kept]
    if params.search_depth == "advanced":
        contents = await _chunks(ops, params, kept, contents)
    results = []
    for position, (result, page, content) in enumerate(
        zip(kept, raw, contents, strict=True), start=1
    ):
        item: dict[str, Any] = {
            "url": result.url,
            "title": result.title,
            "content": content,
            "score": rank_score(position),
            "raw_content": _content(page),
        }
        if params.include_favicon:
            item["favicon"] = result.favicon
        if result.published:
            item["published_date"] = result.published
        results.append(item)
    answer = await _answer(ops, params) if params.include_answer else None
    body: dict[str, Any] = {
        "query": params.query,
        "answer": answer,
        "images": [],
        "follow_up_questions": None,
        "results": results,
        "response_time": round(time.monotonic() - started, 3),
        "request_id": response.request_id or uuid.uuid4().hex,
    }
    if params.include_usage:
        body["usage"] = {"searches": 1, "pages": sum(isinstance(p, Page) for p in raw)}
    return body


async def _chunks(
    ops: Operations, params: TavilySearch, kept: list[SearchResult], snippets: list[str]
) -> list[str]:
    """`search_depth: advanced`: each result's `content` is the passages of its page most
    relevant to the query (`chunks_per_source`, joined as Tavily joins them), chosen by
    netsift's context rules (netsift.context.fill: ranked, folded, never an instruction to an
    AI); a page that cannot be read keeps its snippet."""
    read = await read_pages(ops, (r.url for r in kept), format="text")
    pages = [page for page in read if isinstance(page, Page)]
    rules = ContextParams(
        query=params.query,
        max_sources=max(len(pages), 1),
        per_source=params.chunks_per_source,
        max_tokens=CONTEXT_MAX_TOKENS,
    )
    answer = fill(rules, pages)
    chunks: dict[str, list[str]] = {page.final_url: [] for page in pages}
    for passage in answer.passages:
        chunks[passage.url].append(" ".join(passage.text.split()))
    out = []
    for page, snippet in zip(read, snippets, strict=True):
        given = chunks.get(page.final_url) if isinstance(page, Page) else None
        out.append(CHUNK_JOIN.join(given) if given else snippet)
    return out


async def _answer(ops: Operations, params: TavilySearch) -> str | None:
    """`include_answer`: a quick research run — the configured model's cited answer, or the
    extractive answer without one. None when research is switched off on this host."""
    if not ops.client.settings.enabled("research"):
        return None
    report = await ops.client.research(params.query, depth="quick")
    return report.answer


@router.post("/extract", summary="Tavily-compatible extract: several URLs, refusals listed")
async def extract(request: Request, state: StateDep, caller: CallerDep) -> dict[str, Any]:
    started = time.monotonic()
    params = parse_body(TavilyExtract, await request.body())
    urls = [params.urls] if isinstance(params.urls, str) else params.urls
    if not urls:
        raise InvalidInput("urls: give at least one URL")
    if len(urls) > MAX_EXTRACT_URLS:
        raise InvalidInput(f"urls: at most {MAX_EXTRACT_URLS} URLs per call")
    pages = await read_pages(
        Operations(state, caller), urls, format=params.format, timeout=params.timeout
    )
    results: list[dict[str, Any]] = []
    failed: list[dict[str, Any]] = []
    for url, page in zip(urls, pages, strict=True):
        if isinstance(page, Page):
            item: dict[str, Any] = {"url": url, "raw_content": page.content, "images": []}
            if params.include_favicon:
                item["favicon"] = page.metadata.favicon
            results.append(item)
        else:
            failed.append({"url": url, "error": page.message, "code": page.code})
    body: dict[str, Any] = {
        "results": results,
        "failed_results": failed,
        "response_time": round(time.monotonic() - started, 3),
        "request_id": uuid.uuid4().hex,
    }
    if params.include_usage:
        body["usage"] = {"pages": len(results)}
    return body


@router.post("/map", summary="Tavily-compatible map: a site's URLs")
async def map_site(request: Request, state: StateDep, caller: CallerDep) -> dict[str, Any]:
    """One netsift map: `instructions` rank the URLs, `select_paths`/`exclude_paths` are its
    path patterns, `select_domains`/`exclude_domains` (regular expressions on the host, as
    Tavily's) open the subdomains and filter them. netsift maps from sitemaps, feeds and the
    start page, so `max_depth`/`max_breadth` have nothing to steer and are ignored."""
    started = time.monotonic()
    params = parse_body(TavilyMap, await request.body())
    check_patterns(params.select_domains, "select_domains")
    check_patterns(params.exclude_domains, "exclude_domains")
    result = await Operations(state, caller).map(
        build(
            MapRequest,
            url=params.url,
            limit=min(params.limit, MAX_MAP_LIMIT),
            query=params.instructions or None,
            include=params.select_paths,
            exclude=params.exclude_paths,
            subdomains=bool(params.select_domains),
        ),
        timeout=params.timeout,
    )
    urls = [
        link.url
        for link in result.links
        if _host_passes(link.url, params.select_domains, params.exclude_domains)
    ]
    body: dict[str, Any] = {
        "base_url": params.url,
        "results": urls,
        "response_time": round(time.monotonic() - started, 3),
        "request_id": uuid.uuid4().hex,
    }
    if params.include_usage:
        body["usage"] = {"pages": sum(r.status in ("read", "failed") for r in result.sitemaps)}
    return body


@router.post("/crawl", summary="Tavily-compatible crawl: a site's pages, read to the end")
async def crawl(request: Request, state: StateDep, _: CallerDep) -> dict[str, Any]:
    """One netsift crawl, run to its end within Tavily's `timeout`: `limit` is its page budget,
    `max_depth` the links followed, `instructions` its query (best-first order),
    `select_paths`/`exclude_paths` its path patterns and `select_domains`/`exclude_domains`
    open and filter the subdomains, as for map. `allow_external` is ignored: Tavily's default
    is to allow, and netsift keeps a crawl on one site (and its subdomains) whatever is asked,
    so refusing would break callers that spell out Tavily's default. `max_breadth`,
    `extract_depth` and `chunks_per_source` have no netsift counterpart and are ignored."""
    started = time.monotonic()
    params = parse_body(TavilyCrawl, await request.body())
    check_patterns(params.select_domains, "select_domains")
    check_patterns(params.exclude_domains, "exclude_domains")
    report = await state.require_client().crawl(
        params.url,
        max_pages=params.limit,
        max_depth=params.max_depth,
        include=crawl_include(params.url, params.select_paths),
        exclude=params.exclude_paths,
        subdomains=bool(params.select_domains),
        query=params.instructions or None,
        deadline=params.timeout * CRAWL_TIME_SHARE,
        format=params.format,
    )
    selected = Scope.of(params.url, subdomains=True, include=params.select_paths)
    results: list[dict[str, Any]] = []
    for page in report.pages:
        if not selected.allows(page.final_url):
            continue  # the start page, crawled to reach the selected paths
        if not _host_passes(page.final_url, params.select_domains, params.exclude_domains):
            continue
        item: dict[str, Any] = {"url": page.final_url, "raw_content": page.content, "images": []}
        if params.include_favicon:
            item["favicon"] = page.metadata.favicon
        results.append(item)
    body: dict[str, Any] = {
        "base_url": params.url,
        "results": results,
        "response_time": round(time.monotonic() - started, 3),
        "request_id": report.job_id or uuid.uuid4().hex,
    }
    if params.include_usage:
        body["usage"] = {"pages": report.pages_read}
    return body


# -- research: a netsift research job, or with `output_schema` its fields (extract_data) --------

_URL = regex.compile(r"https?://[^\s<>\"']+")
# Tavily's research models by how far netsift's research goes.
_DEPTHS: dict[str, Depth] = {"mini": "quick", "auto": "quick", "pro": "standard"}
_researched = Kept()  # answers with an output_schema, given at once, polled by request_id
_STATUS = {"queued": "pending", "running": "in_progress", "done": "completed"}


class TavilyResearch(_Lenient):
    input: str = Field(min_length=3, max_length=2000)
    model: str = "auto"
    output_schema: dict[str, Any] | None = None
    stream: bool = False


@router.post("/research", summary="Tavily-compatible research, structured with output_schema")
async def research(request: Request, state: StateDep, caller: CallerDep) -> dict[str, Any]:
    """A research job (polled with `GET /research/{request_id}`); with `output_schema`, its
    fields read at once by extract_data from the pages the input names and those a search
    for it finds, each with its evidence."""
    params = parse_body(TavilyResearch, await request.body())
    if params.stream:
        raise InvalidInput("stream: netsift's research is polled: GET /research/{request_id}")
    created = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    answer: dict[str, Any] = {"created_at": created, "input": params.input, "model": params.model}
    client = state.require_client()
    if params.output_schema is None:
        depth = _DEPTHS.get(params.model, "quick")
        job = await client.start_research(build(ResearchParams, question=params.input, depth=depth))
        return {**answer, "request_id": job.id, "status": "pending"}
    urls = [url.rstrip(".,;:)") for url in _URL.findall(params.input)][:MAX_EXTRACT_URLS]
    query = " ".join(_URL.sub(" ", params.input).split())[:MAX_QUERY_CHARS] or None
    result = await Operations(state, caller).extract_data(
        build(
            ExtractDataRequest,
            urls=urls or None,
            query=query,
            output_schema=params.output_schema,
            prompt=params.input,
        )
    )
    done = {
        **answer,
        "request_id": uuid.uuid4().hex,
        "status": "completed",
        "content": result.data,
        "sources": [{"url": url, "title": None} for url in result.sources],
        "evidence": {
            name: [item.model_dump(mode="json") for item in items]
            for name, items in result.evidence.items()
        },
        "missing": result.missing,
    }
    _researched.keep(done["request_id"], {"owner": caller.key, "answer": done})
    return done


@router.get("/research/{request_id}", summary="Tavily-compatible research status and result")
async def research_status(request_id: str, state: StateDep, caller: CallerDep) -> dict[str, Any]:
    kept = _researched.get(request_id)
    if kept is not None and kept["owner"] == caller.key:
        found: dict[str, Any] = kept["answer"]
        return found
    client = state.require_client()
    job = await client.job(request_id, kind="research")
    status = _STATUS.get(job.status, "failed")
    body: dict[str, Any] = {"request_id": job.id, "status": status}
    if job.status == "done":
        report = client.research_report(job)
        body["content"] = report.answer
        body["sources"] = [{"url": s.url, "title": s.title} for s in report.sources]
    elif status == "failed":
        body["error"] = str((job.error or {}).get("message", job.status))
    return body


def _host_passes(url: str, select: list[str], exclude: list[str]) -> bool:
    host = urlsplit(url).hostname or ""
    if any(_matches(pattern, host) for pattern in exclude):
        return False
    return not select or any(_matches(pattern, host) for pattern in select)


def _matches(pattern: str, host: str) -> bool:
    try:  # callers' patterns: the time limit the crawl scope uses, on a short host name
        return regex.search(pattern, host, timeout=PATTERN_TIMEOUT) is not None
    except TimeoutError:
        return False
