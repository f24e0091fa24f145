"""`NETSIFT_HANDOFF`: a one-shot `--json` call handed to a running `netsift serve`, as real
processes. The server's settings, guard and limits answer it, and the command prints what it
would have printed itself; a server that is not there, or not on the loopback, leaves the call
to run here."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.fleet import Fleet, free_port
from tests.offline_web.fixtures import OfflineWeb
from tests.timing import scaled

# A CLI start and one page on the quiet development machine.
COMMAND_TIMEOUT = 60.0
# Fields that differ between any two reads of the same page.
VOLATILE = ("fetched_at", "elapsed_ms")


@pytest.fixture(scope="module")
def api(offline_web: OfflineWeb, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    tmp = tmp_path_factory.mktemp("handoff")
    with Fleet({**offline_web.env(), "NETSIFT_DATA_DIR": str(tmp / "server")}, tmp) as fleet:
        yield fleet.api()


def _netsift(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("NETSIFT_")}
    return subprocess.run(
        [sys.executable, "-m", "netsift", *args],
        capture_output=True,
        text=True,
        env={**clean, **env},
        timeout=scaled(COMMAND_TIMEOUT),
        check=False,
    )


def _stable(text: str) -> dict[str, Any]:
    page: dict[str, Any] = json.loads(text)
    return {key: value for key, value in page.items() if key not in VOLATILE}


def test_a_handed_off_fetch_prints_what_the_command_prints(
    api: str, offline_web: OfflineWeb, tmp_path: Path
) -> None:
    url = offline_web.url("news.test", "/article")
    here = {**offline_web.env(), "NETSIFT_DATA_DIR": str(tmp_path / "here")}
    local = _netsift("fetch", url, "--json", env=here)
    # The caller's own settings refuse the loopback (pinned, but not exempt from the guard):
    # the server's settings answer a handed-off call.
    pins = {"NETSIFT_RESOLVE": offline_web.env()["NETSIFT_RESOLVE"]}
    handed = _netsift("fetch", url, "--json", env={**pins, "NETSIFT_HANDOFF": api})
    assert local.returncode == handed.returncode == 0, handed.stderr
    assert _stable(handed.stdout) == _stable(local.stdout)
    refused = _netsift("fetch", url, "--json", env=pins)
    assert refused.returncode == 3  # without the server, the caller's guard answers
    assert json.loads(refused.stdout)["error"]["code"] == "blocked_address"


def test_errors_keep_their_object_and_exit_code(api: str, tmp_path: Path) -> None:
    env = {"NETSIFT_HANDOFF": api, "NETSIFT_DATA_DIR": str(tmp_path)}
    done = _netsift("meta", "http://169.254.169.254/latest/meta-data/", "--json", env=env)
    assert done.returncode == 3
    assert json.loads(done.stdout)["error"]["code"] == "blocked_address"
    bad = _netsift("fetch", "ftp://example.org/", "--json", env=env)
    assert bad.returncode == 2 and json.loads(bad.stdout)["error"]["code"] == "unsupported_scheme"


def test_no_server_or_a_remote_one_runs_the_call_here(
    offline_web: OfflineWeb, tmp_path: Path
) -> None:
    url = offline_web.url("news.test", "/article")
    here = {**offline_web.env(), "NETSIFT_DATA_DIR": str(tmp_path)}
    nobody = _netsift(
        "fetch", url, "--json", env={**here, "NETSIFT_HANDOFF": f"http://127.0.0.1:{free_port()}"}
    )
    assert nobody.returncode == 0 and json.loads(nobody.stdout)["title"]
    remote = _netsift(
        "fetch", url, "--json", env={**here, "NETSIFT_HANDOFF": "http://192.0.2.1:8080"}
    )
    assert remote.returncode == 0 and "ignored" in remote.stderr


def test_a_handed_off_extract_reads_the_file_the_server_is_sent(
    api: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`extract FILE --json` sends the file's text to `POST /v1/extract/html` (hand_off answers,
    rather than leaving the call to run here) and prints what the command prints itself."""
    from netsift.handoff import hand_off

    page = tmp_path / "page.html"
    page.write_text(
        "<html><head><title>Tide tables</title></head><body><article><h1>Tide tables</h1>"
        "<p>High water at the harbour mouth comes forty minutes before the town quay.</p>"
        "</article></body></html>",
        encoding="utf-8",
    )
    local = _netsift("extract", str(page), "--json", env={"NETSIFT_DATA_DIR": str(tmp_path)})
    monkeypatch.setenv("NETSIFT_HANDOFF", api)
    assert hand_off(["extract", str(page), "--json"]) == 0
    handed = capsys.readouterr().out
    assert local.returncode == 0, local.stderr
    assert "forty minutes" in json.loads(handed)["content"]
    assert _stable(handed) == _stable(local.stdout)
    binary = tmp_path / "program"
    binary.write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(64))
    assert hand_off(["extract", str(binary), "--json"]) is None  # read here, in its own words
