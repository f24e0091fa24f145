"""Context sized for an agent: a query's most relevant passages across the pages a search
finds, deduplicated, within a token budget.

Agents pay for every token, and a tool's result is capped by its host; a whole page is too
much and a snippet too little. `gather` searches once, reads the best distinct pages through
the same guarded fetcher as `fetch` (robots.txt, cache, limits and usage counting included),
cuts them into passages, ranks every passage against the query (BM25, the page's title
counted), folds passages another page already said, sets aside text that addresses the reader
or an AI (page text is data: research/injection.py judges it), and fills the budget best
first. Each passage is verbatim page text with its URL, title and position.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import anyio

from .at_once import PAGES_AT_ONCE
from .errors import NetsiftError
from .models import ContextAnswer, ContextPassage, ContextSource, Page, SearchResult
from .params import CHARS_PER_TOKEN, ContextParams
from .research.citations import split_sentences
from .research.injection import find_instruction
from .research.passages import Passage, rank_passages, split_passages
from .search.rank import NEAR_DUPLICATE_THRESHOLD, canonical_url, jaccard, shingles

if TYPE_CHECKING:
    from .client import Client

__all__ = ["estimate_tokens", "fill", "gather"]

# Results asked of the search for each page wanted: room for pages that fail, repeat a page
# already taken, or say nothing about the query.
RESULTS_PER_SOURCE = 2
MAX_RESULTS = 50  # the most one search returns (SearchParams.count)
PAGE_CHARS = 60_000  # what is read of each page, as research reads it
PASSAGE_CHARS = 800  # research's passage size: a paragraph or two, citable on its own


def estimate_tokens(text: str) -> int:
    """The tokens `text` is likely to cost, rounded up."""
    return -(-len(text) // CHARS_PER_TOKEN)


async def gather(client: Client, params: ContextParams) -> ContextAnswer:
    """The context for `params.query`: search, read, rank, fold, fill the budget."""
    started = time.perf_counter()
    response = await client.search(
        params.query,
        count=min(MAX_RESULTS, params.max_sources * RESULTS_PER_SOURCE),
        providers=params.providers,
        time_range=params.time_range,
        region=params.region,
        no_cache=params.no_cache,
    )
    warnings: list[str] = []
    pages = await _read(client, _distinct(response.results), params, warnings)
    answer = fill(params, pages)
    answer.provider = response.provider
    answer.warnings = warnings
    answer.elapsed_ms = round((time.perf_counter() - started) * 1000, 1)
    return answer


def _distinct(results: list[SearchResult]) -> list[SearchResult]:
    seen: set[str] = set()
    out = []
    for result in results:
        if (key := canonical_url(result.url)) not in seen:
            seen.add(key)
            out.append(result)
    return out


async def _read(
    client: Client, results: list[SearchResult], params: ContextParams, warnings: list[str]
) -> list[Page]:
    """The first `max_sources` results that read, in the search's order; a page that fails
    is said in `warnings` and the next result takes its place."""
    read: dict[int, Page] = {}
    limiter = anyio.Semaphore(PAGES_AT_ONCE)

    async def one(index: int, result: SearchResult) -> None:
        async with limiter:
            try:
                page = await client.fetch(
                    result.url, format="text", max_length=PAGE_CHARS, no_cache=params.no_cache
                )
            except NetsiftError as exc:
                warnings.append(f"{result.url} was not read ({exc.code}): {exc.message}")
                return
        if page.content.strip():
            read[index] = page

    waiting = list(enumerate(results))
    while waiting and len(read) < params.max_sources:
        wave = waiting[: params.max_sources - len(read)]
        waiting = waiting[len(wave) :]
        async with anyio.create_task_group() as group:
            for index, result in wave:
                group.start_soon(one, index, result)
    return [read[index] for index in sorted(read)][: params.max_sources]


def fill(params: ContextParams, pages: list[Page]) -> ContextAnswer:
    """The budget filled from `pages` (in the order a search ranked them), best passage
    first; no network. `sources` are the pages, in their order."""
    passages: list[Passage] = []
    where: dict[tuple[int, str], int] = {}  # (source, text) -> its position on the page
    left_out: dict[str, int] = {}
    said: set[str] = set()  # the paragraphs earlier pages gave, folded
    for source, page in enumerate(pages, start=1):
        text = _own_paragraphs(page, said, left_out)
        for position, piece in enumerate(split_passages(text, max_chars=PASSAGE_CHARS)):
            passages.append(Passage(source, piece))
            where[(source, piece)] = position
    titles = {n: page.title or "" for n, page in enumerate(pages, start=1)}
    ranked = rank_passages(params.query, passages, per_source=len(passages) or 1, titles=titles)
    given: list[ContextPassage] = []
    taken: dict[int, int] = {}
    kept: list[set[bytes]] = []
    tokens = 0
    for passage in ranked:
        if taken.get(passage.source, 0) >= params.per_source:
            left_out["per_source"] = left_out.get("per_source", 0) + 1
            continue
        marks = shingles(passage.text)
        if any(jaccard(marks, other) >= NEAR_DUPLICATE_THRESHOLD for other in kept):
            left_out["duplicate"] = left_out.get("duplicate", 0) + 1
            continue
        page = pages[passage.source - 1]
        cost = estimate_tokens(f"{page.final_url}\n{page.title or ''}\n{passage.text}")
        if tokens + cost > params.max_tokens:
            left_out["budget"] = left_out.get("budget", 0) + 1
            continue  # a shorter passage further down may still fit
        tokens += cost
        kept.append(marks)
        taken[passage.source] = taken.get(passage.source, 0) + 1
        given.append(
            ContextPassage(
                n=len(given) + 1,
                url=page.final_url,
                title=page.title or "",
                text=passage.text,
                position=where[(passage.source, passage.text)],
                score=round(passage.score, 4),
                tokens=cost,
            )
        )
    sources = [
        ContextSource(url=page.final_url, title=page.title or "", passages=taken.get(n, 0))
        for n, page in enumerate(pages, start=1)
    ]
    return ContextAnswer(
        query=params.query,
        passages=given,
        sources=sources,
        tokens=tokens,
        max_tokens=params.max_tokens,
        left_out=left_out,
    )


def _own_paragraphs(page: Page, said: set[str], left_out: dict[str, int]) -> str:
    """The page's text without the paragraphs an earlier page (in the search's order) gave
    already — a syndicated copy adds nothing — and without those that address the reader or
    an AI. A paragraph is one line of the text format, kept or dropped whole, so every line of
    a passage stays verbatim page text."""
    kept = []
    for line in page.content.splitlines():
        folded = " ".join(line.casefold().split())
        if not folded:
            continue
        if folded in said:
            left_out["duplicate"] = left_out.get("duplicate", 0) + 1
            continue
        if any(find_instruction(s, page.final_url) is not None for s in split_sentences(line)):
            left_out["instruction"] = left_out.get("instruction", 0) + 1
            continue
        kept.append(line)
    said.update(" ".join(line.casefold().split()) for line in kept)
    return "\n".join(kept)
