"""A hostile page cannot stall the server: while one client's fetch runs past its CPU budget in
the compute pool, `/healthz` keeps answering, and the fetch ends as `too_complex` (HTTP 422)."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from netsift.server import create_app
from tests.offline_web.server import serve


async def test_healthz_answers_while_a_page_runs_away(make_settings, hostile_site):
    settings = make_settings(
        capabilities=["fetch"],
        resolve=["hostile.test:127.0.0.1"],
        allow_networks=["127.0.0.0/8"],
        respect_robots=False,
        workers=1,
        task_cpu_seconds=1,
    )
    with serve(create_app(settings), lifespan="on") as api:
        async with httpx.AsyncClient(timeout=60) as http:
            fetch = asyncio.ensure_future(
                http.post(
                    api.url("/v1/fetch"),
                    json={"url": f"http://hostile.test:{hostile_site.port}/divs"},
                )
            )
            answered = 0
            while not fetch.done():
                health = await http.get(api.url("/healthz"), timeout=5)
                assert health.status_code == 200
                answered += 1
                await asyncio.sleep(0.05)
            response = await fetch
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["code"] == "too_complex"
    assert error["details"]["limit"] in ("cpu", "time")
    assert answered >= 5  # the loop went on answering while the page was parsed elsewhere


def _statuses(settings, forwarded_for: list[str]) -> list[int]:
    """GET /v1/info from the loopback once per X-Forwarded-For value, through uvicorn set up
    as `netsift serve` sets it up (its own proxy-header handling off)."""
    with serve(create_app(settings), lifespan="on", proxy_headers=False) as api:
        return [
            httpx.get(api.url("/v1/info"), headers={"X-Forwarded-For": ip}, timeout=10).status_code
            for ip in forwarded_for
        ]


def test_forwarded_for_from_an_untrusted_peer_does_not_escape_the_rate_limit(make_settings):
    settings = make_settings(capabilities=["fetch"], server_rate_limit="3/minute")
    ips = ["203.0.113.1", "203.0.113.2", "203.0.113.3", "203.0.113.4"]
    assert _statuses(settings, ips) == [200, 200, 200, 429]


def test_forwarded_for_from_a_trusted_proxy_names_the_client(make_settings):
    settings = make_settings(
        capabilities=["fetch"], server_rate_limit="3/minute", trusted_proxies=["127.0.0.0/8"]
    )
    ips = ["203.0.113.1", "203.0.113.2", "203.0.113.3", "203.0.113.4"]
    assert _statuses(settings, ips) == [200, 200, 200, 200]
    # a client behind the proxy cannot hide behind an address it adds itself
    same = ["203.0.113.9, 203.0.113.5"] * 3 + ["198.51.100.7, 203.0.113.5"]
    assert _statuses(settings, same) == [200, 200, 200, 429]


def test_an_event_seq_past_any_store_is_invalid_input(make_settings):
    from fastapi.testclient import TestClient

    settings = make_settings(capabilities=["research"])
    with TestClient(create_app(settings)) as http:
        response = http.get("/v1/research/nope/events?since=" + "9" * 30)
    assert response.status_code == 422  # the API's status for a parameter out of range
    assert response.json()["error"]["code"] == "invalid_input"


@pytest.fixture
def own_redis(tmp_path):
    """A Redis of this test's own, so the test can stop it."""
    import shutil
    import socket
    import subprocess
    import time

    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("redis-server is not installed (apt-get install redis-server)")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    args = [
        binary,
        "--port",
        str(port),
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        "--dir",
        str(tmp_path),
    ]
    process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.05)
    try:
        yield f"redis://127.0.0.1:{port}", process
    finally:
        process.kill()
        process.wait(timeout=10)


@pytest.mark.redis
def test_a_lost_redis_degrades_to_local_and_readyz_says_so(door_settings, own_redis, caplog):
    from fastapi.testclient import TestClient

    url, process = own_redis
    settings = door_settings(redis_url=url, cache_url=url)
    with TestClient(create_app(settings)) as http:
        assert http.get("/readyz").json() == {
            "status": "ready",
            "checks": {"client": "ok", "cache": "ok"},
        }
        assert http.post("/v1/search", json={"query": "rust async runtime"}).status_code == 200
        process.terminate()
        process.wait(timeout=10)
        search = http.post("/v1/search", json={"query": "python web framework"})
        assert search.status_code == 200
        assert search.json()["results"]
        info = http.get("/v1/info")
        assert info.status_code == 200
        assert info.json()["cache"]["backend"] == "redis (down)"
        ready = http.get("/readyz")
    assert ready.status_code == 200
    body = ready.json()
    assert body["status"] == "degraded"
    assert body["checks"]["cache"].startswith("degraded (Redis down")
    assert body["checks"]["limits"].startswith("degraded (Redis down")
    assert "searches go uncached" in caplog.text


def test_a_served_app_starts_its_extraction_worker_before_its_first_page(make_settings):
    """`netsift serve` (warm): the first page does not pay the forkserver's start-up while
    other requests wait; an app made without it (tests, embedding) starts it on first use."""
    import time

    settings = make_settings(capabilities=["fetch"], workers=1)
    for warm in (True, False):
        app = create_app(settings, warm=warm)
        with serve(app, lifespan="on") as api:
            assert httpx.get(api.url("/healthz"), timeout=10).status_code == 200
            compute = app.state.netsift.client.compute
            deadline = time.monotonic() + 60
            while warm and not compute.started and time.monotonic() < deadline:
                time.sleep(0.05)
            assert compute.started is warm
