"""RobotsCache over real sockets: the shared offline web's robots variants, and the guard."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from netsift.errors import BlockedAddress, BlockedByRobots, ConnectError
from netsift.net.audit import AuditLog
from netsift.net.http import HttpClient
from netsift.net.robots import RobotsCache
from tests.offline_web.fixtures import OfflineWeb, WebSettingsFactory

from .apps import free_port
from .conftest import MakeHttp, Site, read_audit


@pytest.fixture
async def web_robots(
    web_settings: WebSettingsFactory, audit_path: Path
) -> AsyncIterator[RobotsCache]:
    settings = web_settings()
    http = HttpClient(settings, audit=AuditLog(audit_path))
    yield RobotsCache(http, user_agent=settings.user_agent, timeout=settings.robots_timeout)
    await http.aclose()


async def test_docs_private_path_is_disallowed(
    web_robots: RobotsCache, offline_web: OfflineWeb, audit_path: Path
) -> None:
    await web_robots.check(offline_web.url("docs.test", "/guide"))
    with pytest.raises(BlockedByRobots) as caught:
        await web_robots.check(offline_web.url("docs.test", "/private/secret"))
    assert offline_web.url("docs.test", "/private/secret") in caught.value.message
    [line] = read_audit(audit_path)  # one robots.txt fetch for both checks, audited
    assert line["kind"] == "robots" and line["url"].endswith("/robots.txt")
    assert line["resolved_ip"] == "127.0.0.1"


async def test_robots_503_disallows_everything(
    web_robots: RobotsCache, offline_web: OfflineWeb
) -> None:
    with pytest.raises(BlockedByRobots, match="503"):
        await web_robots.check(offline_web.url("robots5xx.test", "/page"))


async def test_robots_404_allows_everything(
    web_robots: RobotsCache, offline_web: OfflineWeb
) -> None:
    await web_robots.check(offline_web.url("robots4xx.test", "/page"))


async def test_unreachable_robots_is_a_connect_error_not_a_refusal(make_http: MakeHttp) -> None:
    http = make_http(allow_networks=["127.0.0.1/32"], retries=0)
    robots = RobotsCache(http, user_agent="netsift", timeout=2)
    with pytest.raises(ConnectError) as caught:
        await robots.check(f"http://127.0.0.1:{free_port()}/page")
    assert caught.value.code == "connect_error" and caught.value.exit_code == 4


async def test_refused_page_host_is_reported_as_blocked_address(
    make_http: MakeHttp, site: Site, audit_path: Path
) -> None:
    """The robots.txt fetch is guarded too; its refusal is the page's refusal."""
    robots = RobotsCache(make_http(allow=False), user_agent="netsift")
    with pytest.raises(BlockedAddress):
        await robots.check(site.url("/echo"))
    assert site.state.hits == {}
    [line] = read_audit(audit_path)
    assert line["kind"] == "robots" and line["outcome"] == "blocked_address"


async def test_robots_redirect_to_a_refused_address_disallows(
    make_http: MakeHttp, site: Site, audit_path: Path
) -> None:
    site.state.robots = (302, "http://inner.test/robots.txt")
    robots = RobotsCache(make_http(resolve=[*site.pins, "inner.test:10.1.2.3"]), user_agent="x")
    with pytest.raises(BlockedByRobots, match="unreachable"):
        await robots.check(site.url("/echo"))
    assert site.state.hits == {"/robots.txt": 1}
    assert [line["outcome"] for line in read_audit(audit_path)] == ["ok", "blocked_address"]


async def test_robots_redirect_within_the_site_is_followed(make_http: MakeHttp, site: Site) -> None:
    site.state.robots = (301, "/hop/0")  # answers "Arrived": no rules, everything allowed
    robots = RobotsCache(make_http(), user_agent="x")
    await robots.check(site.url("/echo"))
    assert site.state.hits == {"/robots.txt": 1, "/hop/0": 1}
