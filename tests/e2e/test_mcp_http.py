"""`netsift mcp --http` against unreadable requests, over real HTTP on 127.0.0.1: each gets
JSON-RPC's error with a null id and the HTTP status that says why, and the server goes on."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass

import httpx
import pytest
from starlette.responses import Response

from netsift.mcp_http import ScreenedBodies
from tests.offline_web.server import serve
from tests.timing import scaled

# Real netsift processes: CI runs these beside two CPU burners (.ci/run), not in scripts/test.
pytestmark = pytest.mark.process

HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
HELLO = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}
MAX_BODY = 64 * 1024
# The client configuration printed after the URL line: a heading and 8 lines of JSON.
CONFIG_LINES = 9


@dataclass(frozen=True)
class Announced:
    url: str
    printed: str  # what the server printed at start: its URL and a client configuration


@pytest.fixture(scope="module")
def mcp_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Announced]:
    env = {
        **os.environ,
        "NETSIFT_DATA_DIR": str(tmp_path_factory.mktemp("mcp-http")),
        "NETSIFT_CAPABILITIES": "fetch",
        "NETSIFT_SERVER_MAX_BODY": str(MAX_BODY),
    }
    cli = [sys.executable, "-m", "netsift", "mcp", "--http", "--port", "0"]
    server = subprocess.Popen(
        cli, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None
        said = server.stdout.readline()  # printed once the socket listens: the event to await
        url = re.search(r"on (http://\S+/mcp);", said)
        if url is None:
            raise RuntimeError(f"netsift mcp --http did not say where it listens: {said!r}")
        printed = said + "".join(server.stdout.readline() for _ in range(CONFIG_LINES))
        yield Announced(url=url.group(1), printed=printed)
    finally:
        server.terminate()
        server.wait(timeout=scaled(10))


@pytest.fixture(scope="module")
def mcp_url(mcp_server: Announced) -> str:
    return mcp_server.url


def test_it_prints_its_url_and_a_client_configuration_to_paste(mcp_server: Announced) -> None:
    config = json.loads(mcp_server.printed[mcp_server.printed.index("{") :])
    assert config == {"mcpServers": {"netsift": {"type": "http", "url": mcp_server.url}}}
    assert mcp_server.url.startswith("http://127.0.0.1:") and mcp_server.url.endswith("/mcp")
    assert _session(mcp_server.url)["mcp-session-id"]  # and a client reaches it there


def _session(url: str) -> dict[str, str]:
    """Initialize a session; the headers that continue it."""
    hello = httpx.post(url, json=HELLO, headers=HEADERS, timeout=30)
    assert hello.status_code == 200
    headers = {
        **HEADERS,
        "mcp-session-id": hello.headers["mcp-session-id"],
        "mcp-protocol-version": "2025-06-18",
    }
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert httpx.post(url, json=note, headers=headers, timeout=10).status_code == 202
    return headers


DEEP = "[" * 5000 + "]" * 5000
UNREADABLE = {
    "not JSON": (b"{not json", 400, -32700),
    "lone surrogate": (
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call",'
        b'"params":{"name":"web_fetch","arguments":{"url":"\\ud800"}}}',
        400,
        -32700,
    ),
    "5000-deep arrays": (
        b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"web_fetch",'
        b'"arguments":{"url":' + DEEP.encode() + b"}}}",
        400,
        -32700,
    ),
    "not UTF-8": (b'{"jsonrpc":"2.0","id":1,"method":"tools/list","x":"\xff"}', 400, -32700),
    "JSON, not a message": (b"[1, 2]", 400, -32600),
    "no method": (b'{"jsonrpc":"2.0","id":4}', 400, -32600),
    "too large": (b'{"x":"' + b"a" * MAX_BODY + b'"}', 413, -32600),
}


@pytest.mark.parametrize("case", UNREADABLE)
def test_unreadable_bodies_get_json_rpc_errors(mcp_url: str, case: str) -> None:
    body, status, code = UNREADABLE[case]
    headers = _session(mcp_url)
    for sent in (headers, HEADERS):  # inside a session and before one
        reply = httpx.post(mcp_url, content=body, headers=sent, timeout=30)
        assert reply.status_code == status, reply.text
        error = reply.json()
        assert error["jsonrpc"] == "2.0" and error["id"] is None
        assert error["error"]["code"] == code
        assert "Traceback" not in reply.text
    listed = {"jsonrpc": "2.0", "id": 9, "method": "tools/list"}
    after = httpx.post(mcp_url, json=listed, headers=headers, timeout=30)
    assert after.status_code == 200 and "web_fetch" in after.text  # the server goes on


def test_an_oversized_body_without_a_length_is_refused(mcp_url: str) -> None:
    """A chunked body declares no length: it is counted as it arrives."""

    def chunks() -> Iterator[bytes]:
        yield b'{"jsonrpc":"2.0","id":1,"method":"tools/list","x":"'
        for _ in range(4):
            yield b"a" * MAX_BODY
        yield b'"}'

    reply = httpx.post(mcp_url, content=chunks(), headers=HEADERS, timeout=30)
    assert reply.status_code == 413
    assert reply.json()["error"]["code"] == -32600
    assert str(MAX_BODY) in reply.json()["error"]["message"]


async def test_a_dripping_body_is_answered_408() -> None:
    """A body that does not arrive in time ends its request (the time limit scaled down)."""
    reached: list[bytes] = []

    async def app(scope, receive, send) -> None:
        reached.append((await receive())["body"])
        await Response("{}")(scope, receive, send)

    screened = ScreenedBodies(app, max_body=MAX_BODY, body_seconds=0.5)

    async def drip() -> AsyncIterator[bytes]:
        yield b'{"jsonrpc":'
        await asyncio.sleep(5)
        yield b'"2.0"}'

    with serve(screened) as live:
        async with httpx.AsyncClient(timeout=30) as http:
            reply = await http.post(live.url("/mcp"), content=drip(), headers=HEADERS)
            ok = await http.post(live.url("/mcp"), content=json.dumps(HELLO), headers=HEADERS)
    assert reply.status_code == 408  # without the limit: 200, once the drip had ended
    assert reply.json()["error"]["code"] == -32600
    assert ok.status_code == 200 and reached == [json.dumps(HELLO).encode()]
