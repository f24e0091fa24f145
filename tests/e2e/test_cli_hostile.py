"""A hostile page through `netsift fetch URL`, the one-shot path (its extraction worker forked
from the command itself, netsift/oneshot.py): the command ends within its budget with the
stable `too_complex` error and exit code, never a hang or a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from netsift.errors import TooComplex
from tests.e2e.cli import subprocess_call
from tests.offline_web.hostile import runaway
from tests.offline_web.server import LiveServer

CPU_SECONDS = 1  # the budget a task gets; a hang would meet subprocess_call's time-out


@pytest.mark.parametrize("as_json", [True, False])
def test_a_runaway_page_ends_the_command_as_too_complex(
    hostile_site: LiveServer, tmp_path: Path, as_json: bool
) -> None:
    netsift = subprocess_call(
        {
            "NETSIFT_DATA_DIR": str(tmp_path),
            "NETSIFT_ALLOW_NETWORKS": "127.0.0.1/32",
            "NETSIFT_RESPECT_ROBOTS": "false",
            "NETSIFT_TASK_CPU_SECONDS": str(CPU_SECONDS),
        }
    )
    run = netsift("fetch", hostile_site.url("/runaway"), *(["--json"] if as_json else []))
    assert run.code == TooComplex.exit_code, run.stderr
    if as_json:
        error = run.json()["error"]
        assert error["code"] == "too_complex"
        assert error["details"]["limit"] == "cpu"
    else:
        assert run.stderr.startswith("error: the page at ")
        assert "(too_complex)" in run.stderr


def test_a_runaway_file_ends_extract_as_too_complex(tmp_path: Path) -> None:
    """`netsift extract FILE` reads the file under the same budget as a fetched page."""
    hostile = tmp_path / "runaway.html"
    hostile.write_bytes(runaway())
    netsift = subprocess_call(
        {"NETSIFT_DATA_DIR": str(tmp_path), "NETSIFT_TASK_CPU_SECONDS": str(CPU_SECONDS)}
    )
    run = netsift("extract", str(hostile), "--json")
    assert run.code == TooComplex.exit_code, run.stderr
    assert run.json()["error"]["details"]["limit"] == "cpu"
