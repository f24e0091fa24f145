"""The research loop end to end: real searches (SearXNG format), real pages, the scripted model
over the openai SDK, guard on — every citation checked against the page it quotes."""

from __future__ import annotations

from netsift.client import Client
from netsift.research.citations import quote_occurs
from tests.integration.research.web import QUESTION


async def _check_citations(client: Client, report) -> None:
    """Every published citation's quote occurs in the text of the page it names."""
    assert report.citations
    for citation in report.citations:
        page = await client.fetch(citation.url, format="text", no_cache=True)
        assert quote_occurs(citation.quote, page.content), citation
        assert f"[{citation.n}]" in report.answer


async def test_llm_research_answers_with_verified_citations(research_settings, research_web, llm):
    async with Client(research_settings()) as client:
        report = await client.research(QUESTION, depth="quick")
        await _check_citations(client, report)
    assert report.mode == "llm" and report.stopped_because == "max_iterations"
    assert 3 <= len(report.queries) <= 6 and report.searches == len(report.queries)
    urls = [source.url for source in report.sources]
    assert len(urls) == len(set(urls)) and report.pages_read == len(urls)
    assert any("launch.test" in url for url in urls)
    # The near-duplicate mirror of the mirror page is folded, never read beside it.
    assert not ("mirror.test" in " ".join(urls) and "mirrorcopy.test" in " ".join(urls))
    assert report.tokens > 0 and llm.state.count("plan") == 1 and llm.state.count("answer") == 1


async def test_extractive_mode_without_a_model(research_settings, research_web, llm):
    async with Client(research_settings(with_llm=False)) as client:
        report = await client.research(QUESTION, depth="quick")
        await _check_citations(client, report)
    assert report.mode == "extractive" and report.tokens == 0
    assert report.answer.startswith("Extractive answer")
    assert any("Extractive mode" in note for note in report.notes)
    assert llm.state.requests == []
    quotes = " ".join(c.quote for c in report.citations)
    assert "25 December 2021" in quotes or "beryllium" in quotes
