"""The research loop: plan → parallel searches → choose → parallel reads → rank → synthesize →
verify → find gaps → repeat, under budgets that always stop it.

Every step is announced as an Event through `emit`, so the CLI, SSE, WebSocket and MCP all show
the same progress. Failures of single searches or pages degrade the answer (fewer sources,
said in the report); they never hang or sink the run.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import anyio

from ..errors import NetsiftError
from ..fetch.fetcher import Fetcher
from ..models import EventType, ResearchReport, SearchResult
from ..params import ResearchParams
from ..search.rank import canonical_url, dedupe_near
from ..search.service import SearchService
from ..store.discoveries import DiscoveryLog
from .llm import LLM
from .passages import Passage, rank_passages, split_passages
from .planner import find_gaps, plan_queries
from .synthesis import Source, Synthesis, synthesize, synthesize_extractive

__all__ = ["Emit", "ResearchAgent"]

Emit = Callable[[EventType, dict[str, Any]], Awaitable[None]]
FETCH_CONCURRENCY = 4
SEARCH_CONCURRENCY = 6
RESULTS_PER_QUERY = 8
PAGE_CHARS = 60_000


async def _quiet(_: EventType, __: dict[str, Any]) -> None:
    return None


@dataclass
class _State:
    """What the run has gathered so far; the report is built from it at any stop."""

    queries: list[str] = field(default_factory=list)
    searches: int = 0
    failed_searches: int = 0
    seen_urls: set[str] = field(default_factory=set)
    candidates: list[SearchResult] = field(default_factory=list)
    sources: dict[int, Source] = field(default_factory=dict)
    results: dict[int, SearchResult] = field(default_factory=dict)
    passages: list[Passage] = field(default_factory=list)
    failed_pages: int = 0
    tokens: int = 0
    synthesis: Synthesis | None = None
    notes: list[str] = field(default_factory=list)


class ResearchAgent:
    """Runs one research question at a time over a SearchService and a Fetcher."""

    def __init__(
        self,
        search: SearchService,
        fetcher: Fetcher,
        *,
        llm: LLM | None = None,
        discoveries: DiscoveryLog | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.search = search
        self.fetcher = fetcher
        self.llm = llm
        self.discoveries = discoveries
        self.clock = clock

    async def run(
        self, params: ResearchParams, *, emit: Emit = _quiet, job_id: str | None = None
    ) -> ResearchReport:
        started = self.clock()
        deadline = started + params.deadline
        state = _State()
        await emit("started", {"question": params.question, "mode": self._mode()})
        stopped = "max_iterations"
        iteration = 0
        queries, tokens = await plan_queries(params.question, self.llm, breadth=params.breadth)
        state.tokens += tokens
        with anyio.move_on_after(max(0.0, deadline - self.clock())) as scope:
            while iteration < params.iterations():
                iteration += 1
                queries = queries[: max(0, params.max_searches - state.searches)]
                if not queries:
                    stopped = "max_searches"
                    break
                await emit("planned", {"iteration": iteration, "queries": queries})
                await self._search_all(queries, state, emit)
                new_sources = await self._read(params, state, emit)
                if not new_sources and iteration > 1:
                    stopped = "no_new_information"
                    break
                await emit("synthesizing", {"iteration": iteration, "sources": len(state.sources)})
                await self._synthesize(params.question, state)
                await self._flag(state, emit, job_id)
                if state.tokens >= params.max_tokens:
                    stopped = "max_tokens"
                    break
                if len(state.sources) >= params.max_pages:
                    stopped = "max_pages"
                    break
                if state.searches >= params.max_searches:
                    stopped = "max_searches"
                    break
                if iteration >= params.iterations():
                    break
                answer = state.synthesis.answer if state.synthesis else ""
                gaps, queries, tokens = await find_gaps(
                    params.question,
                    answer,
                    [p.text for p in state.passages],
                    self.llm,
                    done=set(state.queries),
                    limit=params.breadth,
                )
                state.tokens += tokens
                if not gaps or not queries:
                    stopped = "answered"
                    break
                await emit("gap_found", {"iteration": iteration, "gaps": gaps, "queries": queries})
        if scope.cancelled_caught:
            stopped = "deadline"
            state.notes.append("The deadline ended the run; the answer uses what was read by then.")
        if state.synthesis is None:
            with anyio.move_on_after(min(30.0, params.deadline / 4)):
                await self._synthesize(params.question, state)
        report = self._report(params, state, iteration, stopped, started)
        await emit("done", {"stopped_because": stopped, "citations": len(report.citations)})
        return report

    def _mode(self) -> str:
        return "llm" if self.llm is not None else "extractive"

    async def _search_all(self, queries: list[str], state: _State, emit: Emit) -> None:
        limiter = anyio.Semaphore(SEARCH_CONCURRENCY)

        async def one(query: str) -> None:
            async with limiter:
                state.searches += 1
                state.queries.append(query)
                await emit("search_started", {"query": query})
                try:
                    response = await self.search.search(query, count=RESULTS_PER_QUERY)
                except NetsiftError as exc:
                    state.failed_searches += 1
                    await emit("search_done", {"query": query, "ok": False, "error": exc.to_dict()})
                    return
                fresh = [r for r in response.results if canonical_url(r.url) not in state.seen_urls]
                state.candidates.extend(fresh)
                await emit(
                    "search_done",
                    {
                        "query": query,
                        "ok": True,
                        "provider": response.provider,
                        "results": len(response.results),
                        "new": len(fresh),
                    },
                )

        async with anyio.create_task_group() as group:
            for query in queries:
                group.start_soon(one, query)

    def _choose(self, state: _State, room: int) -> list[SearchResult]:
        """Best new URLs first, one canonical URL once, at most two per site a round."""
        chosen: list[SearchResult] = []
        per_site: dict[str, int] = {}
        for result in dedupe_near(state.candidates):
            key = canonical_url(result.url)
            site = urlsplit(key).netloc
            if key in state.seen_urls or per_site.get(site, 0) >= 2:
                continue
            per_site[site] = per_site.get(site, 0) + 1
            state.seen_urls.add(key)
            chosen.append(result)
            if len(chosen) >= room:
                break
        state.candidates = [
            r for r in state.candidates if canonical_url(r.url) not in state.seen_urls
        ]
        return chosen

    async def _read(self, params: ResearchParams, state: _State, emit: Emit) -> int:
        room = min(params.max_pages - len(state.sources), max(2, params.breadth * 2))
        chosen = self._choose(state, room) if room > 0 else []
        limiter = anyio.Semaphore(FETCH_CONCURRENCY)
        added = 0

        async def one(result: SearchResult) -> None:
            nonlocal added
            async with limiter:
                await emit("fetch_started", {"url": result.url})
                try:
                    page = await self.fetcher.fetch(result.url, format="text")
                except NetsiftError as exc:
                    state.failed_pages += 1
                    await emit(
                        "fetch_done", {"url": result.url, "ok": False, "error": exc.to_dict()}
                    )
                    return
                text = page.content[:PAGE_CHARS]
                n = len(state.sources) + 1
                state.sources[n] = Source(n, page.final_url, page.title or result.title, text)
                state.results[n] = result
                pieces = [Passage(n, piece) for piece in split_passages(text)]
                state.passages.extend(pieces)
                added += 1
                await emit(
                    "fetch_done",
                    {
                        "url": result.url,
                        "ok": True,
                        "n": n,
                        "title": page.title,
                        "passages": len(pieces),
                    },
                )

        async with anyio.create_task_group() as group:
            for result in chosen:
                group.start_soon(one, result)
        return added

    async def _synthesize(self, question: str, state: _State) -> None:
        ranked = rank_passages(question, state.passages)
        if self.llm is None:
            state.synthesis = synthesize_extractive(question, ranked, state.sources)
            return
        try:
            synthesis = await synthesize(question, ranked, state.sources, self.llm)
        except NetsiftError as exc:
            state.notes.append(f"The model failed while writing the answer ({exc.code}).")
            if state.synthesis is None:
                state.synthesis = synthesize_extractive(question, ranked, state.sources)
            return
        state.tokens += synthesis.tokens
        state.synthesis = synthesis

    async def _flag(self, state: _State, emit: Emit, job_id: str | None) -> None:
        if state.synthesis is None:
            return
        for item in state.synthesis.discoveries:
            n = item.get("n")
            source = state.sources.get(n) if isinstance(n, int) else None
            title, description = str(item.get("title", "")), str(item.get("description", ""))
            if not title or not description:
                continue
            data: dict[str, Any] = {"title": title, "description": description}
            data["url"] = source.url if source else None
            if self.discoveries is not None:
                try:
                    data["id"] = self.discoveries.flag(
                        title[:300], description[:10_000], data["url"], job_id=job_id
                    ).id
                except NetsiftError:
                    continue
            await emit("discovery", data)
        state.synthesis.discoveries = []

    def _report(
        self, params: ResearchParams, state: _State, iterations: int, stopped: str, started: float
    ) -> ResearchReport:
        synthesis = state.synthesis or Synthesis(answer="Nothing could be read.", citations=[])
        notes = list(state.notes)
        if state.failed_searches:
            notes.append(f"{state.failed_searches} of {state.searches} searches failed.")
        if state.failed_pages:
            notes.append(f"{state.failed_pages} pages could not be read.")
        if synthesis.unverified:
            notes.append(
                f"{synthesis.unverified} citations could not be verified and were dropped."
            )
        if self.llm is None:
            notes.append("Extractive mode: no language model is configured (NETSIFT_LLM_MODEL).")
        sources = [
            state.results[n].model_copy(update={"url": state.sources[n].url, "rank": n})
            for n in sorted(state.sources)
        ]
        return ResearchReport(
            question=params.question,
            answer=synthesis.answer,
            citations=synthesis.citations,
            sources=sources,
            queries=state.queries,
            iterations=iterations,
            searches=state.searches,
            pages_read=len(state.sources),
            tokens=state.tokens,
            elapsed_ms=round((self.clock() - started) * 1000, 1),
            stopped_because=stopped,
            mode="llm" if self.llm is not None else "extractive",
            notes=notes,
        )
