"""The edges a first user reaches, as real subprocesses: a file `extract` cannot read is said
(`unsupported_content_type`, exit 4, docs/errors.md), not printed as an empty page; and a model
configured on an install without the `llm` extra falls back to extractive research with a
warning naming the extra, as docs/research.md promises. (`netsift mcp --http` printing where it
listens is tests/e2e/test_mcp_http.py's.)"""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from tests.integration.research.fixtures import *  # noqa: F403
from tests.integration.research.web import QUESTION
from tests.timing import scaled

# A CLI start plus a quick extractive research run on the quiet development machine.
COMMAND_TIMEOUT = 60.0


def _netsift(
    *args: str, env: dict[str, str], prelude: str = ""
) -> subprocess.CompletedProcess[str]:
    """`netsift ARGS` in a fresh interpreter; `prelude` runs first (to hide a package)."""
    script = f"{prelude}import sys; sys.argv = ['netsift', *{list(args)!r}]; "
    script += "from netsift.cli import main; main()"
    return subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=scaled(COMMAND_TIMEOUT),
        stdin=subprocess.DEVNULL,
        check=False,
    )


def _png() -> bytes:
    header = struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0)
    chunk = b"IHDR" + header
    return (
        b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + chunk + struct.pack(">I", zlib.crc32(chunk))
    )


@pytest.mark.parametrize("kind", ["program", "image", "pdf"])
def test_extract_of_a_file_it_cannot_read_is_unsupported_content_type(
    kind: str, tmp_path: Path
) -> None:
    if kind == "program":
        path = Path(sys.executable).resolve()  # an executable of this machine's own format
    else:
        path = tmp_path / f"file.{kind}"
        path.write_bytes(_png() if kind == "image" else b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n")
    env = {"NETSIFT_DATA_DIR": str(tmp_path / "data")}
    done = _netsift("extract", str(path), env=env)
    assert done.returncode == 4, done.stderr
    assert done.stdout == "" and "(unsupported_content_type)" in done.stderr
    assert "Traceback" not in done.stderr
    as_json = _netsift("extract", str(path), "--json", env=env)
    error = json.loads(as_json.stdout)["error"]
    assert as_json.returncode == 4 and error["code"] == "unsupported_content_type"
    assert error["retryable"] is False and error["details"]["content_type"]


def test_extract_still_reads_html_and_text(tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    sentences = [
        f"On day {n} the tide at Kelby turned {n * 7 % 60} minutes past noon." for n in range(12)
    ]
    body = f"<article><p>{' '.join(sentences[:6])}</p><p>{' '.join(sentences[6:])}</p></article>"
    page.write_text(f"<html><head><title>Tides</title></head><body>{body}</body></html>")
    done = _netsift("extract", str(page), env={"NETSIFT_DATA_DIR": str(tmp_path / "data")})
    assert done.returncode == 0 and "On day 3 the tide at Kelby turned" in done.stdout


def test_a_model_without_the_llm_extra_falls_back_to_extractive_research(
    research_web, llm, tmp_path: Path
) -> None:
    env = {
        **research_web.env(),
        **llm.env(),  # a model configured, as a user's environment would have it
        "NETSIFT_DATA_DIR": str(tmp_path / "data"),
        "NETSIFT_CACHE_URL": "memory://",
    }
    hide_openai = "import sys; sys.modules['openai'] = None; "  # as after `pip install .`
    done = _netsift(
        "research", QUESTION, "--depth", "quick", "--json", env=env, prelude=hide_openai
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["mode"] == "extractive" and report["citations"]
    assert "pip install 'netsift[llm]'" in done.stderr and "extractively" in done.stderr
    assert llm.state.requests == []  # the model was never asked
