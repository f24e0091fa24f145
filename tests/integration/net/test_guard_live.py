"""The connect-time guard over real sockets: pinned names, rebinding, IPv6, canaries.

Every refusal is checked from both sides: the error code, and a canary listener (or the
site's own counters) proving that no connection and no byte reached the refused address.
"""

from __future__ import annotations

import ipaddress
from pathlib import Path

import httpx
import pytest

from netsift.errors import BlockedAddress, ConnectError, NetsiftError
from netsift.net.guard import AddressPolicy, check_url
from netsift.net.resolver import StaticResolver
from netsift.net.transport import GuardedTransport
from tests.offline_web.server import serve

from .apps import SequenceResolver, SiteState, canary, free_port, site_app
from .conftest import MakeHttp, Site, read_audit


def get(url: str) -> httpx.Request:
    return httpx.Request("GET", url)


async def test_pinned_name_reaches_the_site_when_loopback_is_allowed(
    make_http: MakeHttp, site: Site
) -> None:
    response = await make_http().send(get(site.url("/echo")), kind="fetch")
    assert response.status_code == 200
    assert response.json()["headers"]["host"] == f"site.test:{site.port}"


async def test_same_url_without_the_allow_list_is_blocked_and_nothing_is_sent(
    make_http: MakeHttp, site: Site, audit_path: Path
) -> None:
    with pytest.raises(BlockedAddress) as caught:
        await make_http(allow=False).send(get(site.url("/echo")), kind="fetch")
    assert caught.value.code == "blocked_address"
    assert "site.test" in caught.value.message and "127.0.0.1" in caught.value.message
    assert site.state.hits == {}
    [line] = read_audit(audit_path)
    assert line["outcome"] == "blocked_address"
    assert line["resolved_ip"] is None and line["status"] is None and line["bytes"] == 0


async def test_literal_loopback_and_odd_spellings_are_blocked(make_http: MakeHttp) -> None:
    with canary() as listener:
        http = make_http(allow=False)
        for host in ("127.0.0.1", "2130706433", "0x7f.1", "127.1", "0177.0.0.1", "127。0。0。1"):
            # as callers do: check_url first (it parses what httpx alone would refuse)
            request = httpx.Request("GET", check_url(f"http://{host}:{listener.port}/"))
            with pytest.raises(BlockedAddress):
                await http.send(request, kind="fetch")
    assert listener.connections == 0


async def test_narrow_allow_list_does_not_open_the_rest(make_http: MakeHttp, site: Site) -> None:
    http = make_http(allow_networks=["127.0.0.2/32"])
    with pytest.raises(BlockedAddress):
        await http.send(get(site.url("/echo")), kind="fetch")
    assert site.state.hits == {}


async def test_allowed_address_with_nothing_listening_is_a_connection_error(
    make_http: MakeHttp,
) -> None:
    """Advocate's distinction: a policy refusal and a network failure are told apart."""
    http = make_http(allow_networks=["127.0.0.1/32"])
    with pytest.raises(ConnectError) as caught:
        await http.send(get(f"http://127.0.0.1:{free_port()}/"), kind="fetch")
    assert caught.value.code == "connect_error" and caught.value.retryable


async def test_one_refused_answer_refuses_the_whole_name(make_http: MakeHttp) -> None:
    """Public and private mixed in one answer: no connection to either address."""
    with canary() as listener:
        resolver = SequenceResolver(["93.184.215.14", "127.0.0.1"])
        http = make_http(allow=False, resolver=resolver)
        with pytest.raises(BlockedAddress, match=r"127\.0\.0\.1"):
            await http.send(get(f"http://mixed.test:{listener.port}/"), kind="fetch")
    assert listener.connections == 0
    assert resolver.lookups == ["mixed.test"]


async def test_dns_rebinding_is_checked_on_the_address_actually_connected(
    make_http: MakeHttp,
) -> None:
    """First lookup: an allowed address; every later one: the loopback, where a canary
    listens. Each connection resolves once and checks that very answer."""
    with canary("::1") as good, canary("127.0.0.1") as bad:
        # `good` stands in for a public host (allowed by the policy), `bad` for the target.
        resolver = SequenceResolver(["::1"], ["127.0.0.1"])
        guarded = make_http(allow_networks=["::1/128"], resolver=resolver)
        for port in (good.port, bad.port):
            with pytest.raises(NetsiftError) as caught:
                await guarded.send(get(f"http://rebind.test:{port}/"), kind="fetch", deadline=2)
            if port == good.port:
                # the canary never answers: the allowed address was connected, then timed out
                assert caught.value.code in ("timeout", "connect_error", "http_error")
            else:
                assert caught.value.code == "blocked_address"
    assert good.connections == 1
    assert bad.connections == 0
    assert resolver.lookups == ["rebind.test", "rebind.test"]


async def test_ipv6_loopback_pinned_is_refused_without_the_allow_list(
    make_http: MakeHttp,
) -> None:
    state = SiteState()
    with serve(site_app(state), host="::1", timeout_graceful_shutdown=1) as server:
        url = f"http://v6.test:{server.port}/echo"
        literal = f"http://[::1]:{server.port}/echo"
        for target in (url, literal):
            with pytest.raises(BlockedAddress):
                await make_http(allow=False, resolve=["v6.test:[::1]"]).send(
                    get(target), kind="fetch"
                )
        assert state.hits == {}
        http = make_http(allow_networks=["::1/128"], resolve=["v6.test:[::1]"])
        assert (await http.send(get(url), kind="fetch")).status_code == 200
        assert (await http.send(get(literal), kind="fetch")).status_code == 200
        state.stopping.set()
    assert state.hits["/echo"] == 2


async def test_mapped_ipv6_form_of_the_loopback_is_refused(make_http: MakeHttp) -> None:
    with canary() as listener:
        with pytest.raises(BlockedAddress):
            await make_http(allow=False).send(
                get(f"http://[::ffff:127.0.0.1]:{listener.port}/"), kind="fetch"
            )
    assert listener.connections == 0


async def test_guarded_transport_alone_guards_any_httpx_request(site: Site) -> None:
    """The transport is the guard (what an SDK's own client would be built on)."""
    resolver = StaticResolver({"site.test": ["127.0.0.1"]})
    transport = GuardedTransport(resolver, AddressPolicy())
    request = httpx.Request("GET", site.url("/echo"))
    with pytest.raises(BlockedAddress):
        await transport.handle_async_request(request)
    allowed = GuardedTransport(resolver, AddressPolicy.from_cidrs(["127.0.0.0/8"]))
    response = await allowed.handle_async_request(httpx.Request("GET", site.url("/echo")))
    await response.aread()
    assert response.status_code == 200
    server_addr = response.extensions["network_stream"].get_extra_info("server_addr")
    assert ipaddress.ip_address(server_addr[0]) == ipaddress.ip_address("127.0.0.1")
    await transport.aclose()
    await allowed.aclose()
    assert site.state.hits["/echo"] == 1


async def test_resolved_ip_is_audited_from_the_connection(
    make_http: MakeHttp, site: Site, audit_path: Path
) -> None:
    await make_http().send(get(site.url("/echo?key=SECRET")), kind="search")
    [line] = read_audit(audit_path)
    assert line["resolved_ip"] == "127.0.0.1"
    assert line["kind"] == "search" and line["status"] == 200 and line["outcome"] == "ok"
    assert line["url"] == site.url("/echo") and "SECRET" not in str(read_audit(audit_path))
    assert line["bytes"] > 0


async def test_make_client_writes_the_audit_log_from_settings(
    make_settings, site: Site, tmp_path: Path
) -> None:
    from netsift.net.http import make_client

    path = tmp_path / "from-settings.ndjson"
    http = make_client(
        make_settings(resolve=site.pins, allow_networks=["127.0.0.0/8"], audit_log=path)
    )
    await http.send(get(site.url("/echo")), kind="fetch")
    await http.aclose()
    assert [line["status"] for line in read_audit(path)] == [200]
    quiet = make_client(make_settings(resolve=site.pins, allow_networks=["127.0.0.0/8"]))
    assert quiet.audit is None
    await quiet.aclose()
