"""Every fenced code block of README.md and docs/*.md, run against the offline tour.

The rules a docs writer follows (one test per block, named `FILE:LINE`):

- A block marked by the line `<!-- not-run: REASON -->` immediately before its opening fence is
  skipped; the reason must say why (configuration, an output sample, needs a key or a real
  service, a long-running server covered elsewhere). An empty reason fails.
- `sh`, `bash` and `shell` blocks are shell scripts: run by `bash -e -o pipefail` in the
  repository, with the tour's env file loaded and `.venv/bin` first on PATH.
- `console` blocks are a session: lines starting with `$ ` (and the `\\`-continued lines after
  them) are the commands, run as above; every other line is the output shown to the reader and
  is not compared (it differs in ports, times and order of runs).
- `python` blocks are complete scripts, run by this virtualenv's python with the same env.
- Any other language (`text`, `json`, `toml`, …) or none cannot run: it must carry the marker.
- Addresses of the offline web's `.test` hosts may be written with any port (`news.test:8000`);
  the test writes in the port that serves that host in this run. `netsift serve` and
  `netsift mcp` run until stopped, so blocks starting them carry the marker and
  `tests/e2e/test_tour.py` runs them (serve in the background, then a request; MCP through the
  official SDK's client).
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.offline_web import linked
from tests.offline_web.providers import HOSTS as PROVIDER_HOSTS
from tests.offline_web.shell import COMMAND_TIMEOUT, TourShell, tour_shell
from tests.offline_web.site import HOSTS as WEB_HOSTS
from tests.offline_web.tour import parse_ports
from tests.paths import REPO

SHELL = frozenset({"sh", "bash", "shell"})
RUNNABLE = SHELL | {"console", "python"}
MARKER = re.compile(r"^<!--\s*not-run:(.*?)-->\s*$")
FENCE = re.compile(r"^(`{3,}|~{3,})\s*([\w+-]*)")
TEST_HOST_PORT = re.compile(r"\b([a-z0-9.-]+\.test):\d+")


@dataclass(frozen=True)
class Block:
    path: Path
    line: int  # of the opening fence, 1-based
    lang: str
    code: str
    not_run: str | None  # the marker's reason ("" when the marker is empty)

    @property
    def name(self) -> str:
        return f"{self.path.relative_to(REPO)}:{self.line}"


def blocks_of(path: Path, text: str | None = None) -> list[Block]:
    """The fenced blocks of one Markdown file, with the marker line above each, if any."""
    lines = (path.read_text("utf-8") if text is None else text).splitlines()
    found: list[Block] = []
    index = 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if not opening:
            index += 1
            continue
        fence, lang = opening.group(1), opening.group(2).lower()
        end = index + 1
        while end < len(lines) and not lines[end].startswith(fence):
            end += 1
        marker = MARKER.match(lines[index - 1].strip()) if index > 0 else None
        found.append(
            Block(
                path=path,
                line=index + 1,
                lang=lang,
                code="\n".join(lines[index + 1 : end]) + "\n",
                not_run=marker.group(1).strip() if marker else None,
            )
        )
        index = end + 1
    return found


def doc_files() -> list[Path]:
    return [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


BLOCKS = [block for path in doc_files() for block in blocks_of(path)]


def console_commands(code: str) -> str:
    """The `$ ` commands of a console block (with their continuation lines), as a script."""
    commands: list[str] = []
    continuing = False
    for line in code.splitlines():
        if line.startswith("$ "):
            commands.append(line[2:])
        elif continuing:
            commands.append(line)
        else:
            continue
        continuing = line.rstrip().endswith("\\")
    return "\n".join(commands) + "\n"


def with_ports(code: str, ports: dict[str, int]) -> str:
    """`host.test:ANY` → the port serving that host in this run (unknown hosts stay as written)."""
    where = {host: ports["web"] for host in WEB_HOSTS}
    where |= {host: ports["pages"] for host in linked.HOSTS}
    where |= {host: ports["providers"] for host in PROVIDER_HOSTS}

    def port_of(match: re.Match[str]) -> str:
        host = match.group(1)
        return f"{host}:{where[host]}" if host in where else match.group(0)

    return TEST_HOST_PORT.sub(port_of, code)


@pytest.fixture(scope="module")
def shell(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TourShell]:
    with tour_shell(home=tmp_path_factory.mktemp("home")) as running:
        yield running


def test_the_docs_have_blocks_and_markers_parse() -> None:
    assert len(BLOCKS) > 20
    example = "<!-- not-run: a config file -->\n```toml\nx = 1\n```\n"
    marked = blocks_of(REPO / "example.md", example)
    assert marked[0].not_run == "a config file" and marked[0].lang == "toml"
    assert console_commands("$ a \\\n  b\nout\n$ c\n") == "a \\\n  b\nc\n"
    assert with_ports(
        "curl news.test:1/x nowhere.test:2", {"web": 7, "pages": 8, "providers": 9}
    ) == ("curl news.test:7/x nowhere.test:2")


@pytest.mark.parametrize("block", BLOCKS, ids=[block.name for block in BLOCKS])
def test_block_runs(block: Block, shell: TourShell) -> None:
    if block.not_run is not None:
        assert block.not_run, f"{block.name}: a not-run marker must say why"
        pytest.skip(f"not-run: {block.not_run}")
    assert block.lang in RUNNABLE, (
        f"{block.name}: a `{block.lang or 'plain'}` block cannot run; make it sh/console/python "
        "or put `<!-- not-run: REASON -->` on the line before its fence"
    )
    code = with_ports(block.code, parse_ports(shell.env_text))
    if block.lang == "python":
        done = subprocess.run(
            [sys.executable, "-c", code],
            cwd=REPO,
            env=shell.env,
            capture_output=True,
            text=True,
            timeout=COMMAND_TIMEOUT,
            check=False,
        )
    else:
        script = console_commands(code) if block.lang == "console" else code
        done = shell.run(f"set -eo pipefail\n{script}")
    assert done.returncode == 0, (
        f"{block.name} ({block.lang}) exited {done.returncode}\n--- code\n{code}"
        f"--- stdout\n{done.stdout[-1500:]}\n--- stderr\n{done.stderr[-2500:]}"
    )
