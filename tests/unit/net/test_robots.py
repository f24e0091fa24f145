"""robots.py: RFC 9309 verdicts (pure) and the cache's behaviour over the real HttpClient.

The web here is `httpx.MockTransport` given to HttpClient's `transport=` seam (narrow unit
tests of the cache's logic); robots.txt over real sockets is in tests/integration/net/.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
import httpx
import pytest

from netsift.config import Settings
from netsift.errors import BlockedByRobots, ConnectError
from netsift.net.http import HttpClient
from netsift.net.robots import ROBOTS_MAX_BYTES, RobotsCache, build_rules

UA = "netsift/1.0 (+https://github.com/netsift/netsift)"

# -- build_rules (pure) ------------------------------------------------------------------------


def test_2xx_is_parsed_with_groups_per_agent() -> None:
    rules = build_rules(
        200,
        b"User-agent: *\nDisallow: /private/\n\nUser-agent: netsift\nDisallow: /no-bots\n",
    )
    assert rules.allows("http://a.test/page", UA)
    assert not rules.allows("http://a.test/no-bots", UA)
    assert rules.allows("http://a.test/private/x", UA)  # the specific group replaces `*`
    assert not rules.allows("http://a.test/private/x", "otherbot/1.0")


@pytest.mark.parametrize("status", [400, 401, 403, 404, 410, 451])
def test_4xx_allows_everything(status: int) -> None:
    assert build_rules(status, b"User-agent: *\nDisallow: /").allows("http://a.test/x", UA)


@pytest.mark.parametrize("status", [429, 500, 502, 503, 504])
def test_5xx_and_429_disallow_everything(status: int) -> None:
    rules = build_rules(status, b"")
    assert not rules.allows("http://a.test/", UA)
    assert str(status) in rules.reason


def test_only_the_first_500_kib_count() -> None:
    filler = b"# " + b"x" * 200 + b"\n"
    body = b"User-agent: *\n" + filler * (ROBOTS_MAX_BYTES // len(filler) + 1) + b"Disallow: /\n"
    assert len(body) > ROBOTS_MAX_BYTES
    assert build_rules(200, body).allows("http://a.test/x", UA)
    assert not build_rules(200, b"User-agent: *\nDisallow: /\n").allows("http://a.test/x", UA)


# -- RobotsCache over HttpClient ---------------------------------------------------------------


class Web:
    def __init__(self) -> None:
        self.robots: dict[str, Callable[[httpx.Request], httpx.Response]] = {}
        self.asked: list[str] = []
        self.delay = 0.0

    async def handle(self, request: httpx.Request) -> httpx.Response:
        self.asked.append(str(request.url))
        await anyio.sleep(self.delay)
        answer = self.robots.get(request.url.host)
        if answer is None:
            raise httpx.ConnectError("connection refused", request=request)
        return answer(request)


def text(body: str, status: int = 200) -> Callable[[httpx.Request], httpx.Response]:
    return lambda request: httpx.Response(status, text=body)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def web() -> Web:
    return Web()


@pytest.fixture
async def http(web: Web) -> AsyncIterator[HttpClient]:
    client = HttpClient(Settings(user_agent=UA), transport=httpx.MockTransport(web.handle))
    yield client
    await client.aclose()


def cache(http: HttpClient, **options: Any) -> RobotsCache:
    return RobotsCache(http, user_agent=UA, timeout=2.0, **options)


async def test_disallowed_url_raises_with_a_way_out(http: HttpClient, web: Web) -> None:
    web.robots["docs.test"] = text("User-agent: *\nDisallow: /private/\n")
    robots = cache(http)
    await robots.check("http://docs.test/guide")
    with pytest.raises(BlockedByRobots) as caught:
        await robots.check("http://docs.test/private/secret?token=SECRET")
    error = caught.value
    assert error.code == "blocked_by_robots"
    assert "http://docs.test/private/secret" in error.message
    assert "SECRET" not in error.message and "SECRET" not in str(error.details)
    assert "--no-robots" in error.message and "respect_robots=false" in error.message


async def test_one_fetch_per_origin_and_ttl(http: HttpClient, web: Web) -> None:
    web.robots["a.test"] = text("User-agent: *\nDisallow: /x\n")
    clock = Clock()
    robots = cache(http, ttl=3600, clock=clock)
    for path in ("/1", "/2", "/3"):
        await robots.check(f"http://a.test{path}")
    assert web.asked == ["http://a.test/robots.txt"]
    await robots.check("http://a.test:8080/1")  # another port is another origin
    await robots.check("https://a.test/1")  # and another scheme
    assert len(web.asked) == 3
    clock.now += 3599
    await robots.check("http://a.test/4")
    assert len(web.asked) == 3
    clock.now += 2
    await robots.check("http://a.test/5")
    assert len(web.asked) == 4


async def test_concurrent_checks_share_one_fetch(http: HttpClient, web: Web) -> None:
    web.robots["a.test"] = text("User-agent: *\nAllow: /\n")
    web.delay = 0.2
    robots = cache(http)
    async with anyio.create_task_group() as tg:
        for i in range(10):
            tg.start_soon(robots.check, f"http://a.test/{i}")
    assert web.asked == ["http://a.test/robots.txt"]


async def test_unreachable_is_the_network_error_and_asked_again(http: HttpClient, web: Web) -> None:
    """A host that is down is not a policy refusal: the check raises the fetch's own error,
    uncached, so the retry it invites sees the host come back."""
    robots = cache(http, ttl=3600, failure_ttl=300, clock=Clock())
    with pytest.raises(ConnectError) as caught:
        await robots.check("http://down.test/page")
    assert caught.value.code == "connect_error" and caught.value.retryable
    web.robots["down.test"] = text("User-agent: *\nAllow: /\n")
    await robots.check("http://down.test/page")
    assert web.asked == ["http://down.test/robots.txt"] * 2


async def test_an_unusable_answer_still_disallows_and_is_retried_sooner(
    http: HttpClient, web: Web
) -> None:
    clock = Clock()
    robots = cache(http, ttl=3600, failure_ttl=300, clock=clock)
    web.robots["loop.test"] = lambda request: httpx.Response(
        302, headers={"location": "/robots.txt"}
    )
    with pytest.raises(BlockedByRobots, match="unreachable"):
        await robots.check("http://loop.test/page")
    web.robots["loop.test"] = text("User-agent: *\nAllow: /\n")
    clock.now += 299
    with pytest.raises(BlockedByRobots):
        await robots.check("http://loop.test/page")
    clock.now += 2
    await robots.check("http://loop.test/page")


async def test_server_error_disallows_and_client_error_allows(http: HttpClient, web: Web) -> None:
    web.robots["r5.test"] = text("User-agent: *\nAllow: /\n", status=503)
    web.robots["r4.test"] = text("User-agent: *\nDisallow: /\n", status=404)
    robots = cache(http)
    with pytest.raises(BlockedByRobots, match="503"):
        await robots.check("http://r5.test/page")
    await robots.check("http://r4.test/page")


async def test_redirected_robots_txt_is_followed(http: HttpClient, web: Web) -> None:
    def moved(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/robots.txt":
            return httpx.Response(301, headers={"Location": "/real-robots.txt"})
        return httpx.Response(200, text="User-agent: *\nDisallow: /nope\n")

    web.robots["moved.test"] = moved
    robots = cache(http)
    await robots.check("http://moved.test/yes")
    with pytest.raises(BlockedByRobots):
        await robots.check("http://moved.test/nope")


async def test_cache_is_bounded(http: HttpClient, web: Web) -> None:
    for name in ("a", "b", "c"):
        web.robots[f"{name}.test"] = text("User-agent: *\nAllow: /\n")
    robots = cache(http, max_entries=2)
    for name in ("a", "b", "c", "a"):
        await robots.check(f"http://{name}.test/")
    assert [u.split("//")[1].split("/")[0] for u in web.asked] == [
        "a.test",
        "b.test",
        "c.test",
        "a.test",
    ]
