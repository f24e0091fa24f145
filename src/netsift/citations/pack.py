"""citation_pack: the sources of a report (or a list of pages) as a citation bundle.

Each source is read once (through the caller's `fetch`, so the guard, robots.txt and the caps
apply), its archived copy looked up or requested (through `archive`), in parallel under
PACK_CONCURRENCY; a page that cannot be read is still cited with what the report knew of it
and its error, so one dead link does not lose the bundle.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime

import anyio
from pydantic import BaseModel, Field

from ..errors import NetsiftError
from ..models import Page
from ..params import CitedReport
from ..search.rank import canonical_url
from .export import render
from .source import CitationSource, source_of

__all__ = ["PACK_CONCURRENCY", "CitationPack", "Cited", "cited_in", "pack"]

# Pages read at once: the fetcher's per-host politeness still applies under it.
PACK_CONCURRENCY = 8

Fetch = Callable[[str], Awaitable[Page]]
Archive = Callable[[str], Awaitable[tuple[str, datetime] | None]]  # (snapshot, captured at)


class CitationPack(BaseModel):
    """The bundle: every source's facts, and the references in the format asked for."""

    format: str
    sources: list[CitationSource] = Field(default_factory=list)
    output: str = ""  # the references as text (CSL-JSON, BibTeX or Markdown)
    warnings: list[str] = Field(default_factory=list)


class Cited(BaseModel):
    """A source to cite: its number, URL, what the report called it and quoted from it."""

    n: int
    url: str
    title: str | None = None
    passages: list[str] = Field(default_factory=list)


def cited_in(report: CitedReport) -> list[Cited]:
    """A report's cited sources, one per page (its first [n]), each with its quotes; a
    report without citations cites its sources."""
    by_page: dict[str, Cited] = {}
    for citation in sorted(report.citations, key=lambda c: c.n):
        key = canonical_url(citation.url)
        entry = by_page.setdefault(key, Cited(n=citation.n, url=citation.url, title=citation.title))
        if citation.quote and citation.quote not in entry.passages:
            entry.passages.append(citation.quote)
    if by_page:
        return list(by_page.values())
    return [Cited(n=i, url=s.url, title=s.title) for i, s in enumerate(report.sources, start=1)]


async def pack(
    cited: list[Cited], *, format: str, fetch: Fetch, archive: Archive | None
) -> CitationPack:
    """Read and archive every cited source, in parallel; the bundle in their order."""
    sources: list[CitationSource | None] = [None] * len(cited)
    warnings: list[str] = []
    limit = anyio.Semaphore(PACK_CONCURRENCY)

    async def one(index: int, item: Cited) -> None:
        async with limit:
            source = await _read(item, fetch)
            if archive is not None:
                try:
                    found = await archive(item.url)
                except NetsiftError as exc:
                    warnings.append(f"[{item.n}] no archived copy ({exc.code}): {exc.message}")
                    found = None
                if found is not None:
                    link, when = found
                    source = source.model_copy(update={"archived_url": link, "archived_at": when})
            sources[index] = source

    async with anyio.create_task_group() as group:
        for index, item in enumerate(cited):
            group.start_soon(one, index, item)
    done = [source for source in sources if source is not None]
    return CitationPack(
        format=format, sources=done, output=render(done, format), warnings=sorted(warnings)
    )


async def _read(item: Cited, fetch: Fetch) -> CitationSource:
    try:
        page = await fetch(item.url)
    except NetsiftError as exc:
        return CitationSource(
            n=item.n,
            url=item.url,
            canonical_url=canonical_url(item.url),
            title=item.title,
            passages=item.passages,
            error=exc.to_dict(),
        )
    source = source_of(item.n, item.url, page, item.passages)
    return source if source.title else source.model_copy(update={"title": item.title})
