"""`netsift.research()`, the sync convenience, used the way a script uses it."""

from __future__ import annotations

import pytest

import netsift
from tests.integration.research.fixtures import *  # noqa: F403
from tests.integration.research.web import QUESTION


def test_research_returns_a_cited_report(research_settings, research_web, llm) -> None:
    report = netsift.research(QUESTION, settings=research_settings(), depth="standard")
    assert isinstance(report, netsift.ResearchReport)
    assert report.question == QUESTION and report.citations
    assert all(c.url in {s.url for s in report.sources} for c in report.citations)
    assert research_web.state.searches


def test_research_raises_typed_errors(research_settings, research_web, llm) -> None:
    with pytest.raises(netsift.InvalidInput) as caught:
        netsift.research("", settings=research_settings())
    assert caught.value.code == "invalid_input"
    assert research_web.state.searches == []
