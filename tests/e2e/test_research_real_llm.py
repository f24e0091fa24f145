"""One research run end to end against a real small LLM (opt-in: scripts/test-local-llm).

Everything else in the suite talks to a scripted model; this run has llama.cpp's server and
Qwen2.5-Coder-0.5B plan the searches and write the cited answer, over the research web
(SearXNG-format search, pages on pinned .test hosts). A 0.5B model's wording is not stable
across machines and thread counts, so the asserts are about structure: the run used the
model, ended for a stated reason, published at least one citation, and every citation it
kept is really in its source (a fresh fetch of the page) with its marker in the answer.
The synthesis prompt numbers the sentences of each source and the model cites them by id,
which is what lets a model this small cite at all: asked for quotes, it quoted the source's
header line, which no page contains. Without the `local-llm` dependency group installed,
the test is skipped.
"""

from __future__ import annotations

import time

import pytest

from netsift.client import Client
from netsift.research.citations import quote_occurs
from tests.integration.research.fixtures import *  # noqa: F403
from tests.integration.research.fixtures import ResearchSettings, ResearchWeb, ScriptedLLM
from tests.integration.research.web import QUESTION
from tests.local_llm import RealLLM, real_llm  # noqa: F401  (the session fixture)

pytestmark = [pytest.mark.slow, pytest.mark.timeout(360)]

STOPS = {
    "answered",
    "max_iterations",
    "max_pages",
    "max_searches",
    "max_tokens",
    "no_new_information",
    "deadline",
}


async def test_a_quick_research_run_with_a_real_model(
    real_llm: RealLLM,  # noqa: F811
    research_settings: ResearchSettings,
    research_web: ResearchWeb,
    llm: ScriptedLLM,
) -> None:
    settings = research_settings(
        llm_model=real_llm.model,
        openai_base_url=real_llm.base_url,
        llm_timeout=240.0,  # one slow answer must not be asked twice by the SDK's retry
    )
    started = time.monotonic()
    async with Client(settings) as client:
        report = await client.research(
            QUESTION, depth="quick", breadth=2, max_pages=3, max_tokens=1000, deadline=240.0
        )
        elapsed = time.monotonic() - started
        pages = {
            c.url: (await client.fetch(c.url, format="text", no_cache=True)).content
            for c in report.citations
        }

    print(
        f"\nreal LLM ({real_llm.threads} threads): join {real_llm.join_seconds} s, "
        f"server start {real_llm.start_seconds} s, research run {elapsed:.1f} s; "
        f"{report.tokens} tokens, {report.searches} searches, {report.pages_read} pages, "
        f"{len(report.citations)} citations, stopped: {report.stopped_because}, "
        f"notes: {report.notes}\nqueries: {report.queries}\nanswer: {report.answer}\n"
        + "\n".join(f"[{c.n}] {c.quote}" for c in report.citations)
    )
    assert llm.state.requests == []  # the scripted model was never asked: the real one was
    assert report.mode == "llm"
    assert report.tokens > 0
    assert report.stopped_because in STOPS
    assert report.answer.strip()
    assert report.queries and research_web.state.searches
    assert report.sources and report.pages_read == len(report.sources) <= 3
    # The model wrote the answer: no extractive fallback stands in for it (its quotes would
    # pass every check below without the model citing anything).
    assert not any("extractive" in note for note in report.notes), report.notes
    assert report.citations, "the model's answer kept no verified citation"
    numbered = {source.rank: source.url for source in report.sources}
    for citation in report.citations:
        assert numbered[citation.n] == citation.url
        assert quote_occurs(citation.quote, pages[citation.url]), citation
        assert f"[{citation.n}]" in report.answer
