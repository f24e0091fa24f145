"""A research run stopped in the middle of a round's searches (a worker killed) and resumed
from its checkpoint sends only the searches that had not answered: each search is saved as
it completes."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from netsift.client import Client
from netsift.params import ResearchParams
from tests.integration.research.web import QUESTION


class Killed(Exception):
    """The worker dying, right after a save."""


async def test_a_round_resumed_mid_search_sends_only_the_searches_not_done(
    research_settings, research_web, llm
):
    saves: list[dict[str, Any]] = []

    async def save_then_die(data: dict[str, Any]) -> None:
        if any(saved["step"] == "searching" for saved in saves):
            raise Killed  # dead: nothing more is saved
        saves.append(copy.deepcopy(data))
        if data["step"] == "searching":
            raise Killed  # right after the first search of the round was saved

    params = ResearchParams(question=QUESTION, depth="quick", breadth=3)
    async with Client(research_settings(with_llm=False)) as client:
        with pytest.raises(ExceptionGroup) as stopped:  # raised in a search's task
            await client._research_agent().run(params, save=save_then_die)
        assert stopped.group_contains(Killed)
        checkpoint = saves[-1]
        done = [checkpoint["queries"][i] for i in checkpoint["state"]["round_searched"]]
        assert done and checkpoint["state"]["searches"] == len(done)
        sent_before = list(research_web.state.searches)
        report = await client._research_agent().run(params, resume=checkpoint)
    resumed = research_web.state.searches[len(sent_before) :]
    assert not set(done) & set(resumed)  # answered and saved: not sent again
    assert sorted(report.queries) == sorted(checkpoint["queries"])
    assert report.searches == len(checkpoint["queries"]) and report.citations
