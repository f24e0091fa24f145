"""The research loop: plan → parallel searches → choose → parallel reads → rank → synthesize →
verify → find gaps → repeat, under budgets that always stop it.

Every step is announced as an Event through `emit`, so the CLI, SSE, WebSocket and MCP all show
the same progress. Failures of single searches, pages or model calls degrade the answer (fewer
sources, an extractive fallback — said in the report); they never hang or sink the run.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any
from urllib.parse import urlsplit

import anyio

from ..at_once import PAGES_AT_ONCE
from ..errors import LLMError, NetsiftError
from ..fetch.fetcher import Fetcher
from ..models import EventType, ResearchReport, SearchResult
from ..params import FetchOptions, ResearchParams
from ..search.rank import canonical_url, dedupe_near
from ..search.ratelimit import waiting_for_slots
from ..search.service import SearchService
from .discoveries import DiscoveryLog
from .llm import LLM
from .passages import Passage, rank_passages, split_passages
from .planner import derive_queries, find_gaps, plan_queries
from .state import Candidate, ReadPage, RunState
from .synthesis import Source, Synthesis, source_warnings, synthesize, synthesize_extractive

__all__ = ["Emit", "ResearchAgent", "Save", "choose_results"]

Emit = Callable[[EventType, dict[str, Any]], Awaitable[None]]
Save = Callable[[dict[str, Any]], Awaitable[None]]
# Searches in flight at once: half of the widest round (20 queries), so a 100-search deep run
# pays ten search latencies, not seventeen; each provider's own rate limit still paces them.
SEARCH_CONCURRENCY = 10
RESULTS_PER_QUERY = 8
PAGE_CHARS = 60_000
PER_SITE_PER_ROUND = 2
# Pages read a round at most: two for each of the first wave's widest round (6 queries). A round
# a large search budget makes wider (20 queries) ranks its candidates and reads the best, so the
# page budget lasts the rounds the search budget pays for.
MAX_PAGES_A_ROUND = 12


async def _quiet(_: EventType, __: dict[str, Any]) -> None:
    return None


async def _forget(_: dict[str, Any]) -> None:
    return None


def choose_results(
    candidates: list[SearchResult],
    seen: set[str],
    room: int,
    *,
    per_site: int,
    read: list[SearchResult] | None = None,
) -> list[SearchResult]:
    """Which results to read: best first, each canonical URL once, near-duplicate snippets
    folded (into each other and into the results already `read`), at most `per_site` from
    one site (source diversity). Pure: `seen` is not changed."""
    chosen: list[SearchResult] = []
    taken: set[str] = set()
    sites: dict[str, int] = {}
    # Results already read are in `seen`: they are never chosen, but their near-copies fold.
    for result in dedupe_near([*(read or []), *candidates]):
        key = canonical_url(result.url)
        site = urlsplit(key).netloc
        if key in seen or key in taken or sites.get(site, 0) >= per_site:
            continue
        sites[site] = sites.get(site, 0) + 1
        taken.add(key)
        chosen.append(result)
        if len(chosen) >= room:
            break
    return chosen


class _Steps:
    """Saves a checkpoint: the state, the step reached and the round's queries."""

    def __init__(self, save: Save, started: float, clock: Callable[[], float]) -> None:
        self._save = save
        self._started = started
        self._clock = clock
        self._lock = anyio.Lock()

    async def save(
        self, state: RunState, step: str, iteration: int, queries: list[str], *, added: int = 0
    ) -> None:
        async with self._lock:  # parallel page reads each save; one write at a time
            await self._save(
                {
                    "step": step,
                    "iteration": iteration,
                    "queries": queries,
                    "added": added,
                    "elapsed": self._clock() - self._started,
                    "state": state.to_dict(),
                }
            )


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
        self,
        params: ResearchParams,
        *,
        emit: Emit = _quiet,
        job_id: str | None = None,
        resume: dict[str, Any] | None = None,
        save: Save = _forget,
    ) -> ResearchReport:
        """Run to the report. `save` receives a checkpoint after every step; a run given
        one of them as `resume` continues from that step (a job taken over by a worker)."""
        spent = float(resume["elapsed"]) if resume else 0.0
        started = self.clock() - spent
        state = RunState.from_dict(resume["state"]) if resume else RunState()
        await emit("started", {"question": params.question, "mode": self._mode()})
        iteration = 0
        stopped = "max_iterations"
        left = max(0.0, params.deadline - spent)
        # A search waits for its provider's rate-limit slot as long as the run may last
        # (the deadline cancels the wait): a wide round paced at 5/s loses no search.
        with anyio.move_on_after(left) as scope, waiting_for_slots(left):
            iteration, stopped = await self._loop(
                params, state, emit, job_id, _Steps(save, started, self.clock), resume
            )
        if scope.cancelled_caught:
            stopped = "deadline"
            state.note("The deadline ended the run; the answer uses what was read by then.")
        if state.synthesis is None:
            # Stopped before any answer was written (deadline, budget): answer from what was
            # read without the model — instant, so the deadline is not overrun.
            ranked = rank_passages(params.question, state.passages, titles=state.titles())
            state.synthesis = synthesize_extractive(params.question, ranked, state.sources)
            if self.llm is not None and state.sources:
                state.note("The answer is extractive: the model had no time to write it.")
        report = self._report(params, state, iteration, stopped, started)
        # The last event carries the report, so a stream's reader needs nothing else.
        await emit(
            "done",
            {
                "stopped_because": stopped,
                "citations": len(report.citations),
                "sources": len(report.sources),
                "report": report.model_dump(mode="json"),
            },
        )
        return report

    async def _loop(
        self,
        params: ResearchParams,
        state: RunState,
        emit: Emit,
        job_id: str | None,
        steps: _Steps,
        resume: dict[str, Any] | None,
    ) -> tuple[int, str]:
        """Rounds until a budget or the answer stops them; returns (rounds, why it stopped).

        Each round is four steps (search, read, synthesize, review); after each the state is
        saved with the step reached, and a resumed run enters the loop at that step."""
        if resume:
            step, iteration, queries = resume["step"], resume["iteration"], resume["queries"]
            added = int(resume.get("added", 0))
        else:
            queries = await self._plan(params, state)
            step, iteration, added = "planned", 0, 0
            await steps.save(state, step, iteration, queries)
        while True:
            if step == "planned":
                room = params.searches() - state.searches
                if room <= 0:
                    return iteration, "max_searches"
                iteration += 1
                queries = queries[:room]
                await emit("planned", {"iteration": iteration, "queries": queries})
                step = "searching"
            if step == "searching":
                # Saved after each search, so a resumed run sends only those not yet done.
                await self._search_all(
                    queries,
                    iteration,
                    state,
                    emit,
                    partial(steps.save, state, step, iteration, queries),
                )
                step = "searched"
                await steps.save(state, step, iteration, queries)
            if step == "searched":
                added = await self._read(
                    params, state, emit, partial(steps.save, state, step, iteration, queries)
                )
                step = "read"
                await steps.save(state, step, iteration, queries, added=added)
            if step == "read":
                if not added and (iteration > 1 or not state.sources):
                    return iteration, "no_new_information"
                await emit("synthesizing", {"iteration": iteration, "sources": len(state.sources)})
                await self._synthesize(params.question, state)
                await self._flag(state, emit, job_id)
                step = "synthesized"
                await steps.save(state, step, iteration, queries)
            if state.tokens >= params.max_tokens:
                return iteration, "max_tokens"
            if len(state.sources) >= params.max_pages:
                return iteration, "max_pages"
            if state.searches >= params.searches():
                return iteration, "max_searches"
            if iteration >= params.iterations():
                return iteration, "max_iterations"
            gaps, queries = await self._gaps(params, state)
            if not gaps:
                return iteration, "answered"
            if not queries:
                return iteration, "no_new_information"
            await emit("gap_found", {"iteration": iteration, "gaps": gaps, "queries": queries})
            step = "planned"
            await steps.save(state, step, iteration, queries)

    def _mode(self) -> str:
        return "llm" if self.llm is not None else "extractive"

    async def _plan(self, params: ResearchParams, state: RunState) -> list[str]:
        try:
            queries, tokens = await plan_queries(
                params.question, self.llm, breadth=params.queries_per_round()
            )
        except LLMError as exc:
            state.tokens += int(exc.details.get("tokens", 0))
            state.note(
                f"The model could not plan the searches ({exc.code}); "
                "they were derived from the question."
            )
            return derive_queries(params.question, limit=params.queries_per_round())
        state.tokens += tokens
        return queries

    async def _gaps(self, params: ResearchParams, state: RunState) -> tuple[list[str], list[str]]:
        answer = state.synthesis.answer if state.synthesis else ""
        texts = [p.text for p in state.passages]
        done = set(state.queries)
        try:
            gaps, queries, tokens = await find_gaps(
                params.question,
                answer,
                texts,
                self.llm,
                done=done,
                limit=params.queries_per_round(),
            )
        except LLMError as exc:
            state.tokens += int(exc.details.get("tokens", 0))
            state.note(f"The model could not review the answer for gaps ({exc.code}).")
            gaps, queries, tokens = await find_gaps(
                params.question, answer, texts, None, done=done, limit=params.queries_per_round()
            )
        state.tokens += tokens
        return gaps, queries

    async def _search_all(
        self,
        queries: list[str],
        round: int,
        state: RunState,
        emit: Emit,
        saved: Callable[[], Awaitable[None]],
    ) -> None:
        """The round's searches in parallel; each one done is counted and saved at once
        (`state.round_searched`), and a resumed round skips those."""
        limiter = anyio.Semaphore(SEARCH_CONCURRENCY)

        async def done(index: int, query: str) -> None:
            state.searches += 1
            state.queries.append(query)
            state.round_searched.append(index)
            await saved()

        async def one(index: int, query: str) -> None:
            async with limiter:
                await emit("search_started", {"query": query})
                try:
                    response = await self.search.search(query, count=RESULTS_PER_QUERY)
                except NetsiftError as exc:
                    state.failed_searches += 1
                    await done(index, query)
                    await emit("search_done", {"query": query, "ok": False, "error": exc.to_dict()})
                    return
                fresh = [r for r in response.results if canonical_url(r.url) not in state.seen_urls]
                state.candidates.extend(Candidate(r, round, index) for r in fresh)
                await done(index, query)
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
            for index, query in enumerate(queries):
                if index not in state.round_searched:  # not already run before a takeover
                    group.start_soon(one, index, query)
        # The round's queries in their planned order, whatever order they finished in.
        run = [queries[index] for index in sorted(state.round_searched)]
        state.queries[len(state.queries) - len(run) :] = run
        state.round_searched = []

    async def _read(
        self,
        params: ResearchParams,
        state: RunState,
        emit: Emit,
        saved: Callable[[], Awaitable[None]],
    ) -> int:
        if state.round_chosen is None:
            state.round_chosen = self._choose(params, state)
            state.round_pages = {}
        chosen = state.round_chosen
        limiter = anyio.Semaphore(PAGES_AT_ONCE)

        async def one(result: SearchResult) -> None:
            if result.url in state.round_pages:  # read before a takeover: not again
                return
            async with limiter:
                await emit("fetch_started", {"url": result.url})
                try:
                    page = await self.fetcher.fetch(FetchOptions(url=result.url, format="text"))
                except NetsiftError as exc:
                    state.failed_pages += 1
                    state.round_pages[result.url] = None
                    await emit(
                        "fetch_done", {"url": result.url, "ok": False, "error": exc.to_dict()}
                    )
                else:
                    state.round_pages[result.url] = ReadPage(
                        page.final_url, page.title, page.content[:PAGE_CHARS]
                    )
                await saved()

        async with anyio.create_task_group() as group:
            for result in chosen:
                group.start_soon(one, result)
        # Numbers follow the choice order, so a run's numbering does not depend on timing.
        added = 0
        for result in chosen:
            read = state.round_pages.get(result.url)
            if read is not None:
                added += await self._add_source(result, read, state, emit)
        state.round_chosen, state.round_pages = None, {}
        return added

    def _choose(self, params: ResearchParams, state: RunState) -> list[SearchResult]:
        room = min(
            params.max_pages - len(state.sources),
            max(2, min(MAX_PAGES_A_ROUND, params.queries_per_round() * 2)),
        )
        # Newest round first, then each query's best results before anyone's second best.
        ordered = sorted(
            state.candidates, key=lambda c: (-c.round, c.result.rank or 99, c.query_index)
        )
        chosen = (
            choose_results(
                [c.result for c in ordered],
                state.seen_urls,
                room,
                per_site=PER_SITE_PER_ROUND,
                read=list(state.results.values()),
            )
            if room > 0
            else []
        )
        state.seen_urls.update(canonical_url(r.url) for r in chosen)
        state.candidates = [
            c for c in state.candidates if canonical_url(c.result.url) not in state.seen_urls
        ]
        return chosen

    async def _add_source(
        self, result: SearchResult, page: ReadPage, state: RunState, emit: Emit
    ) -> int:
        key = canonical_url(page.final_url)
        if key != canonical_url(result.url) and key in state.seen_urls:
            return 0  # a redirect to a page already read
        state.seen_urls.add(key)
        text = page.text
        n = len(state.sources) + 1
        state.sources[n] = Source(n, page.final_url, page.title or result.title, text)
        state.results[n] = result
        pieces = [Passage(n, piece) for piece in split_passages(text)]
        state.passages.extend(pieces)
        await emit(
            "fetch_done",
            {
                "url": result.url,
                "final_url": page.final_url,
                "ok": True,
                "n": n,
                "title": page.title or result.title,
                "passages": len(pieces),
            },
        )
        return 1

    async def _synthesize(self, question: str, state: RunState) -> None:
        ranked = rank_passages(question, state.passages, titles=state.titles())
        if self.llm is None or not ranked:  # nothing relevant to show a model: say so, free
            state.synthesis = synthesize_extractive(question, ranked, state.sources)
            return
        try:
            synthesis = await synthesize(question, ranked, state.sources, self.llm)
        except NetsiftError as exc:
            state.tokens += int(exc.details.get("tokens", 0))
            state.note(f"The model failed while writing the answer ({exc.code}).")
            if state.synthesis is None or not state.synthesis.citations:
                state.synthesis = synthesize_extractive(question, ranked, state.sources)
                state.note("The answer is extractive: the model could not write it.")
            return
        state.tokens += synthesis.tokens
        state.synthesis = synthesis

    async def _flag(self, state: RunState, emit: Emit, job_id: str | None) -> None:
        if state.synthesis is None:
            return
        for item in state.synthesis.discoveries:
            n = item.get("n")
            source = state.sources.get(n) if isinstance(n, int) else None
            title, description = str(item.get("title", "")), str(item.get("description", ""))
            if not title or not description:
                continue
            data: dict[str, Any] = {"title": title[:300], "description": description[:10_000]}
            data["url"] = source.url if source else None
            if self.discoveries is not None:
                try:
                    data["id"] = self.discoveries.flag(
                        data["title"], data["description"], data["url"], job_id=job_id
                    ).id
                except (NetsiftError, OSError):
                    continue
            await emit("discovery", data)
        state.synthesis.discoveries = []

    def _report(
        self, params: ResearchParams, state: RunState, iterations: int, stopped: str, started: float
    ) -> ResearchReport:
        synthesis = state.synthesis or Synthesis(answer="Nothing could be read.", citations=[])
        notes = list(state.notes)
        if state.failed_searches:
            notes.append(
                f"{state.failed_searches} of {state.searches} searches failed; "
                "the answer rests on fewer sources."
            )
        if state.failed_pages:
            notes.append(f"{state.failed_pages} pages could not be read.")
        if synthesis.unsupported:
            notes.append(
                f"{synthesis.unsupported} claims were not supported by the sentences they "
                "cite and were left out."
            )
        if synthesis.unverified:
            notes.append(
                f"{synthesis.unverified} citations could not be verified against their "
                "sources and were dropped."
            )
        if self.llm is None:
            notes.append("Extractive mode: no language model is configured (NETSIFT_LLM_MODEL).")
        sources = [
            state.results[n].model_copy(
                update={
                    "url": state.sources[n].url,
                    "title": state.sources[n].title or "",
                    "rank": n,
                }
            )
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
            answered=synthesis.answered and bool(synthesis.citations),
            warnings=source_warnings(state.sources, synthesis.warnings),
        )
