"""Redirects followed by HttpClient itself: every hop re-checked, limits, methods, secrets."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import httpx
import pytest

from netsift.errors import (
    BlockedAddress,
    BlockedByRobots,
    InvalidURL,
    TooManyRedirects,
    UnsupportedScheme,
)

from .apps import canary
from .conftest import MakeHttp, Site, read_audit


def to(site: Site, target: str, status: int = 302, host: str = "site.test") -> str:
    return site.url(f"/redirect?to={quote(target, safe='')}&status={status}", host=host)


async def test_chain_within_the_limit_is_followed_with_history(
    make_http: MakeHttp, site: Site, audit_path: Path
) -> None:
    response = await make_http().send(httpx.Request("GET", site.url("/hop/5")), kind="fetch")
    assert response.status_code == 200 and response.text == "Arrived"
    assert str(response.url) == site.url("/hop/0")
    assert [str(h.url) for h in response.history] == [
        site.url(f"/hop/{n}") for n in range(5, 0, -1)
    ]
    assert all(h.status_code == 302 for h in response.history)
    assert [line["url"] for line in read_audit(audit_path)] == [
        site.url(f"/hop/{n}") for n in range(5, -1, -1)
    ]


async def test_chain_over_the_limit(make_http: MakeHttp, site: Site) -> None:
    with pytest.raises(TooManyRedirects) as caught:
        await make_http().send(httpx.Request("GET", site.url("/hop/6")), kind="fetch")
    assert caught.value.code == "too_many_redirects"
    assert site.state.hits["/hop/0"] == 0 and sum(site.state.hits.values()) == 6
    with pytest.raises(TooManyRedirects):
        await make_http(max_redirects=2).send(httpx.Request("GET", site.url("/hop/3")), kind="x")


async def test_loop_is_detected(make_http: MakeHttp, site: Site) -> None:
    with pytest.raises(TooManyRedirects, match="loop"):
        await make_http(max_redirects=20).send(
            httpx.Request("GET", site.url("/loop-a")), kind="fetch"
        )
    assert site.state.hits == {"/loop-a": 1, "/loop-b": 1}


async def test_redirect_to_a_refused_address_sends_nothing_there(
    make_http: MakeHttp, site: Site, audit_path: Path
) -> None:
    """The site (127.0.0.1) is allowed; the canary on [::1] is not, nor are the others."""
    with canary("::1") as listener:
        http = make_http(resolve=[*site.pins, "internal.test:10.0.0.1", "six.test:[::1]"])
        with pytest.raises(BlockedAddress, match=r"10\.0\.0\.1"):
            await http.send(httpx.Request("GET", to(site, "http://internal.test/")), kind="fetch")
        for target in (
            f"http://six.test:{listener.port}/",
            f"http://[::1]:{listener.port}/",
            f"http://[::ffff:169.254.169.254]:{listener.port}/",
            "http://169.254.169.254/latest/meta-data/",
            f"http://localhost:{listener.port}/",
            "http://0251.0376.0251.0376/",  # 169.254.169.254, dotted octal (httpx refuses it)
            "http://[::ffff:a9fe:a9fe]/",
        ):
            with pytest.raises(BlockedAddress):
                await http.send(httpx.Request("GET", to(site, target, 307)), kind="fetch")
    assert listener.connections == 0
    lines = read_audit(audit_path)
    redirects = [line for line in lines if line["status"] in (302, 307)]
    assert [line["outcome"] for line in redirects] == ["ok"] * 8
    blocked = [line for line in lines if line["outcome"] == "blocked_address"]
    assert len(blocked) == 8  # localhost too: refused by name, logged all the same
    assert all(line["resolved_ip"] is None and line["bytes"] == 0 for line in blocked)


async def test_redirect_from_allowed_to_loopback_when_only_the_first_is_allowed(
    make_http: MakeHttp, site: Site
) -> None:
    with canary("::1") as listener:
        http = make_http()  # 127.0.0.0/8 allowed, ::1 not
        with pytest.raises(BlockedAddress):
            await http.send(
                httpx.Request("GET", to(site, f"http://[::1]:{listener.port}/")), kind="fetch"
            )
    assert listener.connections == 0


async def test_relative_location_is_resolved(make_http: MakeHttp, site: Site) -> None:
    response = await make_http().send(
        httpx.Request("GET", site.url("/deep/relative")), kind="fetch"
    )
    assert response.json()["path"] == "/echo"
    assert response.history[0].status_code == 301


@pytest.mark.parametrize(
    "target",
    ["file:///etc/passwd", "gopher://127.0.0.1:70/_x", "ftp://example.org/", "javascript:1"],
)
async def test_location_with_another_scheme(make_http: MakeHttp, site: Site, target: str) -> None:
    with pytest.raises(UnsupportedScheme):
        await make_http().send(httpx.Request("GET", to(site, target)), kind="fetch")


async def test_location_with_credentials_is_invalid(make_http: MakeHttp, site: Site) -> None:
    with pytest.raises(InvalidURL):
        await make_http().send(
            httpx.Request("GET", to(site, f"http://u:p@other.test:{site.port}/echo")),
            kind="fetch",
        )


@pytest.mark.parametrize(("status", "method"), [(301, "GET"), (302, "GET"), (303, "GET")])
async def test_post_becomes_get_on_301_302_303(
    make_http: MakeHttp, site: Site, status: int, method: str
) -> None:
    request = httpx.Request("POST", to(site, "/echo", status), content=b"payload")
    response = await make_http().send(request, kind="search")
    echoed = response.json()
    assert echoed["method"] == method and echoed["body"] == ""
    assert "content-length" not in echoed["headers"] or echoed["headers"]["content-length"] == "0"


@pytest.mark.parametrize("status", [307, 308])
async def test_307_308_keep_method_and_body(make_http: MakeHttp, site: Site, status: int) -> None:
    request = httpx.Request("POST", to(site, "/echo", status), content=b"payload")
    echoed = (await make_http().send(request, kind="search")).json()
    assert echoed["method"] == "POST" and echoed["body"] == "payload"


async def test_cross_origin_redirect_drops_credentials(make_http: MakeHttp, site: Site) -> None:
    secrets = {
        "Authorization": "Bearer SECRET",
        "Cookie": "session=SECRET",
        "X-Subscription-Token": "SECRET",  # Brave's key header: vendors name their own
        "X-Keep": "yes",
        "Accept-Language": "de",
    }
    http = make_http()
    same = await http.send(
        httpx.Request("GET", to(site, site.url("/echo")), headers=secrets), kind="search"
    )
    assert same.json()["headers"]["authorization"] == "Bearer SECRET"
    assert same.json()["headers"]["cookie"] == "session=SECRET"
    other = await http.send(
        httpx.Request("GET", to(site, site.url("/echo", host="other.test")), headers=secrets),
        kind="search",
    )
    headers = other.json()["headers"]
    assert "SECRET" not in str(headers)
    assert "x-keep" not in headers  # an allow-list decides what crosses, not a deny-list
    assert headers["accept-language"] == "de" and headers["host"] == f"other.test:{site.port}"


async def test_on_hop_runs_before_every_hop_and_can_stop_it(
    make_http: MakeHttp, site: Site
) -> None:
    seen: list[str] = []

    async def on_hop(url: httpx.URL) -> None:
        seen.append(url.path)
        if url.path == "/hop/1":
            raise BlockedByRobots("robots says no")

    with pytest.raises(BlockedByRobots):
        await make_http().send(
            httpx.Request("GET", site.url("/hop/3")), kind="fetch", on_hop=on_hop
        )
    assert seen == ["/hop/3", "/hop/2", "/hop/1"]
    assert site.state.hits["/hop/1"] == 0


async def test_follow_redirects_false_returns_the_redirect(make_http: MakeHttp, site: Site) -> None:
    response = await make_http().send(
        httpx.Request("GET", site.url("/hop/2")), kind="fetch", follow_redirects=False
    )
    assert response.status_code == 302 and response.history == []
    assert response.headers["location"] == "/hop/1"
