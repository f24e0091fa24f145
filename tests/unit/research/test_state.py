import json
from typing import Any, cast

import pytest

from netsift.jobs.sqlite import MemoryJobStore
from netsift.models import Citation, EventType, ResearchReport, SearchResult
from netsift.params import ResearchParams
from netsift.research.agent import ResearchAgent
from netsift.research.kind import research_kind
from netsift.research.state import Candidate, ReadPage, RunState, join_texts, split_texts
from netsift.research.synthesis import Source, Synthesis

A, B = "host-a:1:a", "host-b:2:b"


def _result(n: int) -> SearchResult:
    return SearchResult(title=f"T{n}", url=f"https://s{n}.test/p", source="searxng", rank=n)


def _state(sources: int) -> RunState:
    state = RunState(queries=["q one", "q two"], searches=2, seen_urls={"https://s0.test/p"})
    state.candidates = [Candidate(_result(99), 1, 0)]
    for n in range(1, sources + 1):
        state.sources[n] = Source(n, f"https://s{n}.test/p", f"T{n}", f"Text of page {n}. " * 40)
        state.results[n] = _result(n)
    state.round_chosen = [_result(7), _result(8)]
    state.round_pages = {
        "https://s7.test/p": ReadPage("https://s7.test/p", "Seven", "Round page seven. " * 30),
        "https://s8.test/p": None,
    }
    state.synthesis = Synthesis(
        answer="A [1].",
        citations=[Citation(n=1, url="https://s1.test/p", title="T1", quote="Text of page 1.")],
        tokens=12,
        unverified=0,
    )
    return state


def test_a_state_split_from_its_texts_joins_back_exactly():
    full = _state(3).to_dict()
    slim, texts = split_texts(full)
    assert len(texts) == 4  # three sources and the page of the round in progress
    assert not any(text in json.dumps(slim) for text in texts.values())
    joined = join_texts(slim, texts)
    assert joined == full
    assert RunState.from_dict(joined).to_dict() == full
    assert join_texts(full, {}) == full  # a checkpoint saved whole still resumes


def test_a_missing_or_altered_text_is_refused():
    slim, texts = split_texts(_state(2).to_dict())
    sha = next(iter(texts))
    with pytest.raises(ValueError, match="missing or altered"):
        join_texts(slim, {k: v for k, v in texts.items() if k != sha})
    with pytest.raises(ValueError, match="missing or altered"):
        join_texts(slim, {**texts, sha: texts[sha] + "!"})


class _Stop(Exception):
    pass


class _Agent:
    """Saves the given checkpoints, then stops as a killed worker would; records its resume."""

    def __init__(self, checkpoints: list[dict[str, Any]]) -> None:
        self.checkpoints = checkpoints
        self.resume: dict[str, Any] | None = None

    async def run(self, params: ResearchParams, **kw: Any) -> ResearchReport:
        self.resume = kw["resume"]
        for checkpoint in self.checkpoints:
            await kw["save"](checkpoint)
        raise _Stop


async def _attempt(store: MemoryJobStore, job_id: str, worker: str, agent: _Agent) -> list[int]:
    """One attempt of the research kind, wired to the store as the executor wires it; the
    number of texts each `keep` wrote."""
    kept: list[int] = []

    async def emit(type: EventType, data: dict[str, Any]) -> None:
        return None

    async def save(checkpoint: dict[str, Any]) -> None:
        await store.save_checkpoint(job_id, worker, checkpoint, {})

    async def keep(texts: dict[str, str]) -> None:
        kept.append(len(texts))
        await store.save_texts(job_id, worker, texts)

    kind = research_kind(lambda: cast(ResearchAgent, agent))
    context = kind.context(
        await store.get(job_id),
        saved=await store.checkpoint(job_id),
        emit=emit,
        save=save,
        store=store,
        texts=await store.texts(job_id),
        keep=keep,
    )
    with pytest.raises(_Stop):
        await kind.run(context)
    return kept


async def test_a_resumed_job_gets_the_state_it_saved_and_each_text_is_written_once():
    store = MemoryJobStore()
    job = await store.create("research", ResearchParams(question="what is q").model_dump())
    await store.claim(A, lease=60)
    saves = [
        {"step": "read", "iteration": 1, "queries": ["q"], "added": 0, "elapsed": 1.0, "state": s}
        for s in (_state(2).to_dict(), _state(3).to_dict(), _state(3).to_dict())
    ]
    first = _Agent(saves)
    # Three texts at first, then only the new source; nothing when nothing is new.
    assert await _attempt(store, job.id, A, first) == [3, 1]
    assert first.resume is None
    stored = json.dumps(await store.checkpoint(job.id))
    assert "Text of page 1. Text of page 1." not in stored
    await store.release(job.id, A)
    await store.claim(B, lease=60)
    second = _Agent([saves[-1]])
    assert await _attempt(store, job.id, B, second) == []  # every text was already kept
    assert second.resume == saves[-1]
    await store.aclose()
