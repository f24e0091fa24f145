"""The SSRF guard end to end: through `Client.fetch`, real sockets, the offline web as target.

The offline web is reachable only because `web_settings` allows 127.0.0.0/8; here the allow-list
is taken away or narrowed, and the site's request counts prove that a refused fetch sent
nothing: no request reached the target, not even robots.txt.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator
from typing import Any

import pytest

from netsift.client import Client
from netsift.errors import NetsiftError
from tests.offline_web.fixtures import OfflineWeb, WebSettingsFactory
from tests.offline_web.server import LiveServer, serve
from tests.offline_web.site import build_app
from tests.offline_web.state import SiteState

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

OFFLINE_PAGES = [
    ("news.test", "/article"),
    ("blog.test", "/feed.rss"),
    ("docs.test", "/guide"),
    ("files.test", "/report.pdf"),
    ("redirect.test", "/hop/2"),
    ("slow.test", "/drip"),
    ("big.test", "/gzip-bomb"),
    ("status.test", "/flaky"),
    ("robots4xx.test", "/page"),
]


async def fetch_error(client: Client, url: str, **options: Any) -> NetsiftError:
    with pytest.raises(NetsiftError) as caught:
        await client.fetch(url, **options)
    return caught.value


@pytest.fixture(scope="module")
def v6_web() -> Iterator[tuple[LiveServer, SiteState]]:
    """A second copy of the site on [::1], counting on its own."""
    state = SiteState()
    with serve(build_app(state), host="::1", timeout_graceful_shutdown=1) as server:
        yield server, state
    state.stopping.set()


@pytest.fixture(scope="module")
def alt_web(offline_web: OfflineWeb) -> Iterator[LiveServer]:
    """The same site (same counters) also listening on 127.0.0.2."""
    app = build_app(offline_web.state)
    with serve(app, host="127.0.0.2", timeout_graceful_shutdown=1) as server:
        yield server


# No allow-list: the offline web is loopback, so every page is refused ---------------------------


@pytest.mark.parametrize(("host", "path"), OFFLINE_PAGES)
async def test_without_allow_list_every_page_is_blocked(
    web_settings: WebSettingsFactory, offline_web: OfflineWeb, host: str, path: str
) -> None:
    async with Client(web_settings(allow_networks=[])) as client:
        error = await fetch_error(client, offline_web.url(host, path))
        assert error.code == "blocked_address"
        assert error.exit_code == 3
        # robots off too: the refusal is the guard's, not the robots check's
        error = await fetch_error(client, offline_web.url(host, path), respect_robots=False)
        assert error.code == "blocked_address"
    assert offline_web.state.total() == 0


async def test_same_url_passes_with_the_allow_list(
    web_settings: WebSettingsFactory, offline_web: OfflineWeb
) -> None:
    url = offline_web.url("news.test", "/article")
    async with Client(web_settings(allow_networks=[])) as client:
        assert (await fetch_error(client, url)).code == "blocked_address"
    async with Client(web_settings()) as client:
        assert (await client.fetch(url)).status == 200
    assert offline_web.state.hits("news.test", "/article") == 1


async def test_meta_is_blocked_too(web_settings: WebSettingsFactory, offline_web: OfflineWeb):
    async with Client(web_settings(allow_networks=[])) as client:
        with pytest.raises(NetsiftError) as caught:
            await client.meta(offline_web.url("news.test", "/article"))
    assert caught.value.code == "blocked_address"
    assert offline_web.state.total() == 0


# Literal addresses and local names --------------------------------------------------------------


def literal_urls(port: int) -> list[str]:
    return [
        f"http://127.0.0.1:{port}/article",
        f"http://[::1]:{port}/article",
        "http://169.254.169.254/latest/meta-data/",
        "http://2130706433/",
        "http://0x7f.1/",
        "http://0177.0.0.1/",
        "http://127.1/",
        "http://[::ffff:127.0.0.1]/",
        "http://10.0.0.1/",
        "http://192.168.1.1/",
        "http://[fd00::1]/",
        "http://0.0.0.0/",
        "http://localhost/",
        "http://localhost./",
        "http://foo.localhost/",
        "http://x.onion/",
    ]


async def test_literal_private_addresses_are_blocked_without_a_connection(
    make_settings, offline_web: OfflineWeb, v6_web: tuple[LiveServer, SiteState]
) -> None:
    v6_server, v6_state = v6_web
    v6_state.reset()
    urls = [*literal_urls(offline_web.port), v6_server.url("/article", host="[::1]")]
    async with Client(make_settings()) as client:
        for url in urls:
            error = await fetch_error(client, url, respect_robots=False)
            assert error.code == "blocked_address", url
    # nothing arrived at either copy of the site; any other address would have tripped
    # pytest-socket's connect guard and failed the test with a different error
    assert offline_web.state.total() == 0
    assert v6_state.total() == 0


async def test_local_names_stay_blocked_even_with_loopback_allowed(
    web_settings: WebSettingsFactory, offline_web: OfflineWeb
) -> None:
    async with Client(web_settings()) as client:
        for url in (
            "http://localhost/",
            f"http://localhost:{offline_web.port}/",
            "http://a.onion/",
        ):
            assert (await fetch_error(client, url)).code == "blocked_address", url
    assert offline_web.state.total() == 0


@pytest.mark.parametrize(
    "url",
    ["file:///etc/passwd", "ftp://files.test/report.pdf", "gopher://news.test:70/1", "data:,hi"],
)
async def test_other_schemes_are_unsupported(web_client: Client, url: str) -> None:
    error = await fetch_error(web_client, url)
    assert error.code == "unsupported_scheme"
    assert error.exit_code == 2


async def test_redirect_to_another_scheme_is_refused(web_client: Client, offline_web: OfflineWeb):
    url = offline_web.url("redirect.test", "/to?url=file:///etc/passwd")
    assert (await fetch_error(web_client, url)).code == "unsupported_scheme"


# Redirects into refused addresses ---------------------------------------------------------------


@pytest.mark.allow_hosts(["127.0.0.1", "127.0.0.2", "::1", "localhost"])
async def test_redirect_from_an_allowed_host_to_a_refused_one(
    make_settings, offline_web: OfflineWeb, alt_web: LiveServer
) -> None:
    """redirect.test lives on 127.0.0.2 (allowed); its target on 127.0.0.1 is not."""
    settings = make_settings(
        resolve=["redirect.test:127.0.0.2", "news.test:127.0.0.1"],
        allow_networks=["127.0.0.2/32"],
    )
    start = alt_web.url("/to", host="redirect.test")
    async with Client(settings) as client:
        # the redirect host itself is fine
        page = await client.fetch(alt_web.url("/hop/1", host="redirect.test"))
        assert page.title == "Arrived"
        for target in (
            f"http://127.0.0.1:{offline_web.port}/article",
            offline_web.url("news.test", "/article"),
        ):
            error = await fetch_error(client, f"{start}?url={target}")
            assert error.code == "blocked_address", target
    assert offline_web.state.hits("redirect.test", "/to") == 2
    assert offline_web.state.hits("127.0.0.1") == 0
    assert offline_web.state.hits("news.test") == 0


# Resolvers that lie -----------------------------------------------------------------------------


class RebindingResolver:
    """Answers an allowed address first and a refused one second, for every name."""

    def __init__(self, *answers: str) -> None:
        self.answers = [ipaddress.ip_address(a) for a in answers]
        self.calls = 0

    async def resolve(self, host: str, port: int) -> list[IPAddress]:
        self.calls += 1
        return list(self.answers)


async def test_rebinding_answer_is_refused_whole(
    web_settings: WebSettingsFactory, offline_web: OfflineWeb
) -> None:
    resolver = RebindingResolver("127.0.0.1", "169.254.169.254")
    async with Client(web_settings(), resolver=resolver) as client:
        error = await fetch_error(client, offline_web.url("news.test", "/article"))
    assert error.code == "blocked_address"
    assert resolver.calls >= 1
    assert offline_web.state.total() == 0


async def test_resolver_pointing_a_name_at_a_private_address(
    web_settings: WebSettingsFactory, offline_web: OfflineWeb
) -> None:
    """A public-looking name that resolves into the private network is refused by address."""
    resolver = RebindingResolver("10.1.2.3")
    async with Client(web_settings(), resolver=resolver) as client:
        error = await fetch_error(client, offline_web.url("news.test", "/article"))
    assert error.code == "blocked_address"
    assert "10.1.2.3" in str(error.details) or "10.1.2.3" in error.message


async def test_honest_resolver_reaches_the_site(
    web_settings: WebSettingsFactory, offline_web: OfflineWeb
) -> None:
    """The same seam with a truthful answer works: the refusals above are the guard's."""
    resolver = RebindingResolver("127.0.0.1")
    async with Client(web_settings(), resolver=resolver) as client:
        page = await client.fetch(offline_web.url("news.test", "/article"))
    assert page.status == 200
    assert resolver.calls >= 1


# IPv6 loopback pinned ---------------------------------------------------------------------------


async def test_ipv6_pin_needs_the_allow_list(
    make_settings, v6_web: tuple[LiveServer, SiteState]
) -> None:
    server, state = v6_web
    state.reset()
    url = f"http://news.test:{server.port}/article"
    async with Client(make_settings(resolve=["news.test:::1"], allow_networks=[])) as client:
        assert (await fetch_error(client, url)).code == "blocked_address"
    assert state.total() == 0
    settings = make_settings(resolve=["news.test:::1"], allow_networks=["::1/128"])
    async with Client(settings) as client:
        page = await client.fetch(url)
    assert page.title == "Harbour town switches its ferries to batteries"
    assert state.hits("news.test", "/article") == 1
