"""The offline tour, run as the README says: `python -m tests.offline_web`, then its commands.

Every command the env file prints must work as printed in a shell that loaded it; research must
answer with citations netsift verified against the pages; and trying it must leave the user's own
data directory alone (HOME points at an empty folder here, and the tour's scratch directory is
removed when it stops).
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.offline_web.shell import TourShell, tour_shell
from tests.offline_web.tour import FAILING_PROVIDER


@pytest.fixture(scope="module")
def shell(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TourShell]:
    with tour_shell(home=tmp_path_factory.mktemp("home")) as running:
        yield running


def test_the_env_opens_the_guard_to_one_address_and_a_scratch_data_dir(shell: TourShell) -> None:
    assert shell.tour_env["NETSIFT_ALLOW_NETWORKS"] == "127.0.0.1/32"
    data_dir = Path(shell.tour_env["NETSIFT_DATA_DIR"])
    assert data_dir.is_dir() and data_dir.name.startswith("netsift-offline-tour-")
    assert len(shell.commands) >= 8


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
