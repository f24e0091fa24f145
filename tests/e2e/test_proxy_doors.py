"""Every door through a proxy: the proxy is asked for the address the guard checked.

The research web (a SearXNG-format search and its pages, tests/integration/research/web.py)
is "the Internet" here: its hosts are pinned to a public address that the test proxy routes to
it (tests/offline_web/proxy.py). One more page lives on `rebind.test`, which answers netsift
with another public address and the proxy (its own name table) with 127.0.0.2, where a canary
listens on the research web's port. The guard is fully on (no network allowed). Through the
CLI, the HTTP API, MCP, research and crawl: ordinary fetches work, search and robots.txt
included, every request the proxy sees names an address, and the canary receives nothing.
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from mcp import Client as MCPClient

from netsift.client import Client
from netsift.config import Settings
from netsift.mcp import create_server
from netsift.server import create_app
from tests.e2e.cli import subprocess_call
from tests.integration.net.test_proxy_browser import page_app
from tests.integration.render.conftest import browser
from tests.integration.research.fixtures import ResearchWeb
from tests.integration.research.web import DOCS, HOSTS, QUESTION, Doc, WebState, build_app
from tests.offline_web.proxy import Canary, ForwardProxy, run_canary, run_proxy
from tests.offline_web.server import LiveServer, serve

PUBLIC = "93.184.215.14"  # every research web host "is" here; the proxy routes it home
PAGES = "93.184.215.16"  # page.test, a page with scripts and sockets, for the browser
REBOUND = "93.184.215.15"  # what rebind.test answers netsift
CANARY_HOST = "127.0.0.2"  # what rebind.test answers the proxy

# Worded like the research question, so the search ranks it among the first results.
SECRET = Doc(
    "rebind.test",
    "/webb-secret",
    "James Webb Space Telescope launch and primary mirror",
    ("The James Webb Space Telescope launched in 2021; its primary mirror is beryllium.",),
)


@pytest.fixture(scope="module")
def web() -> Iterator[ResearchWeb]:
    state = WebState()
    with serve(build_app(state, (*DOCS, SECRET))) as server:
        yield ResearchWeb(port=server.port, state=state)


@pytest.fixture
def canary(web: ResearchWeb) -> Iterator[Canary]:
    with run_canary(host=CANARY_HOST, port=web.port) as listener:
        yield listener


@pytest.fixture(scope="module")
def pages() -> Iterator[LiveServer]:
    with serve(page_app()) as server:
        yield server


@pytest.fixture
def proxy(web: ResearchWeb, pages: LiveServer) -> Iterator[ForwardProxy]:
    web.state.reset()
    with run_proxy(
        names={"rebind.test": CANARY_HOST},
        routes={
            (PUBLIC, web.port): ("127.0.0.1", web.port),
            (PAGES, pages.port): ("127.0.0.1", pages.port),
        },
    ) as forward:
        yield forward


def _pins() -> list[str]:
    hosts = (f"{host}:{PUBLIC}" for host in HOSTS)
    return [*hosts, f"rebind.test:{REBOUND}", f"page.test:{PAGES}"]


def _env(web: ResearchWeb, proxy_url: str, tmp_path: Path) -> dict[str, str]:
    return {
        "NETSIFT_RESOLVE": ",".join(_pins()),
        "HTTP_PROXY": proxy_url,
        "HTTPS_PROXY": proxy_url,
        "NETSIFT_PROVIDERS": "searxng",
        "SEARXNG_URL": web.url("search.test"),
        "NETSIFT_RETRIES": "0",
        "NETSIFT_DATA_DIR": str(tmp_path / "data"),
        "NETSIFT_CACHE_URL": "memory://",
        "NETSIFT_JOBS_URL": f"sqlite:///{tmp_path / 'jobs.sqlite3'}",
    }


def _settings(web: ResearchWeb, proxy: ForwardProxy, tmp_path: Path) -> Settings:
    return Settings(
        _env_file=None,
        resolve=_pins(),
        http_proxy=proxy.url,
        https_proxy=proxy.url,
        providers=["searxng"],
        searxng_url=web.url("search.test"),
        retries=0,
        data_dir=tmp_path / "data",
        cache_url="memory://",
    )


def _secret(web: ResearchWeb) -> str:
    return web.url("rebind.test", SECRET.path)


def assert_pinned(proxy: ForwardProxy) -> set[str]:
    """Every request the proxy was asked names an IP address; returns the authorities."""
    named = {a.target if a.method == "CONNECT" else a.target.split("/")[2] for a in proxy.asked}
    for authority in named:
        ipaddress.ip_address(authority.rsplit(":", 1)[0].strip("[]"))
    return named


def test_the_cli_fetches_through_the_proxy_by_address(
    web: ResearchWeb, proxy: ForwardProxy, canary: Canary, tmp_path: Path
) -> None:
    run = subprocess_call(_env(web, proxy.url, tmp_path))
    page = run("fetch", web.url("launch.test", "/webb-launch"), "--json")
    assert page.code == 0, page.stderr
    assert "Ariane 5" in page.json()["content"]
    asked = [a.target for a in proxy.asked]
    assert f"http://{PUBLIC}:{web.port}/robots.txt" in asked  # robots.txt is pinned too
    assert {a.host for a in proxy.asked} == {f"launch.test:{web.port}"}
    secret = run("fetch", _secret(web))
    assert secret.code == 4 and "(connect_error)" in secret.stderr, secret.stderr
    assert assert_pinned(proxy) == {f"{PUBLIC}:{web.port}", f"{REBOUND}:{web.port}"}
    assert canary.connections == 0


def test_the_cli_says_when_the_proxy_refuses_addresses(web: ResearchWeb, tmp_path: Path) -> None:
    with run_proxy(names={"launch.test": "127.0.0.1"}, names_only=True) as strict:
        run = subprocess_call(_env(web, strict.url, tmp_path))
        refused = run("fetch", web.url("launch.test", "/webb-launch"))
    assert refused.code == 4, refused.stderr
    assert refused.stderr.rstrip().endswith("(proxy_refused)")
    assert "NETSIFT_PROXY_ENFORCES_EGRESS" in refused.stderr
    assert all("launch.test" not in a.target for a in strict.asked)


async def test_the_http_api_and_mcp_through_the_proxy(
    web: ResearchWeb, proxy: ForwardProxy, canary: Canary, tmp_path: Path
) -> None:
    good = web.url("mirror.test", "/webb-primary-mirror")
    async with Client(_settings(web, proxy, tmp_path)) as client:
        transport = httpx.ASGITransport(app=create_app(client=client))
        async with httpx.AsyncClient(transport=transport, base_url="http://api.test") as api:
            fetched = await api.post("/v1/fetch", json={"url": good})
            leaked = await api.post("/v1/fetch", json={"url": _secret(web)})
            searched = await api.post("/v1/search", json={"query": "webb mirror"})
        async with MCPClient(create_server(client=client)) as mcp:
            mcp_good = await mcp.call_tool("web_fetch", {"url": good})
            mcp_leak = await mcp.call_tool("web_fetch", {"url": _secret(web)})
    assert fetched.status_code == 200 and "beryllium" in fetched.json()["content"]
    assert leaked.json()["error"]["code"] == "connect_error"
    assert searched.status_code == 200 and searched.json()["results"]  # the provider, pinned
    assert not mcp_good.is_error and mcp_leak.is_error
    assert "connect_error" in json.dumps(mcp_leak.model_dump(mode="json"))
    assert f"{REBOUND}:{web.port}" in assert_pinned(proxy)
    assert canary.connections == 0


def test_research_through_the_proxy_reads_its_sources_by_address(
    web: ResearchWeb, proxy: ForwardProxy, canary: Canary, tmp_path: Path
) -> None:
    run = subprocess_call(_env(web, proxy.url, tmp_path))
    report = run("research", QUESTION, "--depth", "quick", "--json")
    assert report.code == 0, report.stderr
    assert report.json()["sources"]
    assert web.state.searches  # the search went through the proxy, by address
    # research found the page on rebind.test and went for it (robots.txt first), by address
    assert assert_pinned(proxy) == {f"{PUBLIC}:{web.port}", f"{REBOUND}:{web.port}"}
    assert canary.connections == 0


def test_crawl_through_the_proxy(
    web: ResearchWeb, proxy: ForwardProxy, canary: Canary, tmp_path: Path
) -> None:
    run = subprocess_call(_env(web, proxy.url, tmp_path))
    crawled = run("crawl", web.url("launch.test", "/webb-launch"), "--max-pages", "2", "--json")
    assert crawled.code == 0, crawled.stderr
    assert any(line.get("url", "").endswith("/webb-launch") for line in crawled.lines())
    leaked = run("crawl", _secret(web), "--max-pages", "2", "--json")
    assert "connect_error" in leaked.stdout + leaked.stderr
    assert f"{REBOUND}:{web.port}" in assert_pinned(proxy)
    assert canary.connections == 0


@pytest.mark.browser
@browser
def test_the_browser_through_the_proxy_from_the_cli(
    web: ResearchWeb, pages: LiveServer, proxy: ForwardProxy, canary: Canary, tmp_path: Path
) -> None:
    """The page's fetch() and one of its WebSockets go for rebind.test; the other socket
    talks to page.test's echo: all through the proxy, by address."""
    ws = f"ws://page.test:{pages.port}/echo"
    leak = f"ws://rebind.test:{web.port}/ws"
    url = f"http://page.test:{pages.port}/page?ws={ws}&leak={leak}&secret={_secret(web)}"
    run = subprocess_call(_env(web, proxy.url, tmp_path))
    page = run("fetch", url, "--render", "always", "--json")
    assert page.code == 0, page.stderr
    content = page.json()["content"]
    assert "The socket said echo: hello through the proxy" in content
    assert "LEAKED" not in content and "Secret:" not in content
    assert assert_pinned(proxy) == {f"{PAGES}:{pages.port}", f"{REBOUND}:{web.port}"}
    assert canary.connections == 0
