"""Citations reach a report only verified: cited by sentence id or by quote, checked against
the fetched page; a failing one is re-asked once, then dropped and its marker marked."""

from __future__ import annotations

import re

from netsift.client import Client
from netsift.research.citations import quote_occurs
from tests.integration.research.web import QUESTION

PROMPT = "Answer the question using only the sources"
RETRY = "are not sentences of their sources"


async def _verified(client: Client, report) -> None:
    for citation in report.citations:
        page = await client.fetch(citation.url, format="text")
        assert quote_occurs(citation.quote, page.content), citation


async def test_the_model_sees_numbered_sentences_and_cites_them_by_id(
    research_settings, research_web, llm
):
    async with Client(research_settings()) as client:
        report = await client.research(QUESTION, depth="quick")
        await _verified(client, report)
    [ask] = [body for body in llm.state.requests if PROMPT in body["messages"][0]["content"]]
    context = ask["messages"][-1]["content"]
    assert re.search(r"^Source 1: .+ <http://[^>]+>$", context, re.MULTILINE)
    assert re.search(r"^1\.1 \S", context, re.MULTILINE)
    assert not re.search(r"^\[\d+\] ", context, re.MULTILINE)  # no quotable "[n] title" header
    ids = ask["response_format"]["json_schema"]["schema"]["properties"]["citations"]["items"]
    assert "1.1" in ids["properties"]["id"]["enum"]
    assert report.citations and llm.state.count("answer") == 1
    for citation in report.citations:
        assert f"[{citation.n}]" in report.answer
        assert re.search(rf"^{citation.n}\.\d+ {re.escape(citation.quote)}$", context, re.M)


async def test_a_hallucinated_quote_is_asked_again_and_the_fix_verified(
    research_settings, research_web, llm
):
    llm.state.modes.extend(["ok", "hallucinate"])  # the plan is fine, the first answer is not
    async with Client(research_settings()) as client:
        report = await client.research(QUESTION, depth="quick")
        await _verified(client, report)
    assert llm.state.count("answer") == 2
    assert RETRY in str(llm.state.requests[-1]["messages"])
    assert "invented by the model" in str(llm.state.requests[-1]["messages"])
    assert report.citations and "[unverified]" not in report.answer
    assert not any("could not be verified" in note for note in report.notes)


async def test_an_id_never_shown_is_asked_again(research_settings, research_web, llm):
    llm.state.modes.extend(["ok", "invent_ids"])
    async with Client(research_settings()) as client:
        report = await client.research(QUESTION, depth="quick")
        await _verified(client, report)
    assert llm.state.count("answer") == 2
    assert "id '1.99'" in str(llm.state.requests[-1]["messages"])
    assert report.citations and "[unverified]" not in report.answer


async def test_quotes_copied_with_their_id_are_verified_without_it(
    research_settings, research_web, llm
):
    llm.state.sticky.add("quotes")  # every answer quotes "2.1 The sentence." instead of ids
    async with Client(research_settings()) as client:
        report = await client.research(QUESTION, depth="quick")
        await _verified(client, report)
    assert llm.state.count("answer") == 1
    assert report.citations
    assert not any(re.match(r"\d+\.\d+ ", c.quote) for c in report.citations)


async def test_quotes_that_stay_invented_are_dropped_and_marked(
    research_settings, research_web, llm
):
    llm.state.sticky.add("hallucinate_always")
    async with Client(research_settings()) as client:
        report = await client.research(QUESTION, depth="quick")
        await _verified(client, report)
    assert llm.state.count("answer") == 2  # asked again once, no more
    assert any("could not be verified" in note for note in report.notes)
    # The invented quotes are gone; each claim (a real sentence of its source) is backed by
    # the sentence that states it, so what is published is verbatim and supports it.
    assert report.citations
    assert not any("invented by the model" in c.quote for c in report.citations)
    for citation in report.citations:
        assert f"[{citation.n}]" in report.answer
