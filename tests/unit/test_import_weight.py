"""Each command loads only what it uses: importing netsift or the CLI loads no heavy stack.

An agent harness starts a process per tool call, so what an import drags in is paid on every
call. Checked in a fresh interpreter, since this test process has imported everything already.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from tests.offline_web.server import serve
from tests.paths import REPO

PAGE = REPO / "tests" / "offline_web" / "pages" / "article.html"

# What neither `import netsift` nor a Client nor `netsift --help` loads: the readers
# (trafilatura, pypdf and the PIL it brings, feedparser), the optional doors (openai, fastapi,
# mcp) and the research stack.
HEAVY = (
    "trafilatura",
    "pypdf",
    "PIL",
    "feedparser",
    "openai",
    "fastapi",
    "mcp",
    "netsift.research",
    "netsift.fetch.html",
)
# `netsift --help` opens neither the settings (pydantic-settings) nor the HTTP client, nor
# pydantic at all (the CLI's error boundary checks for its ValidationError without importing
# it), and the CLI never loads httpx's own command line (httpx._main: click, rich.progress,
# rich.syntax).
HELP_ALSO_SKIPS = (
    "pydantic_settings",
    "pydantic",
    "pydantic_core",
    "httpx",
    "netsift.client",
    "netsift.config",
)
CLI_SKIPS = ("httpx._main",)


def loaded_after(code: str) -> set[str]:
    """The modules a fresh interpreter holds (really imported, not blocked) after `code`."""
    probe = f"{code}\nimport json, sys\nprint(json.dumps([n for n, m in sys.modules.items() if m]))"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    return set(json.loads(done.stdout.splitlines()[-1]))


def heavy(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if any(m == n or m.startswith(n + ".") for n in names))


def test_import_netsift_loads_no_heavy_stack() -> None:
    modules = loaded_after("import netsift")
    assert heavy(modules, (*HEAVY, *HELP_ALSO_SKIPS, "rich")) == []


def test_the_public_names_still_resolve_in_a_fresh_process() -> None:
    names = "netsift.Client, netsift.Page, netsift.InvalidInput, netsift.search, netsift.extract"
    modules = loaded_after(f"import netsift\n{names}")
    assert "netsift.client" in modules
    assert heavy(modules, HEAVY) == []  # the readers load with the first page they read


def test_cli_help_loads_no_heavy_stack() -> None:
    code = (
        "import sys\nsys.argv = ['netsift', '--help']\nfrom netsift.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass"
    )
    modules = loaded_after(code)
    assert "netsift.cli.search" in modules  # the commands are registered
    assert heavy(modules, HEAVY + HELP_ALSO_SKIPS + CLI_SKIPS) == []


def test_a_cli_client_loads_neither_readers_nor_research_nor_httpx_cli() -> None:
    """What `netsift search` builds: a Client, under the CLI (so httpx comes without its CLI)."""
    modules = loaded_after("import netsift.cli\nfrom netsift.client import Client\nClient().http")
    assert "httpx" in modules
    assert heavy(modules, HEAVY + CLI_SKIPS) == []


def test_a_client_needs_none_of_the_optional_extras() -> None:
    """`pip install netsift` has no redis, server, mcp, llm or browser packages: building a
    Client and reading a page must not import them (each is imported where it is configured)."""
    blocked = ("redis", "fastapi", "uvicorn", "mcp", "openai", "playwright")
    code = (
        "import sys\n"
        + "".join(f"sys.modules[{name!r}] = None\n" for name in blocked)
        + "import netsift\nfrom netsift.client import Client\nClient()\n"
        + "netsift.extract('<html><body><p>hello there</p></body></html>')\n"
    )
    loaded_after(code)  # raises (the subprocess fails) on an ImportError


# What a cached search does not need: the HTTP stack (httpx, the guarded client: built with
# the first provider asked), the fetch stack (the page readers' dispatcher, the render
# step, the process pool), the `limits` library (no limit is checked on a cache hit), the
# research stack and the crawler (the command does not enter the job runner), and any provider
# module (a name is checked without importing it; the one asked loads when it is called).
SEARCH_SKIPS = (
    "httpx",
    "httpcore",
    "netsift.net.http",
    "netsift.search.failover",
    "netsift.fetch.fetcher",
    "netsift.compute",
    # the browser stack; render.actions, the page actions' models params.py validates fetch
    # options with, is pydantic alone and may load
    *(f"netsift.render.{m}" for m in ("renderer", "step", "interceptor", "chromium", "driver")),
    "netsift.net.robots",
    "pebble",
    "limits",
    "netsift.research.agent",
    "netsift.research.llm",
    "netsift.search.providers",
)

CACHED_SEARCH = """
import asyncio, sys
sys.modules.setdefault("httpx._main", None)
from netsift.cli.clients import jobless_client
from netsift.config import Settings
from netsift.models import SearchResponse
from netsift.search.service import SearchService
from netsift.search.cache import cache_key

async def main():
    settings = Settings(cache_url="memory://", providers=["brave"], brave_api_key="k")
    async with jobless_client(settings) as client:  # as `netsift search` holds it
        service = client.search_service
        key = cache_key("rust", providers=["brave"], count=10, merge=False, time_range=None,
                        region=None, safesearch="moderate")
        answer = SearchResponse(query="rust", results=[], provider="brave")
        await service.cache.set(key, answer.model_dump_json())
        found = await client.search("rust", providers=["brave"])
        assert found.cached, found

asyncio.run(main())
"""


def test_a_cached_search_loads_no_http_fetch_or_job_stack_limits_or_providers() -> None:
    """`netsift search` holds its Client without entering it (cli/clients.py), so the job
    runner's kinds (the crawler, the research runner) stay unloaded too."""
    modules = loaded_after(CACHED_SEARCH)
    assert "netsift.search.service" in modules
    assert heavy(modules, (*HEAVY, *SEARCH_SKIPS, "netsift.crawl")) == []


MCP_LISTING = """
import asyncio, sys
from mcp import Client as MCPClient
from netsift.config import Settings
from netsift.mcp import create_server

async def main():
    settings = Settings(cache_url="memory://", capabilities=["search", "fetch"])
    async with MCPClient(create_server(settings)) as mcp:
        tools = (await mcp.list_tools()).tools
        assert {"web_search", "web_fetch"} <= {tool.name for tool in tools}
        assert "netsift.client" not in sys.modules, "the Client was built before a tool call"
        found = await mcp.call_tool("web_search", {"query": "rust", "providers": ["nothere"]})
        assert found.is_error and "unknown provider" in found.content[0].text
        assert "netsift.client" in sys.modules  # built by the first call, which it answered

asyncio.run(main())
"""


def test_mcp_lists_its_tools_before_it_builds_a_client() -> None:
    """An MCP host starts a server per session and lists its tools at once."""
    modules = loaded_after(MCP_LISTING)  # the script asserts what loaded when
    assert "netsift.mcp" in modules


def test_the_forkserver_preload_brings_no_http_layer_or_settings() -> None:
    """What a pool worker starts with (compute.PRELOAD): the readers, not the fetcher's network
    half (httpx, the guarded HTTP layer, the settings, the render step)."""
    modules = loaded_after("import netsift.compute as c\nfor name in c.PRELOAD: __import__(name)")
    assert "trafilatura" in modules  # the HTML reader, warm in every worker
    skips = ("httpx", "pydantic_settings", "netsift.config", "netsift.net", "netsift.render")
    assert heavy(modules, skips) == []


FETCH_COMMAND = """
import os, sys, tempfile
os.environ.update(NETSIFT_DATA_DIR=tempfile.mkdtemp(), NETSIFT_ALLOW_NETWORKS="127.0.0.1/32",
                  NETSIFT_RESPECT_ROBOTS="false")
sys.argv = ["netsift", "fetch", {url!r}, "--json"]
from netsift.cli import main
from netsift import oneshot
try:
    main()
except SystemExit as done:
    assert not done.code, done.code
assert oneshot._worker is not None, "no worker was forked"
"""


def test_a_fetch_command_reads_the_page_in_its_worker_not_in_itself(page_url: str) -> None:
    """`netsift fetch URL`: the page is read in the command's forked worker, so the command's
    own process never imports the readers (trafilatura, lxml)."""
    modules = loaded_after(FETCH_COMMAND.format(url=page_url))
    assert "netsift.oneshot" in modules
    assert heavy(modules, (*HEAVY, "lxml")) == []


async def _article(request: Request) -> Response:
    return Response(PAGE.read_bytes(), media_type="text/html")


@pytest.fixture(scope="module")
def page_url() -> Iterator[str]:
    with serve(Starlette(routes=[Route("/article", _article)])) as server:
        yield server.url("/article")
