"""The `research` job kind: a question in, a cited report out, resumable from any step.

Declared here, beside the agent it runs; the job runtime (jobs/runtime.py) starts, streams,
resumes and cancels it like every other kind. A checkpoint is the agent's state after a step;
the pages it read are kept apart, once each, and the checkpoint refers to them by hash.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from ..jobs.kind import JobContext, Kind, Outcome
from ..models import Event, EventType, ResearchReport
from ..params import ResearchParams

if TYPE_CHECKING:  # the agent (planner, synthesis, citations) loads with the first job
    from .agent import ResearchAgent

__all__ = [
    "ResearchCheckpoint",
    "ResearchPartial",
    "ResearchSource",
    "research_kind",
    "research_partial",
]


class ResearchCheckpoint(BaseModel):
    """Where a run stood after a step: the step, the round and its queries, the time spent
    and the agent's state (research/state.py's `RunState` as data, its texts by hash)."""

    step: str
    iteration: int
    queries: list[str]
    added: int = 0  # sources the round in progress had added when it was saved
    elapsed: float
    state: dict[str, Any]


class ResearchSource(BaseModel):
    n: int | None
    url: str | None
    title: str | None


class ResearchPartial(BaseModel):
    """What a job that did not finish had found: the queries it ran and the sources it read,
    numbered as they were, so an interrupted run is not lost."""

    partial: bool = True
    queries: list[str] = Field(default_factory=list)
    sources: list[ResearchSource] = Field(default_factory=list)


def research_partial(events: list[Event]) -> ResearchPartial:
    found = ResearchPartial()
    for event in events:
        if event.type == "planned":
            found.queries.extend(str(q) for q in event.data.get("queries", []))
        elif event.type == "fetch_done" and event.data.get("ok"):
            url = event.data.get("final_url") or event.data.get("url")
            source = ResearchSource(n=event.data.get("n"), url=url, title=event.data.get("title"))
            found.sources.append(source)
    return found


def research_kind(agent: Callable[[], ResearchAgent]) -> Kind[ResearchParams, ResearchReport]:
    """The kind, running `agent()`'s run, resumed from the job's checkpoint."""

    async def run(
        context: JobContext[ResearchParams, ResearchCheckpoint],
    ) -> Outcome[ResearchReport]:
        from .state import join_texts, split_texts  # with the agent, at the first job

        final: dict[str, Any] = {}
        resume = None
        if context.saved is not None:
            whole = join_texts(context.saved.state, context.texts)
            resume = {**context.saved.model_dump(), "state": whole}
        kept = set(context.texts)

        async def save(data: dict[str, Any]) -> None:
            """Each page's text is written once; the checkpoint refers to it by hash."""
            checkpoint = ResearchCheckpoint.model_validate(data)
            if context.keep is None:
                await context.save(checkpoint)
                return
            slim, texts = split_texts(checkpoint.state)
            new = {sha: text for sha, text in texts.items() if sha not in kept}
            if new:
                await context.keep(new)
                kept.update(new)
            await context.save(checkpoint.model_copy(update={"state": slim}))

        async def emit(type: EventType, data: dict[str, Any]) -> None:
            if type == "done":  # written by the executor with the status, atomically, once
                final.update(data)
            else:
                await context.emit(type, data)

        report = await agent().run(
            context.params, emit=emit, job_id=context.job.id, resume=resume, save=save
        )
        return Outcome(report, event=final)

    return Kind(
        "research",
        ResearchParams,
        ResearchReport,
        run,
        checkpoint=ResearchCheckpoint,
        partial=research_partial,
    )
