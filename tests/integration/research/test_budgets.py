"""Every budget stops the loop, and says so in `stopped_because`; failures degrade, never hang."""

from __future__ import annotations

import time
from typing import Any

from netsift.client import Client
from netsift.config import Settings
from netsift.models import ResearchReport
from tests.integration.research.web import QUESTION, rank_docs


async def _research(settings: Settings, **options: Any) -> ResearchReport:
    async with Client(settings) as client:
        return await client.research(QUESTION, **options)


async def test_answered_when_the_review_finds_no_gap(research_settings, research_web, llm):
    report = await _research(research_settings(), depth="standard")
    assert report.stopped_because == "answered" and report.iterations == 1
    assert llm.state.count("gaps") == 1


async def test_max_iterations(research_settings, research_web, llm):
    llm.state.gaps.extend([["webb sunshield kapton layers"], ["webb project cost dollars"]])
    report = await _research(research_settings(), breadth=1, max_iterations=2)
    assert report.stopped_because == "max_iterations" and report.iterations == 2
    assert report.queries[1] == "webb sunshield kapton layers"
    assert any("sunshield.test" in s.url for s in report.sources)
    assert llm.state.count("answer") == 2 and llm.state.count("gaps") == 1


async def test_max_searches(research_settings, research_web, llm):
    report = await _research(research_settings(), breadth=4, max_searches=2)
    assert report.stopped_because == "max_searches"
    assert report.searches == 2 and len(research_web.state.searches) == 2


async def test_max_pages(research_settings, research_web, llm):
    report = await _research(research_settings(), max_pages=2)
    assert report.stopped_because == "max_pages" and report.pages_read == 2
    assert len(research_web.state.pages) == 2  # nothing beyond the budget was even fetched


async def test_max_tokens(research_settings, research_web, llm):
    report = await _research(research_settings(), max_tokens=1000)
    assert report.stopped_because == "max_tokens" and report.tokens >= 1000
    assert llm.state.count("gaps") == 0  # no model call after the budget ran out


async def test_deadline_stops_slow_reading_and_still_answers(research_settings, research_web, llm):
    research_web.state.page_latency = 10.0
    started = time.monotonic()
    report = await _research(research_settings(), deadline=1.5)
    assert report.stopped_because == "deadline"
    assert time.monotonic() - started < 5
    assert report.pages_read == 0 and report.answer
    assert any("deadline" in note for note in report.notes)


async def test_no_new_information(research_settings, research_web, llm):
    # Round 1 (4 queries, room for 8 pages) reads every page of the web but the mirror copy;
    # the gap query then finds only a page already read.
    assert [d.host for d in rank_docs("Kourou Ariane French Guiana")] == ["launch.test"]
    llm.state.gaps.append(["Kourou Ariane French Guiana"])
    report = await _research(research_settings(), breadth=4, max_iterations=3)
    assert report.pages_read == 7
    assert report.stopped_because == "no_new_information" and report.iterations == 2
    assert research_web.state.searches[-1] == "Kourou Ariane French Guiana"


async def test_some_searches_failing_means_fewer_sources_said_in_the_report(
    research_settings, research_web, llm
):
    research_web.state.failing_searches = "overview"
    report = await _research(research_settings(), depth="quick")
    assert report.citations and report.pages_read > 0
    assert any("1 of 4 searches failed" in note for note in report.notes)


async def test_every_search_failing_ends_quickly_with_an_honest_answer(
    research_settings, research_web, llm
):
    research_web.state.failing_searches = "all"
    started = time.monotonic()
    report = await _research(research_settings(), depth="deep")
    assert time.monotonic() - started < 10
    assert report.stopped_because == "no_new_information" and report.iterations == 1
    assert report.sources == [] and report.citations == []
    assert any("4 of 4 searches failed" in note for note in report.notes)
    assert llm.state.count("answer") == 0


async def test_a_large_search_budget_widens_the_rounds(research_settings, research_web, llm):
    # 40 searches over 2 rounds and no breadth: each round plans 20 queries, and the run
    # spends the budget rather than stopping at a fixed shape's 2 x 4.
    llm.state.gaps.append([f"webb follow-up {n}" for n in range(25)])
    # SearXNG's default limit is a public instance's 5/s; this one is ours.
    settings = research_settings(provider_rate_limits=["searxng=100/second"])
    report = await _research(settings, max_searches=40, max_iterations=2)
    assert report.iterations == 2 and report.searches == 40
    assert len(research_web.state.searches) == 40


async def test_without_a_budget_a_round_is_four_queries(research_settings, research_web, llm):
    report = await _research(research_settings(), depth="quick")
    assert report.searches == 4 and len(research_web.state.searches) == 4


async def test_a_wide_round_waits_for_the_providers_rate_limit_instead_of_losing_searches(
    research_settings, research_web, llm
):
    # 20 queries a round against SearXNG's published 5/s: a search whose slot is more than
    # the limiter's usual 1.5 s away is waited for (within research's deadline), not failed.
    llm.state.gaps.append([f"webb follow-up {n}" for n in range(25)])
    report = await _research(research_settings(), max_searches=40, max_iterations=2)
    assert report.iterations == 2 and report.searches == 40
    assert not [note for note in report.notes if "searches failed" in note]
    assert len(research_web.state.searches) == 40
