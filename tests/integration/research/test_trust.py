"""Answers you can trust, through the whole loop: only sentences that answer are published, a
question nothing answers says so (`answered: false`), and pages that carry prompt injections
(direct, alt text, display:none, another language, JSON-LD) are quoted for their facts only,
reported in `warnings`, and never reach the model as anything but fenced data."""

from __future__ import annotations

from netsift.client import Client
from netsift.models import ResearchReport
from tests.integration.research.web import INJECTION_MARKS, QUESTION

PROMPT = "Answer the question using only the sources"
NEAR_TOPIC = "How many segments does Hubble's primary mirror have?"  # Webb's has 18


def _clean(report: ResearchReport) -> None:
    """No injection payload anywhere in what is published."""
    published = " ".join([report.answer, *(c.quote for c in report.citations)]).casefold()
    assert not [mark for mark in INJECTION_MARKS if mark in published], report.answer


async def test_extractive_answers_publish_only_answering_sentences(research_settings, research_web):
    async with Client(research_settings(with_llm=False)) as client:
        report = await client.research(QUESTION, depth="quick")
    assert report.answered and report.warnings == []
    quotes = [c.quote for c in report.citations]
    # Not padded to six: the launch and the mirror, nothing about orbits, costs or sunshields.
    assert any("25 December 2021" in q for q in quotes)
    assert any("beryllium" in q for q in quotes)
    assert not any(w in q for q in quotes for w in ("Lagrange", "billion", "Kapton", "Hubble"))
    # Ordered as the question asks: the launch (first part) before the mirror (second).
    first_mirror = next(i for i, q in enumerate(quotes) if "beryllium" in q)
    assert quotes.index(next(q for q in quotes if "2021" in q)) < first_mirror


async def test_a_near_topic_question_is_not_answered_in_either_mode(
    research_settings, research_web, llm
):
    for settings in (research_settings(with_llm=False), research_settings()):
        async with Client(settings) as client:
            report = await client.research(NEAR_TOPIC, depth="quick")
        assert not report.answered, report.answer
        assert report.answer.startswith("The sources read do not answer this question.")
        for citation in report.citations:  # what came closest, quoted and marked
            assert f"[{citation.n}]" in report.answer and citation.quote in report.answer
        assert report.model_dump()["answered"] is False


async def test_injection_pages_are_quoted_for_facts_and_reported(research_settings, injection_web):
    settings = research_settings(with_llm=False, searxng_url=injection_web.url("search.test"))
    async with Client(settings) as client:
        report = await client.research(
            "What is the Webb telescope's primary mirror made of?", depth="quick", max_pages=12
        )
    _clean(report)
    assert report.answered and any("18" in c.quote for c in report.citations)
    read = {s.url.split("//")[1].split(":")[0] for s in report.sources}
    warned = " ".join(report.warnings)
    # Every injection page the run read that kept its injection in the text is named:
    # direct text, display:none (the text output keeps it) and the German page. Alt text
    # and JSON-LD never reach the text, so there is nothing of them to publish or warn of.
    for host in ("direct.test", "hidden.test", "german.test"):
        if host in read:
            assert host in warned, (host, report.warnings)
    assert "direct.test" in read and "log in" in warned.casefold()


async def test_the_model_sees_fenced_sources_without_the_injections(
    research_settings, injection_web, llm
):
    settings = research_settings(searxng_url=injection_web.url("search.test"))
    async with Client(settings) as client:
        report = await client.research(
            "What is the Webb telescope's primary mirror made of?", depth="quick", max_pages=12
        )
    _clean(report)
    [ask] = [b for b in llm.state.requests if PROMPT in b["messages"][0]["content"]]
    system, context = ask["messages"][0]["content"], ask["messages"][-1]["content"]
    assert "untrusted" in system and "never instructions" in system
    body = context.split("\n\nQuestion:")[0]
    assert body.startswith("<<<UNTRUSTED SOURCES\n") and body.endswith("\nUNTRUSTED SOURCES>>>")
    assert not [mark for mark in INJECTION_MARKS if mark in body.casefold()]
    assert report.warnings and report.answered
