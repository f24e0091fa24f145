"""Keys, binding, per-client limits and CORS of the HTTP server, and `netsift serve` itself."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

import anyio
import httpx
import pytest
from limits import parse_many
from typer.testing import CliRunner

from netsift.cli import app as cli
from netsift.client import Client
from netsift.errors import QuotaExceeded, RateLimited, Unauthorized
from netsift.server import create_app
from netsift.server.auth import Authenticator, check_bind, is_loopback
from netsift.server.limits import ClientLimits, LocalWindows
from tests.offline_web.server import serve


@pytest.fixture
async def make_api(sim_settings):
    """`await make_api(**settings)` → an httpx client on an app over the simulators."""
    opened = []

    async def factory(**overrides):
        overrides.setdefault("providers", ["tavily"])
        overrides.setdefault("capabilities", ["search", "fetch"])
        client = Client(sim_settings(**overrides))
        await client.__aenter__()
        transport = httpx.ASGITransport(app=create_app(client=client))
        http = httpx.AsyncClient(transport=transport, base_url="http://api.test")
        opened.append((client, http))
        return http

    yield factory
    for client, http in opened:
        await http.aclose()
        await client.aclose()


async def test_keys_are_required_when_configured(make_api):
    api = await make_api(api_keys=["k-alpha", "k-beta"])
    missing = await api.get("/v1/info")
    assert missing.status_code == 401
    assert missing.json()["error"]["code"] == "unauthorized"
    assert missing.headers["www-authenticate"] == "Bearer"
    wrong = await api.get("/v1/info", headers={"Authorization": "Bearer k-gamma"})
    assert wrong.status_code == 401
    basic = await api.get("/v1/info", headers={"Authorization": "Basic k-alpha"})
    assert basic.status_code == 401
    for key in ("k-alpha", "k-beta"):
        ok = await api.get("/v1/info", headers={"Authorization": f"Bearer {key}"})
        assert ok.status_code == 200 and ok.json()["auth_required"] is True
    search = await api.post("/v1/search", json={"query": "rust"})
    assert search.status_code == 401
    assert (await api.get("/metrics")).status_code == 401
    assert (await api.get("/healthz")).status_code == 200  # probes need no key


async def test_keys_never_reach_metrics_or_errors(make_api):
    api = await make_api(api_keys=["k-alpha"])
    headers = {"Authorization": "Bearer k-alpha"}
    assert (await api.post("/v1/search", json={"query": "rust"}, headers=headers)).is_success
    wrong = await api.get("/v1/info", headers={"Authorization": "Bearer k-alphx"})
    assert "k-alph" not in wrong.text
    metrics = (await api.get("/metrics", headers=headers)).text
    assert "k-alpha" not in metrics
    assert 'client="key-' in metrics  # a fingerprint names the caller


def test_authenticator_compares_every_key():
    auth = Authenticator(["one", "two"])
    assert auth.check("Bearer two") == auth.check("bearer two")  # the scheme is case-blind
    assert auth.check("Bearer one") != auth.check("Bearer two")
    with pytest.raises(Unauthorized):
        auth.check("Bearer on")
    with pytest.raises(Unauthorized):
        auth.check(None)
    assert Authenticator([]).check(None) is None


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.9.9.9", True),
        ("::1", True),
        ("[::1]", True),
        ("localhost", True),
        ("0.0.0.0", False),
        ("::", False),
        ("10.0.0.5", False),
    ],
)
def test_is_loopback(host, loopback):
    assert is_loopback(host) is loopback


def test_check_bind():
    check_bind("127.0.0.1", api_keys=[], insecure_no_auth=False)
    check_bind("0.0.0.0", api_keys=["k"], insecure_no_auth=False)
    check_bind("0.0.0.0", api_keys=[], insecure_no_auth=True)
    with pytest.raises(Exception) as refused:
        check_bind("0.0.0.0", api_keys=[], insecure_no_auth=False)
    assert refused.value.code == "disabled"  # type: ignore[attr-defined]


def test_serve_refuses_public_bind_without_keys():
    result = CliRunner().invoke(cli, ["serve", "--host", "0.0.0.0", "--port", "0"])
    assert result.exit_code == 5
    assert "NETSIFT_API_KEYS" in result.output and "--insecure-no-auth" in result.output


async def test_rate_limit_is_429_with_retry_after(make_api):
    api = await make_api(server_rate_limit="3/minute")
    for _ in range(3):
        assert (await api.get("/v1/info")).status_code == 200
    limited = await api.get("/v1/info")
    assert limited.status_code == 429
    error = limited.json()["error"]
    assert error["code"] == "rate_limited" and error["retryable"] is True
    assert 1 <= int(limited.headers["retry-after"]) <= 60
    assert (await api.get("/healthz")).status_code == 200


async def test_rate_limit_is_per_client(make_api):
    api = await make_api(server_rate_limit="2/minute", api_keys=["a", "b"])
    for _ in range(2):
        assert (await api.get("/v1/info", headers={"Authorization": "Bearer a"})).is_success
    assert (await api.get("/v1/info", headers={"Authorization": "Bearer a"})).status_code == 429
    assert (await api.get("/v1/info", headers={"Authorization": "Bearer b"})).is_success


async def test_local_windows_move():
    """The in-process moving window: N per span, freed one by one as each hit ages out."""
    now = [1000.0]
    windows = LocalWindows(clock=lambda: now[0])
    [per_minute] = parse_many("3/minute")
    for _ in range(3):
        now[0] += 10
        assert await windows.hit(per_minute, "rate", "a")
    assert not await windows.hit(per_minute, "rate", "a")  # 3 in the last minute
    assert await windows.hit(per_minute, "rate", "b")  # per client
    assert await windows.wait(per_minute, "rate", "a") == 40  # the first hit was at 1010
    now[0] += 40.5
    assert await windows.hit(per_minute, "rate", "a")  # the first one aged out
    assert not await windows.hit(per_minute, "rate", "a")
    assert not await windows.test(per_minute, "quota", "c", cost=4)  # more than the window
    assert await windows.test(per_minute, "quota", "c", cost=3)
    assert await windows.hit(per_minute, "quota", "c", cost=3)
    assert not await windows.hit(per_minute, "quota", "c")


async def test_idle_clients_are_forgotten():
    now = [0.0]
    windows = LocalWindows(clock=lambda: now[0])
    windows.SWEEP_EVERY = 10
    [per_second] = parse_many("5/second")
    for client in range(9):
        assert await windows.hit(per_second, "rate", f"idle-{client}")
    now[0] += 2
    assert await windows.hit(per_second, "rate", "busy")  # the 10th hit: a sweep first
    assert list(windows._hits) == ["LIMITER/rate/busy/5/1/second"]  # the idle ones are gone
    for _ in range(4):
        assert await windows.hit(per_second, "rate", "busy")
    assert not await windows.hit(per_second, "rate", "busy")  # its first hit still counts


@pytest.mark.redis
async def test_shared_windows_count_every_replica(redis_url):
    """Two servers (or workers) on the same Redis count one client against one window."""
    one = ClientLimits(rate_limit="2/minute", search_quota="3/day", storage_url=redis_url)
    two = ClientLimits(rate_limit="2/minute", search_quota="3/day", storage_url=redis_url)
    try:
        await one.hit_request("client-a")
        await two.hit_request("client-a")
        with pytest.raises(RateLimited) as limited:
            await one.hit_request("client-a")
        assert 1 <= limited.value.details["retry_after"] <= 60
        await two.hit_request("client-b")
        await one.spend_searches("client-a", 2)
        with pytest.raises(QuotaExceeded):
            await two.spend_searches("client-a", 2)  # all or none: nothing taken
        await two.spend_searches("client-a", 1)
    finally:
        await one.aclose()
        await two.aclose()


async def test_search_quota_counts_batch_queries(make_api, sims):
    api = await make_api(server_search_quota="3/day")
    assert (await api.post("/v1/search", json={"query": "rust"})).status_code == 200
    too_many = await api.post("/v1/search/batch", json={"queries": ["a b", "c d", "e f"]})
    assert too_many.status_code == 429
    error = too_many.json()["error"]
    assert error["code"] == "quota_exceeded" and error["details"]["requested"] == 3
    assert int(too_many.headers["retry-after"]) >= 1
    assert sims["tavily"].count == 1  # the refused batch sent nothing
    two = await api.post("/v1/search/batch", json={"queries": ["a b", "c d"]})
    assert two.status_code == 200
    assert (await api.post("/v1/search", json={"query": "more"})).status_code == 429
    assert (await api.post("/v1/fetch", json={"url": "ftp://x.test/"})).status_code == 400


async def test_cors_is_off_unless_configured(make_api):
    closed = await make_api()
    preflight = {"Origin": "https://app.example", "Access-Control-Request-Method": "POST"}
    response = await closed.options("/v1/search", headers=preflight)
    assert "access-control-allow-origin" not in response.headers
    opened = await make_api(cors_origins="https://app.example")
    response = await opened.options("/v1/search", headers=preflight)
    assert response.headers["access-control-allow-origin"] == "https://app.example"
    other = await opened.options(
        "/v1/search", headers={**preflight, "Origin": "https://evil.example"}
    )
    assert "access-control-allow-origin" not in other.headers


def test_cors_allows_every_method_the_api_has(sim_settings):
    settings = sim_settings(
        providers=["tavily"],
        capabilities=["search", "research"],
        cors_origins="https://app.example",
    )
    origin = {"Origin": "https://app.example"}
    with (
        serve(create_app(settings), lifespan="on") as server,
        httpx.Client(base_url=server.url("")) as api,
    ):
        for method, path in (
            ("GET", "/v1/info"),
            ("POST", "/v1/search"),
            ("DELETE", "/v1/research/x"),
        ):
            preflight = api.options(
                path, headers={**origin, "Access-Control-Request-Method": method}
            )
            assert preflight.status_code == 200, (method, preflight.text)
            allowed = preflight.headers["access-control-allow-methods"]
            assert method in {m.strip() for m in allowed.split(",")}
        # The browser's DELETE itself goes through, and the page may read the answer.
        cancelled = api.delete("/v1/research/no-such-job", headers=origin)
        assert cancelled.status_code == 404
        assert cancelled.headers["access-control-allow-origin"] == "https://app.example"
        refused = api.options(
            "/v1/search", headers={**origin, "Access-Control-Request-Method": "PATCH"}
        )
        assert refused.status_code == 400  # no route answers PATCH: the preflight says no


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_ready(proc: subprocess.Popen[bytes], port: int, *, timeout: float) -> str:
    """The base URL of a `netsift serve` subprocess, once `/readyz` answers 200."""
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + timeout
    while True:
        try:
            if httpx.get(f"{base}/readyz").status_code == 200:
                return base
        except httpx.TransportError:
            pass
        assert time.monotonic() < deadline and proc.poll() is None, "server did not start"
        time.sleep(0.1)


@pytest.mark.slow
def test_netsift_serve_runs_uvicorn(tmp_path, sims):
    port = free_port()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("NETSIFT_")},
        **sims.env(),
        "NETSIFT_PROVIDERS": "tavily",
        "NETSIFT_CAPABILITIES": "search,fetch",
        "NETSIFT_DATA_DIR": str(tmp_path / "data"),
        "NETSIFT_CACHE_URL": "memory://",
        "NETSIFT_API_KEYS": "serve-key",
    }
    command = [sys.executable, "-m", "netsift", "serve", "--port", str(port)]
    proc = subprocess.Popen(
        command, env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    try:
        base = wait_ready(proc, port, timeout=20)
        headers = {"Authorization": "Bearer serve-key"}
        found = httpx.post(f"{base}/v1/search", json={"query": "rust"}, headers=headers)
        assert found.status_code == 200 and found.json()["provider"] == "tavily"
        assert httpx.post(f"{base}/v1/search", json={"query": "rust"}).status_code == 401
        spec = httpx.get(f"{base}/openapi.json").json()
        assert "/v1/search" in spec["paths"]
    finally:
        proc.send_signal(signal.SIGINT)
        output = proc.communicate(timeout=15)[0].decode()
    assert "serve-key" not in output


@pytest.mark.slow
@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_serve_with_workers_removes_its_metrics_dir(tmp_path, sims, stop):
    temp = tmp_path / "tmp"
    temp.mkdir()
    port = free_port()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("NETSIFT_", "PROMETHEUS_"))},
        **sims.env(),
        "TMPDIR": str(temp),  # where tempfile makes the metrics dir
        "NETSIFT_PROVIDERS": "tavily",
        "NETSIFT_CAPABILITIES": "search",
        "NETSIFT_DATA_DIR": str(tmp_path / "data"),
        "NETSIFT_CACHE_URL": "memory://",
    }
    command = [sys.executable, "-m", "netsift", "serve", "--port", str(port), "--workers", "2"]
    proc = subprocess.Popen(
        command, env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    try:
        base = wait_ready(proc, port, timeout=30)
        assert httpx.post(f"{base}/v1/search", json={"query": "rust"}).status_code == 200
        [metrics_dir] = list(temp.glob("netsift-metrics-*"))
        assert any(metrics_dir.iterdir())  # the workers write their counters there
        assert "netsift_searches_total" in httpx.get(f"{base}/metrics").text
    finally:
        proc.send_signal(stop)
        output = proc.communicate(timeout=30)[0].decode()
    assert proc.returncode == 0, output
    assert list(temp.iterdir()) == [], output


@pytest.mark.redis
async def test_concurrent_searches_never_overspend_a_shared_quota(redis_url):
    """Many searches admitted at once by several workers on one Redis: exactly the quota's
    worth pass, however their checks interleave (each admission is the atomic take)."""
    limits = [
        ClientLimits(rate_limit=None, search_quota="5/day", storage_url=redis_url) for _ in range(3)
    ]
    passed = 0

    async def one(limit: ClientLimits) -> None:
        nonlocal passed
        try:
            await limit.spend_searches("client-c", 1)
            passed += 1
        except QuotaExceeded:
            pass

    try:
        async with anyio.create_task_group() as group:
            for i in range(18):
                group.start_soon(one, limits[i % 3])
        assert passed == 5
    finally:
        for limit in limits:
            await limit.aclose()


async def test_extract_reads_html_and_refuses_a_program_as_every_door_does(make_api):
    """`POST /v1/extract/html` is Client.extract_isolated: HTML comes back as a page, a program's
    bytes as unsupported_content_type (the check lives with extract, not in one door)."""
    api = await make_api()
    page = await api.post(
        "/v1/extract/html",
        json={
            "html": "<html><head><title>Quay</title></head><body><article><h1>Quay</h1>"
            "<p>The ferry leaves at nine from the north quay, and again at noon.</p>"
            "</article></body></html>"
        },
    )
    assert page.status_code == 200, page.text
    assert "north quay" in page.json()["content"]
    program = await api.post("/v1/extract/html", json={"html": "\x7fELF\x02\x01\x01" + "\x00" * 64})
    assert program.status_code == 415, program.text
    assert program.json()["error"]["code"] == "unsupported_content_type"
