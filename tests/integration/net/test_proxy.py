"""Proxies: the request goes to the operator's proxy, the target is still checked first."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from netsift.errors import BlockedAddress
from tests.offline_web.server import LiveServer, serve

from .conftest import MakeHttp


class Proxy:
    """A forward proxy in miniature: records what it was asked for and answers itself."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        host = dict(scope["headers"]).get(b"host", b"").decode()
        self.seen.append((host, scope["path"]))
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"via proxy"})


@pytest.fixture
def proxy() -> Iterator[tuple[Proxy, LiveServer]]:
    app = Proxy()
    with serve(app) as server:
        yield app, server


async def test_requests_go_through_the_proxy(
    make_http: MakeHttp, proxy: tuple[Proxy, LiveServer]
) -> None:
    app, server = proxy
    http = make_http(allow=False, http_proxy=server.url(""), resolve=["pub.test:93.184.215.14"])
    response = await http.send(httpx.Request("GET", "http://pub.test/page?q=1"), kind="fetch")
    assert response.text == "via proxy"
    assert app.seen == [("pub.test", "/page")]


async def test_target_is_checked_before_anything_goes_to_the_proxy(
    make_http: MakeHttp, proxy: tuple[Proxy, LiveServer]
) -> None:
    app, server = proxy
    http = make_http(
        allow=False, http_proxy=server.url(""), resolve=["inner.test:10.0.0.5", "pub.test:8.8.8.8"]
    )
    for url in ("http://inner.test/", "http://169.254.169.254/latest/", "http://[fd00:ec2::254]/"):
        with pytest.raises(BlockedAddress):
            await http.send(httpx.Request("GET", url), kind="fetch")
    assert app.seen == []


async def test_https_proxy_is_not_used_for_http(
    make_http: MakeHttp, proxy: tuple[Proxy, LiveServer]
) -> None:
    app, server = proxy
    http = make_http(allow=False, https_proxy=server.url(""))
    with pytest.raises(BlockedAddress):  # direct, guarded connection to the pinned loopback
        await http.send(httpx.Request("GET", "http://site.test/echo"), kind="fetch")
    assert app.seen == []
