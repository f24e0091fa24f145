"""Proxies: the target is checked first, and the proxy is asked for the checked address.

A real forward proxy on 127.0.0.1 (tests/offline_web/proxy.py) resolves names through its
own table, so `rebind.test` answers netsift with a public address (its pins) and the proxy
with 127.0.0.1, where a canary listens. Public addresses reach local servers through the
proxy's `routes`, standing in for the Internet.
"""

from __future__ import annotations

import ssl
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from netsift.errors import BlockedAddress, ConnectError, ProxyRefused, TLSError
from netsift.net.guard import AddressPolicy
from netsift.net.resolver import StaticResolver
from netsift.net.transport import GuardedTransport
from tests.offline_web.proxy import Asked, Canary, ForwardProxy, run_canary, run_proxy
from tests.offline_web.server import LiveServer, serve

from .apps import SiteState, site_app
from .conftest import MakeHttp, Site, read_audit

PUBLIC = "93.184.215.14"  # where pub.test "is": the proxy routes it to the test site
REBOUND = "93.184.215.15"  # what rebind.test answers netsift; the proxy's table says loopback
TLS_PUBLIC = "93.184.215.20"


@pytest.fixture
def canary() -> Iterator[Canary]:
    with run_canary() as listener:
        yield listener


@pytest.fixture
def proxy(site: Site) -> Iterator[ForwardProxy]:
    with run_proxy(
        names={"rebind.test": "127.0.0.1", "pub.test": "127.0.0.1"},
        routes={(PUBLIC, site.port): ("127.0.0.1", site.port)},
    ) as forward:
        yield forward


PINS = [f"pub.test:{PUBLIC}", f"rebind.test:{REBOUND}", "inner.test:10.0.0.5"]


async def test_http_asks_the_proxy_for_the_checked_address_with_the_original_host(
    make_http: MakeHttp, proxy: ForwardProxy, site: Site, audit_path: Path
) -> None:
    http = make_http(allow=False, http_proxy=proxy.url, resolve=PINS)
    url = f"http://pub.test:{site.port}/echo?q=1"
    response = await http.send(httpx.Request("GET", url), kind="fetch")
    assert response.json()["headers"]["host"] == f"pub.test:{site.port}"
    assert proxy.asked == [
        Asked("GET", f"http://{PUBLIC}:{site.port}/echo?q=1", f"pub.test:{site.port}")
    ]
    assert [line["resolved_ip"] for line in read_audit(audit_path)] == [PUBLIC]


@pytest.mark.parametrize("scheme", ["http", "https"])
async def test_a_rebinding_name_never_reaches_the_canary(
    make_http: MakeHttp, proxy: ForwardProxy, canary: Canary, scheme: str
) -> None:
    http = make_http(allow=False, http_proxy=proxy.url, https_proxy=proxy.url, resolve=PINS)
    with pytest.raises(ConnectError, match=f"could not connect to {REBOUND}"):
        await http.send(
            httpx.Request("GET", f"{scheme}://rebind.test:{canary.port}/secret"), kind="fetch"
        )
    assert canary.connections == 0
    assert {asked.target.split("/")[2 if scheme == "http" else 0] for asked in proxy.asked} == {
        f"{REBOUND}:{canary.port}"
    }


async def test_every_redirect_hop_is_pinned(
    make_http: MakeHttp, proxy: ForwardProxy, canary: Canary, site: Site
) -> None:
    http = make_http(allow=False, http_proxy=proxy.url, resolve=PINS)
    secret = f"http://rebind.test:{canary.port}/secret"
    start = f"http://pub.test:{site.port}/redirect?to={secret}"
    with pytest.raises(ConnectError):
        await http.send(httpx.Request("GET", start), kind="fetch")
    assert canary.connections == 0
    assert [asked.target for asked in proxy.asked] == [
        f"http://{PUBLIC}:{site.port}/redirect?to={secret}",
        f"http://{REBOUND}:{canary.port}/secret",
    ]


async def test_the_target_is_checked_before_anything_goes_to_the_proxy(
    make_http: MakeHttp, proxy: ForwardProxy
) -> None:
    http = make_http(allow=False, http_proxy=proxy.url, resolve=PINS)
    for url in ("http://inner.test/", "http://169.254.169.254/latest/", "http://[fd00:ec2::254]/"):
        with pytest.raises(BlockedAddress):
            await http.send(httpx.Request("GET", url), kind="fetch")
    assert proxy.asked == []


async def test_the_https_proxy_is_not_used_for_http(
    make_http: MakeHttp, proxy: ForwardProxy, site: Site
) -> None:
    http = make_http(allow=False, https_proxy=proxy.url)
    with pytest.raises(BlockedAddress):  # direct, guarded connection to the pinned loopback
        await http.send(httpx.Request("GET", site.url("/echo")), kind="fetch")
    assert proxy.asked == []


@pytest.mark.parametrize("scheme", ["http", "https"])
async def test_a_proxy_that_wants_names_is_proxy_refused_and_never_sent_the_name(
    make_http: MakeHttp, site: Site, scheme: str
) -> None:
    with run_proxy(names={"pub.test": "127.0.0.1"}, names_only=True) as strict:
        http = make_http(allow=False, http_proxy=strict.url, https_proxy=strict.url, resolve=PINS)
        with pytest.raises(ProxyRefused) as caught:
            await http.send(
                httpx.Request("GET", f"{scheme}://pub.test:{site.port}/echo"), kind="fetch"
            )
    error = caught.value
    assert error.code == "proxy_refused" and not error.retryable
    assert error.details["proxy_status"] == 403
    assert error.details["proxy_error"] == "destination_ip_prohibited"
    assert "NETSIFT_PROXY_ENFORCES_EGRESS" in error.message
    assert len(strict.asked) == 1 and "pub.test" not in strict.asked[0].target


async def test_proxy_credentials_are_sent_and_a_407_is_proxy_refused(
    make_http: MakeHttp, site: Site
) -> None:
    routes = {(PUBLIC, site.port): ("127.0.0.1", site.port)}
    with run_proxy(routes=routes, require_auth=("agent", "s3cret")) as guarded:
        url = httpx.Request("GET", f"http://pub.test:{site.port}/echo")
        anonymous = make_http(allow=False, http_proxy=guarded.url, resolve=PINS)
        with pytest.raises(ProxyRefused, match="407"):
            await anonymous.send(url, kind="fetch")
        authorized = guarded.url.replace("http://", "http://agent:s3cret@")
        http = make_http(allow=False, http_proxy=authorized, resolve=PINS)
        response = await http.send(
            httpx.Request("GET", f"http://pub.test:{site.port}/echo"), kind="fetch"
        )
    assert response.status_code == 200
    assert "proxy-authorization" not in response.json()["headers"]


async def test_an_egress_filtering_proxy_is_sent_names_when_the_operator_says_so(
    make_http: MakeHttp, canary: Canary, proxy: ForwardProxy
) -> None:
    """NETSIFT_PROXY_ENFORCES_EGRESS hands the proxy the name: the proxy is the filter now.
    This test proxy filters nothing, so the canary is reached: the setting is the operator's
    word that their proxy does what this one does not."""
    http = make_http(allow=False, http_proxy=proxy.url, resolve=PINS, proxy_enforces_egress=True)
    response = await http.send(
        httpx.Request("GET", f"http://rebind.test:{canary.port}/secret"), kind="fetch"
    )
    assert response.text == "canary" and canary.connections == 1
    assert proxy.asked[0].target == f"http://rebind.test:{canary.port}/secret"
    with pytest.raises(BlockedAddress):  # an address in the URL is still netsift's to check
        await http.send(httpx.Request("GET", "http://127.0.0.1:9/"), kind="fetch")
    assert len(proxy.asked) == 1


async def test_the_language_model_client_goes_through_the_proxy_by_address(
    make_http: MakeHttp, proxy: ForwardProxy, site: Site
) -> None:
    """The openai SDK's client (HttpClient.openai_http_client): its host is trusted, not
    unchecked; through a proxy it is still sent as the address it resolved to."""
    http = make_http(
        allow=False,
        http_proxy=proxy.url,
        resolve=[f"llm.test:{PUBLIC}"],
        openai_base_url=f"http://llm.test:{site.port}/v1",
    )
    client = http.openai_http_client()
    response = await client.post(
        f"http://llm.test:{site.port}/v1/chat/completions",
        json={"model": "m", "messages": [{"role": "user", "content": "ping"}]},
    )
    assert response.json()["choices"][0]["message"]["content"] == "pong"
    assert proxy.asked == [
        Asked("POST", f"http://{PUBLIC}:{site.port}/v1/chat/completions", f"llm.test:{site.port}")
    ]


# -- https through the proxy: CONNECT to the address, TLS with the name


@pytest.fixture(scope="module")
def tls_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, Path]]:
    pytest.importorskip("cryptography", reason="certificates for the TLS tests need cryptography")
    from .test_tls import make_certificate

    cert, key = make_certificate(tmp_path_factory.mktemp("tls"), "tls.test")
    state = SiteState()
    with serve(site_app(state), ssl_certfile=str(cert), ssl_keyfile=str(key)) as server:
        yield server, cert
        state.stopping.set()


async def test_https_tunnels_to_the_checked_address_and_verifies_the_name(
    tls_site: tuple[LiveServer, Path],
) -> None:
    server, cert = tls_site
    resolver = StaticResolver({"tls.test": [TLS_PUBLIC], "wrong.test": [TLS_PUBLIC]})
    routes = {(TLS_PUBLIC, server.port): ("127.0.0.1", server.port)}
    with run_proxy(routes=routes) as forward:
        guarded = GuardedTransport(
            resolver,
            AddressPolicy([]),
            https_proxy=forward.url,
            verify=ssl.create_default_context(cafile=str(cert)),
        )
        try:
            for _ in range(2):  # the second request rides the same tunnel
                response = await guarded.handle_async_request(
                    httpx.Request("GET", f"https://tls.test:{server.port}/echo")
                )
                await response.aread()
                assert response.json()["headers"]["host"] == f"tls.test:{server.port}"
            # Same address, another name: a tunnel of its own, and its certificate check fails
            # (the certificate names tls.test), so no name rides another name's tunnel.
            with pytest.raises(httpx.ConnectError, match=r"CERTIFICATE_VERIFY_FAILED|match"):
                await guarded.handle_async_request(
                    httpx.Request("GET", f"https://wrong.test:{server.port}/echo")
                )
        finally:
            await guarded.aclose()
    authority = f"{TLS_PUBLIC}:{server.port}"
    assert forward.asked == [Asked("CONNECT", authority, authority)] * 2


async def test_https_through_the_proxy_via_http_client(
    make_http: MakeHttp, tls_site: tuple[LiveServer, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The whole HttpClient path: the certificate error is `tls_error`, checked by name."""
    server, _ = tls_site
    routes = {(TLS_PUBLIC, server.port): ("127.0.0.1", server.port)}
    with run_proxy(routes=routes) as forward:
        http = make_http(allow=False, https_proxy=forward.url, resolve=[f"tls.test:{TLS_PUBLIC}"])
        with pytest.raises(TLSError):  # certifi does not know the test CA
            await http.send(
                httpx.Request("GET", f"https://tls.test:{server.port}/echo"), kind="fetch"
            )
    assert forward.asked[0].target == f"{TLS_PUBLIC}:{server.port}"


# -- the browser's WebSocket relay: a CONNECT tunnel to the checked address


@pytest.fixture(scope="module")
def ws_site() -> Iterator[LiveServer]:
    from starlette.applications import Starlette
    from starlette.routing import WebSocketRoute
    from starlette.websockets import WebSocket, WebSocketDisconnect

    async def echo(socket: WebSocket) -> None:
        await socket.accept()
        try:
            while True:
                await socket.send_text("echo: " + await socket.receive_text())
        except WebSocketDisconnect:
            return

    with serve(Starlette(routes=[WebSocketRoute("/echo", echo)])) as server:
        yield server


async def _open(url: str, proxy: str, **options: Any) -> tuple[Any, str | None]:
    pytest.importorskip("playwright", reason="the relay is part of the browser extra")
    from netsift.render.relay import open_guarded

    return await open_guarded(
        url,
        resolver=StaticResolver(
            {"pub.test": [PUBLIC], "rebind.test": [REBOUND], "inner.test": ["10.0.0.5"]}
        ),
        policy=AddressPolicy([]),
        origin="http://pub.test",
        user_agent="netsift-test",
        subprotocols=[],
        timeout=5,
        http_proxy=proxy,
        https_proxy=proxy,
        **options,
    )


async def test_a_relayed_websocket_tunnels_to_the_checked_address(ws_site: LiveServer) -> None:
    routes = {(PUBLIC, ws_site.port): ("127.0.0.1", ws_site.port)}
    with run_proxy(routes=routes) as forward:
        connection, address = await _open(f"ws://pub.test:{ws_site.port}/echo", forward.url)
        try:
            await connection.send("hi")
            assert await connection.recv() == "echo: hi"
        finally:
            await connection.close()
    assert address == PUBLIC
    authority = f"{PUBLIC}:{ws_site.port}"
    assert forward.asked == [Asked("CONNECT", authority, authority)]


async def test_a_relayed_websocket_never_reaches_the_canary_or_a_refused_address(
    canary: Canary,
) -> None:
    from netsift.render.relay import Refused

    with run_proxy(names={"rebind.test": "127.0.0.1"}) as forward:
        with pytest.raises(Refused) as rebound:
            await _open(f"ws://rebind.test:{canary.port}/ws", forward.url)
        with pytest.raises(Refused) as inner:
            await _open("ws://inner.test/ws", forward.url)
    assert rebound.value.outcome == "connect_error" and inner.value.outcome == "blocked_address"
    assert canary.connections == 0
    assert [asked.target for asked in forward.asked] == [f"{REBOUND}:{canary.port}"]


async def test_a_relayed_websocket_to_a_proxy_that_wants_names_is_proxy_refused(
    ws_site: LiveServer,
) -> None:
    from netsift.render.relay import Refused

    with run_proxy(names={"pub.test": "127.0.0.1"}, names_only=True) as strict:
        with pytest.raises(Refused) as caught:
            await _open(f"ws://pub.test:{ws_site.port}/echo", strict.url)
        connection, address = await _open(
            f"ws://pub.test:{ws_site.port}/echo", strict.url, names_to_proxy=True
        )
        await connection.close()
    assert caught.value.outcome == "proxy_refused" and address is None
    assert [asked.target for asked in strict.asked] == [
        f"{PUBLIC}:{ws_site.port}",
        f"pub.test:{ws_site.port}",
    ]
