"""The guarded browser against the offline web: SPA pages read as their static twins, and an
adversarial page reaches nothing but what the guard allows (a canary on a blocked address
counts every connection and datagram: it must stay at 0)."""

from __future__ import annotations

import ipaddress
import json
import os
import signal
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from netsift import tools
from netsift.client import Client
from netsift.config import Settings
from netsift.errors import RenderFailed
from netsift.net.guard import IPAddress
from netsift.net.resolver import StaticResolver
from netsift.render.memory import descendants
from tests.e2e.cli import subprocess_call
from tests.integration.render.conftest import ALLOW_ONLY_THE_WEB, Canary, browser
from tests.offline_web.fixtures import OfflineWeb
from tests.offline_web.spa import ARTICLE, DOCS, FEED_ITEMS, THREAD

pytestmark = [pytest.mark.browser, browser]


class RebindingResolver:
    """`rebind.test` answers 127.0.0.1 (allowed) then 127.0.0.2 (the canary), alternately."""

    def __init__(self, inner: StaticResolver) -> None:
        self.inner = inner
        self.asked = 0

    async def resolve(self, host: str, port: int) -> list[IPAddress]:
        if host.rstrip(".").lower() == "rebind.test":
            self.asked += 1
            return [ipaddress.ip_address("127.0.0.1" if self.asked % 2 else "127.0.0.2")]
        return await self.inner.resolve(host, port)


def _settings(web: OfflineWeb, tmp_path: Path, **overrides: Any) -> Settings:
    overrides.setdefault("resolve", web.pins)
    overrides.setdefault("allow_networks", ALLOW_ONLY_THE_WEB)
    overrides.setdefault("audit_log", tmp_path / "audit.ndjson")
    overrides.setdefault("data_dir", tmp_path / "data")
    overrides.setdefault("cache_url", "memory://")
    return Settings(_env_file=None, **overrides)


def _audit(tmp_path: Path) -> list[dict[str, Any]]:
    path = tmp_path / "audit.ndjson"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def _rss(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def _cmdline(pid: int) -> list[bytes]:
    return Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")


def _environ(pid: int) -> list[bytes]:
    return Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")


async def test_spa_pages_read_like_their_static_twins(
    offline_web: OfflineWeb, tmp_path: Path, canary: Canary
) -> None:
    pairs = {
        "/article": "/static/article",
        "/docs#/guide/setup": "/static/docs#/guide/setup",
        "/feed": "/static/feed",
        "/t/thread": "/static/t/thread",
    }
    async with Client(_settings(offline_web, tmp_path)) as client:
        for spa, static in pairs.items():
            rendered = await client.fetch(offline_web.url("spa.test", spa), render="auto")
            plain = await client.fetch(offline_web.url("spa.test", static), render="auto")
            assert rendered.rendered, spa
            assert rendered.render_reason
            assert not plain.rendered and plain.render_reason is None
            assert rendered.content == plain.content, spa
            assert rendered.page_type == plain.page_type, spa
            assert rendered.title == plain.title, spa
            if spa == "/feed":
                assert all(item in rendered.content for item in FEED_ITEMS)  # three scrolls
                assert offline_web.state.hits("spa.test", "/api/feed") == 3
            if spa == "/docs#/guide/setup":
                assert DOCS["/guide/setup"][1][0] in rendered.content
                assert DOCS["/guide/usage"][1][0] not in rendered.content  # the hash chose
        never = await client.fetch(offline_web.url("spa.test", "/article"), render="never")
    assert THREAD["posts"][2][1] in rendered.content
    assert not never.rendered and ARTICLE["paragraphs"][0] not in never.content
    assert canary.hits() == 0


async def test_adversarial_page_reaches_nothing_blocked(
    offline_web: OfflineWeb, tmp_path: Path, canary: Canary
) -> None:
    settings = _settings(offline_web, tmp_path, render_media=True)  # images go to the guard too
    resolver = RebindingResolver(StaticResolver(settings.resolve_map()))
    offline_web.state.knobs["canary"] = canary.address
    offline_web.state.knobs["rebind"] = f"rebind.test:{offline_web.port}"
    async with Client(settings, resolver=resolver) as client:
        page = await client.fetch(offline_web.url("spa.test", "/adversarial"), render="always")
        await anyio.sleep(1.5)  # late timers (popup, redirect) had their chance
        sink = client.fetcher.render_step.renderer.sink
        assert sink is not None and sink.refused >= 1  # the preconnect ended in the sink
    assert page.rendered and "The attacks were launched." in page.content
    assert canary.hits() == 0, (canary.tcp, canary.udp)
    lines = _audit(tmp_path)
    refused = {(line["url"], line["outcome"]) for line in lines if line["kind"] == "render"}
    blocked = {url for url, outcome in refused if outcome == "blocked_address"}
    for path in ("/fetch", "/xhr", "/img", "/iframe", "/script.js", "/beacon", "/worker"):
        assert f"http://{canary.address}{path}" in blocked, path
    assert f"http://{canary.address}/navigate" in blocked  # location redirect
    assert any(url.startswith("http://169.254.169.254") for url in blocked)  # metadata
    assert f"http://{canary.address}/static-iframe" in blocked
    assert f"ws://{canary.address}/ws" in blocked  # the relay's guard refused the WebSocket
    # The rebinding name: its 127.0.0.1 answer was served, its 127.0.0.2 answer refused.
    assert resolver.asked >= 2
    assert any("rebind.test" in url for url in blocked)
    assert offline_web.state.hits("spa.test", "/sw.js") == 0  # service workers are blocked


async def test_browser_has_no_network_of_its_own(offline_web: OfflineWeb, tmp_path: Path) -> None:
    """Chromium's own traffic (preconnect, background services) lands in the deny-all sink."""
    async with Client(_settings(offline_web, tmp_path)) as client:
        await client.fetch(offline_web.url("spa.test", "/article"), render="always")
        renderer = client.fetcher.render_step.renderer
        assert renderer.sink is not None and renderer.sink.port
        port = renderer.sink.port
        browser_proc = renderer.browser_pids()
        assert browser_proc, "the browser's processes are found by their marker"
        cmdline = _cmdline(browser_proc[0])
    assert f"--proxy-server=http://127.0.0.1:{port}".encode() in cmdline
    assert any(arg.startswith(b"--host-resolver-rules=MAP * ~NOTFOUND") for arg in cmdline)


async def test_browser_holds_no_ui_renderers_and_is_weighed_by_pss(
    offline_web: OfflineWeb, tmp_path: Path
) -> None:
    """No renderer for the address bar's WebUI popup (Chromium preloads one per context), and
    the memory ceiling weighs the tree by PSS: shared pages once, not once per process."""
    async with Client(_settings(offline_web, tmp_path, render_concurrency=2)) as client:

        async def render(path: str) -> None:
            await client.fetch(offline_web.url("spa.test", path), render="always")

        async with anyio.create_task_group() as renders:
            for path in ("/article", "/feed"):  # two at once: two contexts
                renders.start_soon(render, path)
        renderer = client.fetcher.render_step.renderer
        pids = renderer.browser_pids()
        titles = [b" ".join(_cmdline(pid)) for pid in pids]
        rss = sum(_rss(pid) for pid in pids)
        used = renderer.memory_bytes()
    assert sum(b"--type=renderer" in title for title in titles) >= 1
    assert not [title for title in titles if b"--top-chrome-webui" in title]
    assert 0 < used < rss  # Chromium's processes share their code: PSS sums to less than RSS


async def test_playwright_driver_starts_with_a_small_young_generation(
    offline_web: OfflineWeb, tmp_path: Path
) -> None:
    """The driver (Node.js) gets `--max-semi-space-size` (~30 MiB less PSS, driver.py) through
    its environment, and this process's own environment is left as it was."""
    before = os.environ.get("NODE_OPTIONS")
    async with Client(_settings(offline_web, tmp_path)) as client:
        await client.fetch(offline_web.url("spa.test", "/article"), render="always")
        drivers = [pid for pid in descendants(os.getpid()) if b"run-driver" in _cmdline(pid)]
        environments = [_environ(pid) for pid in drivers]
    assert drivers, "Playwright's driver is a child of this process"
    for environ in environments:
        assert any(
            var.startswith(b"NODE_OPTIONS=") and b"--max-semi-space-size=1" in var
            for var in environ
        )
    assert os.environ.get("NODE_OPTIONS") == before


async def test_robots_and_byte_budget_apply_to_the_page_requests(
    offline_web: OfflineWeb, tmp_path: Path
) -> None:
    async with Client(_settings(offline_web, tmp_path, render_max_requests=1)) as client:
        page = await client.fetch(offline_web.url("spa.test", "/feed"), render="always")
    # One request allowed: the first page of items; the scrolls' requests were refused.
    assert page.rendered and FEED_ITEMS[9] in page.content and FEED_ITEMS[10] not in page.content
    assert any(line["outcome"] == "render_budget" for line in _audit(tmp_path))


async def test_a_crash_is_render_failed_and_the_next_render_relaunches(
    offline_web: OfflineWeb, tmp_path: Path
) -> None:
    failures: list[BaseException] = []
    async with Client(_settings(offline_web, tmp_path)) as client:
        step = client.fetcher.render_step

        async def render_slow() -> None:
            try:
                await client.fetch(offline_web.url("spa.test", "/slow-app"), render="always")
            except RenderFailed as exc:
                failures.append(exc)

        async with anyio.create_task_group() as tg:
            tg.start_soon(render_slow)
            with anyio.fail_after(20):
                # the site counts in its own thread: polled, there is no event to wait on
                while not offline_web.state.hits("spa.test", "/api/slow"):  # noqa: ASYNC110
                    await anyio.sleep(0.05)
            for pid in step.renderer.browser_pids()[:1]:  # the browser this test started
                os.kill(pid, signal.SIGKILL)
        after = await client.fetch(offline_web.url("spa.test", "/article"), render="auto")
        launches = step.renderer.launches
    assert len(failures) == 1 and isinstance(failures[0], RenderFailed)
    assert failures[0].code == "render_failed" and failures[0].retryable
    assert "crashed" in failures[0].message
    assert after.rendered and launches == 2


async def test_memory_ceiling_restarts_the_browser(offline_web: OfflineWeb, tmp_path: Path) -> None:
    async with Client(_settings(offline_web, tmp_path, render_memory_mb=1)) as client:
        url = offline_web.url("spa.test", "/article")
        first = await client.fetch(url, render="always")
        second = await client.fetch(url, render="always", no_cache=True)
        renderer = client.fetcher.render_step.renderer
    assert first.rendered and second.rendered
    assert renderer.restarts == 2 and renderer.launches == 2


async def test_tool_door_renders_and_leaks_nothing(
    offline_web: OfflineWeb, tmp_path: Path, canary: Canary
) -> None:
    offline_web.state.knobs["canary"] = canary.address
    async with Client(_settings(offline_web, tmp_path)) as client:
        thread = await tools.dispatch(
            "web_fetch", {"url": offline_web.url("spa.test", "/t/thread")}, client=client
        )
        attack = await tools.dispatch(
            "web_fetch",
            {"url": offline_web.url("spa.test", "/adversarial"), "render": "always"},
            client=client,
        )
    assert THREAD["posts"][0][1] in thread["content"]
    assert "The attacks were launched." in attack["content"]
    assert canary.hits() == 0


async def test_http_door_renders_and_leaks_nothing(
    offline_web: OfflineWeb, tmp_path: Path, canary: Canary
) -> None:
    from netsift.server import create_app

    offline_web.state.knobs["canary"] = canary.address
    async with Client(_settings(offline_web, tmp_path)) as client:
        transport = httpx.ASGITransport(app=create_app(client=client))
        async with httpx.AsyncClient(transport=transport, base_url="http://api.test") as api:
            article = await api.post(
                "/v1/fetch", json={"url": offline_web.url("spa.test", "/article")}
            )
            attack = await api.post(
                "/v1/fetch",
                json={"url": offline_web.url("spa.test", "/adversarial"), "render": "always"},
            )
            wrong = await api.post(
                "/v1/fetch",
                json={"url": offline_web.url("spa.test", "/article"), "render": "sometimes"},
            )
    assert article.status_code == 200 and article.json()["rendered"] is True
    assert ARTICLE["paragraphs"][0] in article.json()["content"]
    assert attack.status_code == 200 and "The attacks were launched." in attack.json()["content"]
    assert wrong.status_code == 422 and wrong.json()["error"]["code"] == "invalid_input"
    assert canary.hits() == 0


def test_cli_render_auto_reads_the_shell_and_leaks_nothing(
    offline_web: OfflineWeb, tmp_path: Path, canary: Canary
) -> None:
    offline_web.state.knobs["canary"] = canary.address
    env = {
        **offline_web.env(),
        "NETSIFT_ALLOW_NETWORKS": ",".join(ALLOW_ONLY_THE_WEB),
        "NETSIFT_DATA_DIR": str(tmp_path / "data"),
        "NETSIFT_CACHE_URL": "memory://",
    }
    netsift = subprocess_call(env)
    run = netsift("fetch", "--render", "auto", offline_web.url("spa.test", "/t/thread"))
    assert run.code == 0, run.stderr
    assert THREAD["posts"][1][1] in run.stdout
    attack = netsift("fetch", "--render", "always", offline_web.url("spa.test", "/adversarial"))
    assert attack.code == 0, attack.stderr
    assert canary.hits() == 0
