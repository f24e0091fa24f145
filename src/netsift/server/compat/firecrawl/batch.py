"""Firecrawl's batch scrape: a list of URLs read as one netsift job (crawl/batch.py), started,
polled page by page, cancelled, and its errors; the documents are a crawl's, with their links
and, for a page that answered an HTTP error, its `statusCode` (as Firecrawl's scrape)."""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import urlsplit

from fastapi import Request
from pydantic import BeforeValidator, Field

from ....crawl.batch import BATCH
from ....errors import InvalidInput
from ....params import BATCH_CONCURRENCY, MAX_URL_CHARS, BatchFetchParams
from ...deps import Caller, CallerDep, StateDep
from ..shared import build, parse_body
from .common import ScrapeOptions, api_root, formats_of, no_cache, seconds
from .crawl import CRAWL_FORMATS
from .job_formats import Asked, ask, remember
from .paths import new_router
from .status import job_routes
from .url import with_scheme

__all__ = ["router"]

# The formats a batch serves: a crawl's (one content format a page, its links, the structured
# formats), and the page's source as served (`rawHtml`), which a batch keeps beside it.
BATCH_FORMATS = CRAWL_FORMATS | {"rawHtml"}

router = new_router()


class BatchScrape(ScrapeOptions):
    urls: list[Annotated[Any, BeforeValidator(with_scheme)]] = Field(min_length=1)
    # Firecrawl v2 leaves invalid URLs out (and lists them) unless told not to; v1 refuses them.
    ignore_invalid_urls: bool | None = Field(default=None, alias="ignoreInvalidURLs")
    max_concurrency: int | None = Field(default=None, ge=1, alias="maxConcurrency")
    webhook: Any = None
    append_to_id: str | None = Field(default=None, alias="appendToId")
    zero_data_retention: bool = Field(default=False, alias="zeroDataRetention")


def _valid(url: object) -> bool:
    """An http(s) URL with a host: what a batch can be asked to read."""
    if not isinstance(url, str) or not url or len(url) > MAX_URL_CHARS:
        return False
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.hostname)


def _refused(params: BatchScrape) -> None:
    """What netsift cannot honour, refused by name rather than ignored."""
    refused = {
        "webhook": (params.webhook is not None, "netsift sends no webhooks; poll the status"),
        "appendToId": (params.append_to_id is not None, "netsift starts a new batch each time"),
        "zeroDataRetention": (
            params.zero_data_retention,
            "netsift keeps a batch's pages in its job store until the store is cleared",
        ),
    }
    for field, (asked, why) in refused.items():
        if asked:
            raise InvalidInput(f"{field}: {why}", details={"field": field})


def batch_params(params: BatchScrape, *, version: str) -> tuple[BatchFetchParams, list[str], Asked]:
    """netsift's batch for Firecrawl's body, the URLs left out as invalid (v2's default; v1,
    or `ignoreInvalidURLs: false`, refuses the batch instead), and the derived formats its
    documents get."""
    _refused(params)
    formats = formats_of(params, BATCH_FORMATS)
    asked = ask(params, formats)
    if {"markdown", "html"} <= formats:
        raise InvalidInput(
            "formats: a netsift batch keeps one content format a page; ask markdown or html",
            details={"formats": ["html", "markdown"]},
        )
    ignore = params.ignore_invalid_urls
    if ignore is None:
        ignore = version == "v2"
    invalid = [str(url) for url in params.urls if not _valid(url)]
    if invalid and not ignore:
        raise InvalidInput(
            f"urls: not http(s) URLs: {', '.join(invalid[:5])}", details={"invalid": invalid}
        )
    concurrency = min(params.max_concurrency or BATCH_CONCURRENCY, BATCH_CONCURRENCY)
    fields: dict[str, Any] = {
        "urls": [url for url in params.urls if _valid(url)],
        "format": "html" if "html" in formats else "markdown",
        "timeout": seconds(params.timeout),
        "no_cache": no_cache(params),
        "keep_source": "rawHtml" in formats,
        "error_pages": True,  # Firecrawl answers an error page as a document with its status
        "concurrency": concurrency,
    }
    return build(BatchFetchParams, **fields), invalid, asked


async def _start(request: Request, state: StateDep, caller: Caller, version: str) -> dict[str, Any]:
    body = parse_body(BatchScrape, await request.body())
    params, invalid, asked = batch_params(body, version=version)
    job = await state.require_client().start_batch_fetch(params)
    remember(job.id, body, asked, owner=caller.key)
    url = f"{api_root(request)}/{version}/batch/scrape/{job.id}"
    return {"success": True, "id": job.id, "url": url, "invalidURLs": invalid}


@router.post("/v2/batch/scrape", summary="Firecrawl v2 batch scrape: start a batch job")
async def batch_v2(request: Request, state: StateDep, caller: CallerDep) -> dict[str, Any]:
    return await _start(request, state, caller, "v2")


@router.post("/v1/batch/scrape", summary="Firecrawl v1 batch scrape: start a batch job")
async def batch_v1(request: Request, state: StateDep, caller: CallerDep) -> dict[str, Any]:
    return await _start(request, state, caller, "v1")


job_routes(router, BATCH, "batch/scrape", "batch scrape")
