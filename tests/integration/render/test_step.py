"""The render step without a browser: a shell says so in a warning, `always` fails clearly,
static pages are untouched; and the deny-all sink refuses and audits what reaches it."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from netsift.client import Client
from netsift.config import Settings
from netsift.errors import RenderFailed
from netsift.net.audit import AuditLog
from netsift.render.sink import DenyAllProxy
from tests.offline_web.fixtures import OfflineWeb


def _no_browser(web: OfflineWeb, tmp_path: Path, **overrides: object) -> Settings:
    return Settings(
        _env_file=None,
        resolve=web.pins,
        allow_networks=["127.0.0.1/32"],
        data_dir=tmp_path,
        cache_url="memory://",
        browser_path=str(tmp_path / "no-such-chromium"),
        **overrides,  # type: ignore[arg-type]
    )


async def test_without_a_browser_a_shell_comes_back_with_a_hint(
    offline_web: OfflineWeb, tmp_path: Path
) -> None:
    async with Client(_no_browser(offline_web, tmp_path)) as client:
        shell = await client.fetch(offline_web.url("spa.test", "/t/thread"))
        static = await client.fetch(offline_web.url("spa.test", "/static/t/thread"))
        chosen = await client.fetch(offline_web.url("spa.test", "/article"), render="never")
        with pytest.raises(RenderFailed) as failed:
            await client.fetch(offline_web.url("spa.test", "/article"), render="always")
    assert not shell.rendered and shell.render_reason == "a <noscript> asks for JavaScript"
    hint = [w for w in shell.warnings if "netsift[browser]" in w]
    # its <noscript> is text a browser with JavaScript never shows: dropped, and counted
    rest = [w for w in shell.warnings if w not in hint]
    assert len(hint) == 1 and all(w.startswith("hidden_text:") for w in rest)
    assert not static.warnings and static.render_reason is None
    assert not chosen.warnings  # the caller said never: no nagging
    assert failed.value.code == "render_failed" and not failed.value.retryable


async def test_sink_refuses_and_audits_everything(tmp_path: Path) -> None:
    sink = DenyAllProxy(AuditLog(tmp_path / "audit.ndjson"))
    await sink.start()
    try:
        for line in (
            b"CONNECT metadata.example:443 HTTP/1.1\r\n\r\n",
            b"GET http://127.0.0.2/ HTTP/1.1\r\n\r\n",
        ):
            stream = await anyio.connect_tcp("127.0.0.1", sink.port)
            async with stream:
                await stream.send(line)
                answer = await stream.receive()
            assert answer.startswith(b"HTTP/1.1 403")
        silent = await anyio.connect_tcp("127.0.0.1", sink.port)  # a preconnect says nothing
        await silent.aclose()
        with anyio.fail_after(5):
            while sink.refused < 3:  # noqa: ASYNC110 (a counter, no event to wait on)
                await anyio.sleep(0.01)
    finally:
        await sink.aclose()
    lines = [json.loads(x) for x in (tmp_path / "audit.ndjson").read_text().splitlines()]
    assert [(x["method"], x["url"], x["outcome"]) for x in lines] == [
        ("CONNECT", "https://metadata.example/", "blocked_direct"),
        ("GET", "http://127.0.0.2/", "blocked_direct"),
    ]


def test_websocket_urls_are_checked_like_their_http_twins() -> None:
    from netsift.errors import InvalidURL, UnsupportedScheme
    from netsift.render.relay import http_twin

    assert str(http_twin("ws://example.org/live")) == "http://example.org/live"
    assert str(http_twin("WSS://example.org:8443/s")) == "https://example.org:8443/s"
    assert http_twin("ws://0x7f.1/").host == "127.0.0.1"  # odd spellings, as for HTTP
    for bad in ("ftp://example.org/", "example.org", "ws://user:pw@example.org/"):
        with pytest.raises((InvalidURL, UnsupportedScheme)):
            http_twin(bad)
