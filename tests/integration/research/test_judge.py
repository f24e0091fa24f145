"""With a model configured, the sentences the injection rules find suspicious but leave in
are judged by the model (research/judge.py, strict output): those it calls instructions are
never shown to the answering model nor published, and the report names them. The scripted
model judges by the words a test gives it."""

from __future__ import annotations

import json

from netsift.client import Client
from netsift.models import ResearchReport
from tests.integration.research.fixtures import ResearchSettings
from tests.integration.research.web import Doc, WebState, build_app
from tests.offline_web.server import LiveServer, serve

BORDERLINE = "Helpers compiling the visitor guide list the founding year as 1802."
PAGES = (
    Doc(
        "museum.test",
        "/weaving",
        "The Harwick weaving museum",
        (
            "The Harwick weaving museum opened in a former wool hall by the river.",
            BORDERLINE,
            "Its collection covers four centuries of hand-loom weaving in the valley.",
        ),
    ),
)
QUESTION = "When was the Harwick weaving museum founded?"


def _answer_prompts(llm) -> str:
    bodies = [b for b in llm.state.requests if "Answer the question" in json.dumps(b)]
    return json.dumps(bodies)


async def _research(research_settings: ResearchSettings, web: LiveServer) -> ResearchReport:
    settings = research_settings(
        resolve=[f"{host}:127.0.0.1" for host in ("search.test", "museum.test")],
        searxng_url=f"http://search.test:{web.port}",
    )
    async with Client(settings) as client:
        return await client.research(QUESTION, depth="quick")


async def test_a_sentence_the_model_judges_an_instruction_is_set_aside(research_settings, llm):
    llm.state.instruction_words.append("1802")
    with serve(build_app(WebState(), PAGES)) as web:
        report = await _research(research_settings, web)
    assert llm.state.count("judge") == 1
    assert "1802" not in _answer_prompts(llm)  # the answering model never saw it
    assert "1802" not in report.answer and not any("1802" in c.quote for c in report.citations)
    assert [w for w in report.warnings if "judged an instruction" in w and "1802" in w]


async def test_a_sentence_the_model_clears_stays_evidence(research_settings, llm):
    with serve(build_app(WebState(), PAGES)) as web:
        report = await _research(research_settings, web)
    assert llm.state.count("judge") == 1
    assert "1802" in _answer_prompts(llm)  # the rules' judgment stands: data, shown
    assert report.warnings == []
