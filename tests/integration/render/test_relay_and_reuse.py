"""A page's WebSocket reaches a local echo server through the guard and its answer is read; a
WebSocket to the canary is refused with 0 connections; a flood stops at the byte cap. A reused
page remembers nothing of the page it showed before (storage, cookies, window.name)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from netsift.client import Client
from netsift.config import Settings
from tests.integration.render.conftest import ALLOW_ONLY_THE_WEB, Canary, browser
from tests.offline_web.server import LiveServer, serve

pytestmark = [pytest.mark.browser, browser]

FLOOD_MESSAGES = 200
FLOOD_SIZE = 4096

_SOCKET_PAGE = """<!doctype html><html><head><title>Live</title></head><body>
<div id="root">Connecting…</div><script>
const root = document.getElementById('root');
const ws = new WebSocket(new URL(location.href).searchParams.get('to'));
let got = 0;
ws.onopen = () => ws.send('hello from the page');
ws.onmessage = (e) => {
  got += 1;
  if (e.data.startsWith('echo:')) root.textContent = 'The server said ' + e.data;
  else root.textContent = 'Flood messages received: ' + got;
};
ws.onclose = (e) => { document.title = 'closed ' + e.code; };
</script></body></html>"""

_REMEMBER_PAGE = """<!doctype html><html><head><title>Memory</title></head><body>
<div id="root"></div><script>
const seen = [localStorage.getItem('k'), sessionStorage.getItem('k'),
              document.cookie || null, window.name || null];
document.getElementById('root').textContent = 'Remembered: ' + JSON.stringify(seen);
localStorage.setItem('k', 'local'); sessionStorage.setItem('k', 'session');
document.cookie = 'k=cookie; path=/'; window.name = 'named';
</script></body></html>"""


_STUBBORN_PAGE = """<!doctype html><html><head><title>Stubborn</title></head><body>
<div id="root"></div><script>
document.getElementById('root').textContent = 'A page that will not be wiped.';
Object.defineProperty(window, 'sessionStorage', { get() { for (;;) {} } });
</script></body></html>"""


_HOARD_PAGE = """<!doctype html><html><head><title>Hoard</title></head><body>
<div id="root"></div><script>
window.hoard = Array.from({length: 400000}, (_, i) => ({i, text: 'item ' + i}));
document.getElementById('root').textContent = 'Hoarded ' + window.hoard.length + ' objects.';
</script></body></html>"""


async def _hoard(request: Request) -> Response:
    return HTMLResponse(_HOARD_PAGE)


async def _stubborn(request: Request) -> Response:
    return HTMLResponse(_STUBBORN_PAGE)


async def _page(request: Request) -> Response:
    return HTMLResponse(_SOCKET_PAGE)


async def _remember(request: Request) -> Response:
    return HTMLResponse(_REMEMBER_PAGE)


async def _echo(socket: WebSocket) -> None:
    await socket.accept()
    try:
        while True:
            await socket.send_text("echo: " + await socket.receive_text())
    except WebSocketDisconnect:
        return


async def _flood(socket: WebSocket) -> None:
    await socket.accept()
    try:
        await socket.receive_text()
        for _ in range(FLOOD_MESSAGES):
            await socket.send_text("x" * FLOOD_SIZE)
        await socket.receive_text()
    except (WebSocketDisconnect, RuntimeError):
        return


@pytest.fixture(scope="module")
def live() -> Iterator[LiveServer]:
    app = Starlette(
        routes=[
            Route("/live", _page),
            Route("/remember", _remember),
            Route("/stubborn", _stubborn),
            Route("/hoard", _hoard),
            WebSocketRoute("/echo", _echo),
            WebSocketRoute("/flood", _flood),
        ]
    )
    with serve(app) as server:
        yield server


def _settings(tmp_path: Path, **overrides: Any) -> Settings:
    return Settings(
        _env_file=None,
        allow_networks=ALLOW_ONLY_THE_WEB,
        audit_log=tmp_path / "audit.ndjson",
        data_dir=tmp_path / "data",
        cache_url="memory://",
        **overrides,
    )


def _audit(tmp_path: Path) -> list[dict[str, Any]]:
    path = tmp_path / "audit.ndjson"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


async def test_websocket_is_relayed_through_the_guard(
    live: LiveServer, tmp_path: Path, canary: Canary
) -> None:
    echo = f"ws://127.0.0.1:{live.port}/echo"
    blocked = f"ws://{canary.address}/ws"
    async with Client(_settings(tmp_path)) as client:
        page = await client.fetch(live.url(f"/live?to={echo}"), render="always")
        refused = await client.fetch(live.url(f"/live?to={blocked}"), render="always")
    assert "The server said echo: hello from the page" in page.content
    assert "echo:" not in refused.content and "Connecting" in refused.content
    assert canary.hits() == 0, (canary.tcp, canary.udp)
    lines = [line for line in _audit(tmp_path) if line["url"].startswith("ws://")]
    relayed = next(line for line in lines if line["url"] == echo)
    assert relayed["outcome"] == "ok" and relayed["resolved_ip"] == "127.0.0.1"
    assert relayed["status"] == 101 and relayed["bytes"] > 0
    assert {"url": blocked, "outcome": "blocked_address"}.items() <= next(
        line for line in lines if line["url"] == blocked
    ).items()


async def test_a_websocket_stops_at_the_byte_cap(live: LiveServer, tmp_path: Path) -> None:
    cap = 64 * 1024  # the render's byte budget bounds each socket too
    flood = f"ws://127.0.0.1:{live.port}/flood"
    async with Client(_settings(tmp_path, render_max_bytes=cap)) as client:
        page = await client.fetch(live.url(f"/live?to={flood}"), render="always")
    line = next(line for line in _audit(tmp_path) if line["url"] == flood)
    assert line["outcome"] == "websocket_byte_cap"
    assert cap < line["bytes"] <= cap + FLOOD_SIZE
    assert "Flood messages received" in page.content
    assert f"received: {FLOOD_MESSAGES}" not in page.content


async def test_a_reused_page_remembers_nothing(live: LiveServer, tmp_path: Path) -> None:
    async with Client(_settings(tmp_path)) as client:
        url = live.url("/remember")
        first = await client.fetch(url, render="always", format="text")
        second = await client.fetch(url, render="always", format="text", no_cache=True)
        renderer = client.fetcher.render_step.renderer
        pages, launches = renderer.pages, renderer.launches
    assert pages == 1 and launches == 1  # the second render reused the first one's page
    nothing = "Remembered: [null,null,null,null]"
    assert nothing in first.content and nothing in second.content


async def test_a_page_that_hangs_the_wipe_is_closed_not_reused(
    live: LiveServer, tmp_path: Path
) -> None:
    async with Client(_settings(tmp_path)) as client:
        stubborn = await client.fetch(live.url("/stubborn"), render="always", format="text")
        after = await client.fetch(live.url("/remember"), render="always", format="text")
        renderer = client.fetcher.render_step.renderer
        pages, launches, contexts = renderer.pages, renderer.launches, renderer.open_contexts()
    assert "will not be wiped" in stubborn.content
    assert contexts == 1  # the hung one was closed, not left behind
    assert "Remembered: [null,null,null,null]" in after.content
    assert pages == 2 and launches == 1  # a new page in a new context, the same browser


async def test_a_kept_page_does_not_keep_the_last_sites_heap(
    live: LiveServer, tmp_path: Path
) -> None:
    async with Client(_settings(tmp_path)) as client:
        page = await client.fetch(live.url("/hoard"), render="always", format="text")
        renderer = client.fetcher.render_step.renderer
        kept = renderer._idle[0]
        assert kept.page is not None
        session = await kept.context.new_cdp_session(kept.page)
        heap = await session.send("Runtime.getHeapUsage")
        await session.detach()
    assert "Hoarded 400000 objects." in page.content
    assert heap["usedSize"] < 8 * 1024 * 1024, heap  # ~30 MB hoarded, collected by the wipe
