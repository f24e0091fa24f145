"""`netsift research`, `netsift jobs` through the CLI, configured by the environment only."""

from __future__ import annotations

import json

import anyio
from typer.testing import CliRunner

from netsift.cli import app as cli_app
from tests.integration.research.fixtures import *  # noqa: F403
from tests.integration.research.web import QUESTION


def _env(research_web, llm, tmp_path, *, with_llm: bool = True) -> dict[str, str]:
    env = {
        **research_web.env(),
        "NETSIFT_DATA_DIR": str(tmp_path / "data"),
        "NETSIFT_CACHE_URL": "memory://",
    }
    if with_llm:
        env.update(llm.env())
    return env


async def _invoke(args: list[str], env: dict[str, str]):
    return await anyio.to_thread.run_sync(lambda: CliRunner().invoke(cli_app, args, env=env))


async def test_research_prints_progress_then_the_cited_report(research_web, llm, tmp_path):
    env = _env(research_web, llm, tmp_path)
    result = await _invoke(["research", QUESTION, "--depth", "quick"], env)
    assert result.exit_code == 0, result.output
    assert "round 1:" in result.stderr and "done: max_iterations" in result.stderr
    assert "Citations\n[1]" in result.stdout and "\nSources\n[1]" in result.stdout
    listed = await _invoke(["jobs", "--json"], env)
    [job] = json.loads(listed.stdout)
    assert job["status"] == "done" and job["params"]["question"] == QUESTION


async def test_research_json_with_budgets(research_web, llm, tmp_path):
    env = _env(research_web, llm, tmp_path, with_llm=False)
    args = ["research", QUESTION, "--json", "--max-searches", "2", "--deadline", "60"]
    result = await _invoke(args, env)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["mode"] == "extractive" and report["searches"] == 2
    assert report["stopped_because"] == "max_searches" and report["citations"]
    assert result.stderr == ""  # --json: nothing but the report


async def test_bad_options_exit_2_with_the_error(research_web, llm, tmp_path):
    env = _env(research_web, llm, tmp_path)
    result = await _invoke(["research", QUESTION, "--json", "--max-searches", "500"], env)
    assert result.exit_code == 2
    assert json.loads(result.stdout)["error"]["code"] == "invalid_input"


async def test_rounds_and_tokens_are_options_as_on_every_other_door(research_web, llm, tmp_path):
    env = _env(research_web, llm, tmp_path, with_llm=False)
    args = ["research", QUESTION, "--json", "--max-iterations", "1", "--max-tokens", "5000"]
    result = await _invoke(args, env)
    assert result.exit_code == 0, result.output
    listed = await _invoke(["jobs", "--json"], env)
    [job] = json.loads(listed.stdout)
    assert job["params"]["max_iterations"] == 1 and job["params"]["max_tokens"] == 5000
    refused = await _invoke(["research", QUESTION, "--json", "--max-tokens", "5"], env)
    assert refused.exit_code == 2 and "max_tokens" in refused.stdout


async def test_an_unanswered_question_says_so_for_people_and_in_json(research_web, llm, tmp_path):
    env = _env(research_web, llm, tmp_path, with_llm=False)
    question = "How many segments does Hubble's primary mirror have?"  # Webb's has them
    result = await _invoke(["research", question, "--depth", "quick"], env)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("The sources read do not answer this question.")
    assert "answered: false" in result.stderr
    result = await _invoke(["research", question, "--depth", "quick", "--json"], env)
    report = json.loads(result.stdout)
    assert report["answered"] is False and report["warnings"] == []
