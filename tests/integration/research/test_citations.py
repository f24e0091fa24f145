"""Invented quotes never reach a report: re-asked once, then dropped and their markers marked."""

from __future__ import annotations

from netsift.client import Client
from netsift.research.citations import quote_occurs
from tests.integration.research.web import QUESTION


async def test_a_hallucinated_quote_is_asked_again_and_the_fix_verified(
    research_settings, research_web, llm
):
    llm.state.modes.extend(["ok", "hallucinate"])  # the plan is fine, the first answer is not
    async with Client(research_settings()) as client:
        report = await client.research(QUESTION, depth="quick")
        for citation in report.citations:
            page = await client.fetch(citation.url, format="text")
            assert quote_occurs(citation.quote, page.content)
    assert llm.state.count("answer") == 2
    assert "do not occur word for word" in str(llm.state.requests[-1]["messages"])
    assert report.citations and "[unverified]" not in report.answer
    assert not any("could not be verified" in note for note in report.notes)


async def test_quotes_that_stay_invented_are_dropped_and_marked(
    research_settings, research_web, llm
):
    llm.state.sticky.add("hallucinate_always")
    async with Client(research_settings()) as client:
        report = await client.research(QUESTION, depth="quick")
    assert llm.state.count("answer") == 2  # asked again once, no more
    assert report.citations == []
    assert "[unverified]" in report.answer and "[1]" not in report.answer
    assert any("could not be verified" in note for note in report.notes)
