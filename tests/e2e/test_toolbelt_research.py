"""citation_pack of a research job: the report's cited pages, each with its quotes, read
again for their facts (the research test web, extractive research: deterministic)."""

from __future__ import annotations

from netsift.client import Client
from netsift.search.rank import canonical_url
from tests.integration.research.fixtures import *  # noqa: F403
from tests.integration.research.web import QUESTION


async def test_citation_pack_of_a_research_job(research_settings):
    settings = research_settings(
        with_llm=False,
        cache_url="memory://",
        capabilities=["search", "fetch", "research", "citations"],
    )
    async with Client(settings) as client:
        report = await client.research(QUESTION, depth="quick")
        (job,) = await client.list_jobs(limit=1)
        assert report.citations
        pack = await client.citation_pack(job_id=job.id, format="markdown", archive="off")
    quotes: dict[str, list[str]] = {}
    for citation in sorted(report.citations, key=lambda c: c.n):
        quotes.setdefault(canonical_url(citation.url), []).append(citation.quote)
    assert len(pack.sources) == len(quotes)
    for source in pack.sources:
        assert source.error is None and source.title and source.content_sha256
        assert source.passages == list(dict.fromkeys(quotes[canonical_url(source.url)]))
        assert source.archived_url is None  # archive="off"; wayback is switched off too
    assert pack.output.startswith(f"{pack.sources[0].n}. ")
