"""The offline tour, run as the README says: `python -m tests.offline_web`, then its commands.

Every command the env file prints must work as printed in a shell that loaded it; it shows
every door (search, fetch, meta, map, crawl, render where a browser is installed, research,
the HTTP API with its web page and compatible APIs, MCP); research must answer with citations
netsift verified against the pages; and trying it must leave the user's own data directory and
the checkout alone (HOME points at an empty folder here, the tour's scratch directory is removed
when it stops, and `git status` is what it was).
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from netsift.config import Settings
from netsift.render.step import browser_available
from tests.offline_web.shell import TourShell, tour_shell
from tests.offline_web.tour import END, FAILING_PROVIDER
from tests.paths import REPO

# Real netsift processes: CI runs these beside two CPU burners (.ci/run), not in scripts/test.
pytestmark = pytest.mark.process


@pytest.fixture(scope="module")
def shell(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TourShell]:
    with tour_shell(home=tmp_path_factory.mktemp("home")) as running:
        yield running


def test_the_env_opens_the_guard_to_one_address_and_a_scratch_data_dir(shell: TourShell) -> None:
    assert shell.tour_env["NETSIFT_ALLOW_NETWORKS"] == "127.0.0.1/32"
    data_dir = Path(shell.tour_env["NETSIFT_DATA_DIR"])
    assert data_dir.is_dir() and data_dir.name.startswith("netsift-offline-tour-")
    assert len(shell.commands) >= 8


def test_the_tour_says_to_keep_it_running_and_load_its_env_file_elsewhere(
    shell: TourShell,
) -> None:
    first, *rest = shell.printed.splitlines()
    assert "keep this terminal open" in first and "second" in first
    env_file = Path(shell.env["HOME"]) / "offline.env"  # where tour_shell asked for it
    assert f". {env_file};" in first and env_file.read_text("utf-8") == shell.env_text
    assert rest[-1] == END and [line for line in rest if line.startswith("#   $ ")]


def test_the_tour_shows_every_door(shell: TourShell) -> None:
    said = "\n".join(shell.commands)
    doors = ["search ", "fetch ", "meta ", "map ", "crawl ", "research ", "serve ", "mcp_call"]
    doors += ["/v1/search", "/tavily/search", "/search?q=", "/v2/scrape", "<title>"]
    if browser_available(Settings(_env_file=None)):
        doors.append("--render")
    assert [door for door in doors if door not in said] == []


def test_every_tour_command_works_as_printed(shell: TourShell) -> None:
    failures = []
    for command in shell.commands:
        done = shell.run(command)
        if done.returncode != 0:
            failures.append(
                f"$ {command}\nexit {done.returncode}\n{done.stdout[-800:]}{done.stderr[-1500:]}"
            )
    assert not failures, "\n\n".join(failures)
    home = Path(shell.env["HOME"])
    assert not (home / ".local" / "share" / "netsift").exists()  # the user's data dir: untouched
    assert any(Path(shell.tour_env["NETSIFT_DATA_DIR"]).iterdir())  # the scratch one was used


def test_the_failover_command_shows_the_failing_provider(shell: TourShell) -> None:
    command = next(c for c in shell.commands if f"-p {FAILING_PROVIDER}," in c)
    done = shell.run(f"{command} --json")
    found = json.loads(done.stdout)
    attempts = [(a["provider"], a["ok"]) for a in found["attempts"]]
    assert attempts[0] == (FAILING_PROVIDER, False)
    assert attempts[-1] == ("brave", True) and found["results"]


@pytest.mark.parametrize("mode", ["extractive", "llm"])
def test_research_answers_with_verified_citations(shell: TourShell, mode: str) -> None:
    research = [c for c in shell.commands if " research " in c]
    command = next(
        c for c in research if c.startswith("NETSIFT_LLM_MODEL= ") == (mode == "extractive")
    )
    done = shell.run(f"{command} --json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["mode"] == mode
    assert report["citations"] and all(c["verified"] for c in report["citations"])
    assert any("25 December 2021" in c["quote"] for c in report["citations"])


def test_the_tour_leaves_no_scratch_directory_behind(tmp_path: Path) -> None:
    with tour_shell(home=tmp_path) as running:
        data_dir = Path(running.tour_env["NETSIFT_DATA_DIR"])
        assert (
            running.run(f"netsift search {shlex.quote('rust async runtime')} -p brave").returncode
            == 0
        )
        assert data_dir.is_dir()
    assert not data_dir.exists()


def _git_status() -> str | None:
    if shutil.which("git") is None or not (REPO / ".git").exists():
        return None
    done = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def test_the_tour_leaves_the_checkout_as_it_was(tmp_path: Path) -> None:
    before = _git_status()
    if before is None:
        pytest.skip("not a git checkout")
    with tour_shell(home=tmp_path) as running:
        for command in running.commands[:5]:  # search, fetch and meta, as a newcomer starts
            assert running.run(command).returncode == 0, command
    assert _git_status() == before
