"""A refused start URL fails a crawl on every door, with that URL's error: the CLI exits
non-zero, `POST /v1/crawl` answers the error (no job is queued), MCP's web_crawl returns an
error result and Tavily's `/crawl` its error body. Never "0 pages, done"."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client as MCPClient

from netsift.client import Client
from netsift.config import Settings
from netsift.mcp import create_server
from netsift.server import create_app
from tests.e2e.cli import subprocess_call
from tests.e2e.test_mcp import body
from tests.offline_web.server import serve

# (start URL, error code, CLI exit code): the cloud metadata address the guard refuses, and a
# host name the guard's parser refuses before anything decodes it
REFUSED = [
    ("http://169.254.169.254/latest/meta-data/", "blocked_address", 3),
    ("http://xn--localhost-/", "invalid_url", 2),
]


@pytest.fixture
def settings(make_settings: Callable[..., Settings], tmp_path: Path) -> Settings:
    return make_settings(jobs_url=f"sqlite:///{tmp_path / 'jobs.sqlite3'}")


@pytest.mark.parametrize(("url", "code", "exit_code"), REFUSED)
def test_the_cli_exits_with_the_start_urls_error(
    tmp_path: Path, url: str, code: str, exit_code: int
) -> None:
    env = {
        "NETSIFT_JOBS_URL": f"sqlite:///{tmp_path / 'jobs.sqlite3'}",
        "NETSIFT_DATA_DIR": str(tmp_path / "data"),
        "NETSIFT_CACHE_URL": "memory://",
    }
    call = subprocess_call(env)
    run = call("crawl", url, "--json")
    assert run.code == exit_code, run.stderr
    assert run.json()["error"]["code"] == code
    people = call("crawl", url)
    assert people.code == exit_code and code in people.stderr
    assert "pages" not in people.stderr  # no summary of an empty crawl


@pytest.mark.parametrize(("url", "code", "exit_code"), REFUSED)
def test_http_answers_the_start_urls_error(
    settings: Settings, url: str, code: str, exit_code: int
) -> None:
    with serve(create_app(settings), lifespan="on") as live:
        for params in ({}, {"wait": "true"}):
            answer = httpx.post(live.url("/v1/crawl"), params=params, json={"url": url}, timeout=30)
            assert answer.status_code in (400, 403), answer.text
            assert answer.json()["error"]["code"] == code
        tavily = httpx.post(live.url("/tavily/crawl"), json={"url": url}, timeout=30)
        assert tavily.status_code in (400, 403), tavily.text
        assert tavily.json()["detail"]["code"] == code
    assert anyio.run(_jobs, settings) == []  # none was queued


async def _jobs(settings: Settings) -> list[Any]:
    async with Client(settings) as client:
        return await client.list_jobs()


@pytest.mark.parametrize(("url", "code", "exit_code"), REFUSED)
async def test_mcp_web_crawl_returns_the_start_urls_error(
    settings: Settings, url: str, code: str, exit_code: int
) -> None:
    async with Client(settings) as client:
        async with MCPClient(create_server(client=client)) as mcp:
            result: Any = await mcp.call_tool("web_crawl", {"url": url})
    assert result.is_error and body(result)["error"]["code"] == code
