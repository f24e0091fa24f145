"""The browser through a proxy: its requests and its WebSockets ask the proxy for the checked
address. A page on `pub.test` (a public address the proxy routes to the test site) fetches a
script's data from `rebind.test` and opens WebSockets to both names; `rebind.test` answers
netsift with a public address and the proxy with the canary on 127.0.0.1."""

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
from tests.integration.render.conftest import browser
from tests.offline_web.proxy import Canary, ForwardProxy, run_canary, run_proxy
from tests.offline_web.server import LiveServer, serve

pytestmark = [pytest.mark.browser, browser]

PUBLIC = "93.184.215.14"
REBOUND = "93.184.215.15"

_PAGE = """<!doctype html><html><head><title>Proxied</title></head><body>
<div id="socket">Connecting…</div><div id="secret">Asking…</div><script>
const q = new URL(location.href).searchParams;
const say = (id, text) => { document.getElementById(id).textContent = text; };
const ws = new WebSocket(q.get('ws'));
ws.onopen = () => ws.send('hello through the proxy');
ws.onmessage = (e) => say('socket', 'The socket said ' + e.data);
const leak = new WebSocket(q.get('leak'));
leak.onmessage = (e) => say('socket', 'LEAKED ' + e.data);
fetch(q.get('secret')).then((r) => r.text()).then(
  (t) => say('secret', 'Secret: ' + t), () => say('secret', 'The secret was refused.'));
</script></body></html>"""


async def _page(request: Request) -> Response:
    return HTMLResponse(_PAGE)


async def _echo(socket: WebSocket) -> None:
    await socket.accept()
    try:
        while True:
            await socket.send_text("echo: " + await socket.receive_text())
    except WebSocketDisconnect:
        return


def page_app() -> Starlette:
    """`/page?ws=&leak=&secret=`: opens both sockets and fetches the secret; `/echo` echoes."""
    return Starlette(routes=[Route("/page", _page), WebSocketRoute("/echo", _echo)])


@pytest.fixture(scope="module")
def live() -> Iterator[LiveServer]:
    with serve(page_app()) as server:
        yield server


@pytest.fixture
def canary() -> Iterator[Canary]:
    with run_canary() as listener:
        yield listener


@pytest.fixture
def proxy(live: LiveServer) -> Iterator[ForwardProxy]:
    with run_proxy(
        names={"rebind.test": "127.0.0.1"},
        routes={(PUBLIC, live.port): ("127.0.0.1", live.port)},
    ) as forward:
        yield forward


def _settings(tmp_path: Path, proxy: ForwardProxy, **overrides: Any) -> Settings:
    return Settings(
        _env_file=None,
        resolve=[f"pub.test:{PUBLIC}", f"rebind.test:{REBOUND}"],
        http_proxy=proxy.url,
        https_proxy=proxy.url,
        retries=0,
        audit_log=tmp_path / "audit.ndjson",
        data_dir=tmp_path / "data",
        cache_url="memory://",
        **overrides,
    )


def _audit(tmp_path: Path) -> list[dict[str, Any]]:
    path = tmp_path / "audit.ndjson"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


async def test_the_browser_through_a_proxy_is_pinned_websockets_included(
    live: LiveServer, proxy: ForwardProxy, canary: Canary, tmp_path: Path
) -> None:
    ws = f"ws://pub.test:{live.port}/echo"
    leak = f"ws://rebind.test:{canary.port}/ws"
    secret = f"http://rebind.test:{canary.port}/secret"
    url = f"http://pub.test:{live.port}/page?ws={ws}&leak={leak}&secret={secret}"
    async with Client(_settings(tmp_path, proxy)) as client:
        page = await client.fetch(url, render="always")
    assert "The socket said echo: hello through the proxy" in page.content
    assert "LEAKED" not in page.content and "Secret: canary" not in page.content
    assert canary.connections == 0
    # what each request named: the authority of an absolute URL, or CONNECT's
    named = {a.target.split("/")[2] if a.method != "CONNECT" else a.target for a in proxy.asked}
    assert named == {f"{PUBLIC}:{live.port}", f"{REBOUND}:{canary.port}"}
    assert {a.method for a in proxy.asked} == {"GET", "CONNECT"}  # page, fetch(), sockets
    lines = {line["url"]: line for line in _audit(tmp_path) if line["kind"] == "render"}
    assert lines[ws]["outcome"] == "ok" and lines[ws]["resolved_ip"] == PUBLIC
    assert lines[leak]["outcome"] == "connect_error"
