"""Retries counted server-side: 5xx and 429 with Retry-After, connect errors, and the limits."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path

import httpx
import pytest

from netsift.errors import ConnectError

from .apps import free_port
from .conftest import MakeHttp, Site, read_audit


def get(url: str) -> httpx.Request:
    return httpx.Request("GET", url)


async def test_503_with_retry_after_is_retried_after_waiting(
    make_http: MakeHttp, site: Site, audit_path: Path
) -> None:
    http = make_http(retries=2)
    started = time.monotonic()
    response = await http.send(get(site.url("/status/503?retry_after=1&ok_after=1")), kind="x")
    elapsed = time.monotonic() - started
    assert response.status_code == 200 and response.text == "recovered"
    assert site.state.hits["/status/503"] == 2
    assert 0.95 <= elapsed < 2.5  # Retry-After: 1 was honoured
    assert [line["status"] for line in read_audit(audit_path)] == [503, 200]


async def test_429_with_retry_after_is_retried(make_http: MakeHttp, site: Site) -> None:
    response = await make_http(retries=1).send(
        get(site.url("/status/429?retry_after=0&ok_after=1")), kind="x"
    )
    assert response.status_code == 200
    assert site.state.hits["/status/429"] == 2


async def test_retry_after_as_http_date(make_http: MakeHttp, site: Site) -> None:
    when = format_datetime(datetime.now(UTC) + timedelta(seconds=1), usegmt=True)
    started = time.monotonic()
    response = await make_http(retries=1).send(
        get(site.url(f"/status/503?retry_after={when}&ok_after=1")), kind="x"
    )
    assert response.status_code == 200
    assert time.monotonic() - started < 2.5


async def test_429_without_retry_after_is_returned_at_once(make_http: MakeHttp, site: Site) -> None:
    response = await make_http(retries=3).send(get(site.url("/status/429")), kind="x")
    assert response.status_code == 429
    assert site.state.hits["/status/429"] == 1


async def test_retries_run_out_and_the_last_response_is_returned(
    make_http: MakeHttp, site: Site
) -> None:
    response = await make_http(retries=2).send(get(site.url("/status/500")), kind="x")
    assert response.status_code == 500
    assert site.state.hits["/status/500"] == 3


async def test_long_retry_after_is_not_waited(make_http: MakeHttp, site: Site) -> None:
    started = time.monotonic()
    response = await make_http(retries=3, retry_max_wait=2).send(
        get(site.url("/status/503?retry_after=120")), kind="x"
    )
    assert response.status_code == 503 and response.headers["retry-after"] == "120"
    assert site.state.hits["/status/503"] == 1
    assert time.monotonic() - started < 1


async def test_no_retry_past_the_deadline(make_http: MakeHttp, site: Site) -> None:
    started = time.monotonic()
    response = await make_http(retries=3).send(
        get(site.url("/status/503?retry_after=2")), kind="x", deadline=1.0
    )
    assert response.status_code == 503
    assert site.state.hits["/status/503"] == 1
    assert time.monotonic() - started < 1


async def test_post_is_never_retried(make_http: MakeHttp, site: Site) -> None:
    request = httpx.Request("POST", site.url("/status/503?retry_after=0"), content=b"x")
    response = await make_http(retries=3).send(request, kind="x")
    assert response.status_code == 503
    assert site.state.hits["/status/503"] == 1


async def test_retries_zero_means_one_request(make_http: MakeHttp, site: Site) -> None:
    await make_http(retries=0).send(get(site.url("/status/503?retry_after=0")), kind="x")
    assert site.state.hits["/status/503"] == 1


@pytest.mark.parametrize("code", [400, 401, 403, 404, 410, 451])
async def test_4xx_is_returned_not_raised_nor_retried(
    make_http: MakeHttp, site: Site, code: int
) -> None:
    response = await make_http(retries=3).send(get(site.url(f"/status/{code}")), kind="x")
    assert response.status_code == code and response.text == f"status {code}"
    assert site.state.hits[f"/status/{code}"] == 1


async def test_connect_errors_are_retried_with_backoff(
    make_http: MakeHttp, audit_path: Path
) -> None:
    http = make_http(retries=2, allow_networks=["127.0.0.1/32"])
    started = time.monotonic()
    with pytest.raises(ConnectError) as caught:
        await http.send(get(f"http://127.0.0.1:{free_port()}/"), kind="x")
    assert caught.value.details["stage"] == "connect"
    assert time.monotonic() - started >= 0.25 + 0.5  # two jittered waits: ≥0.25 s, ≥0.5 s
    assert [line["outcome"] for line in read_audit(audit_path)] == ["connect_error"] * 3


async def test_user_agent_is_set_unless_the_caller_chose_one(
    make_http: MakeHttp, site: Site
) -> None:
    http = make_http(user_agent="netsift-test/1.0 (+https://example.invalid)")
    echoed = (await http.send(get(site.url("/echo")), kind="x")).json()["headers"]
    assert echoed["user-agent"] == "netsift-test/1.0 (+https://example.invalid)"
    assert "gzip" in echoed["accept-encoding"]
    mine = httpx.Request("GET", site.url("/echo"), headers={"User-Agent": "mine/2"})
    assert (await http.send(mine, kind="x")).json()["headers"]["user-agent"] == "mine/2"
