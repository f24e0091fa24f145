"""HTTP API throughput: `netsift serve` (1 and 2 workers) against a minimal FastAPI echo.

    .venv/bin/python bench/server.py [--seconds 5] [--concurrency 32] [--latency 0.05]

Serves the provider simulators in this process, starts `netsift serve` as a subprocess aimed
at them (tavily only, memory cache, limits lifted), and drives it from a second process on
loopback with an httpx load loop, bounded in time: cached `/v1/search` (one query, repeated)
and uncached (a new query each time, the simulator adding `--latency`). The ceiling is a
FastAPI app answering `POST /echo` with a small JSON body under the same load and workers.

Beside req/s (which the load driver, sharing the cores, often bounds) each row gives the
server's own CPU per request: the CPU time of the server's process tree over the row
(Linux `/proc`), divided by the requests it answered; "-" where `/proc` is not there.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent

# The echo ceiling, importable by uvicorn's workers as `server:echo_app` (app dir bench/).
try:
    from fastapi import FastAPI

    echo_app = FastAPI()

    @echo_app.post("/echo")
    async def echo(body: dict[str, Any]) -> dict[str, Any]:
        return {"query": body.get("query"), "results": [], "cached": True}

except ImportError:  # pragma: no cover - the server extra is not installed
    pass


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_ready(url: str, proc: subprocess.Popen[bytes], timeout: float = 30) -> None:
    import httpx

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}")
        try:
            if httpx.get(url, timeout=1).status_code < 500:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"{url} did not answer in {timeout}s")


def cpu_seconds(pid: int) -> float | None:
    """CPU time (user + system) of a process and all its descendants, from Linux's /proc."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        for task in Path(f"/proc/{pid}/task").iterdir():
            for child in (task / "children").read_text().split():
                total += cpu_seconds(int(child)) or 0.0
    except (OSError, IndexError, ValueError):
        return None
    return total


def drive(
    url: str, seconds: float, concurrency: int, unique: bool, server: int
) -> dict[str, float]:
    """Run the load loop in a separate process and return its figures, with the CPU the
    server (pid `server` and its workers) spent per request."""
    command = [sys.executable, __file__, "--drive", url, "--seconds", str(seconds)]
    command += ["--concurrency", str(concurrency)] + (["--unique"] if unique else [])
    before = cpu_seconds(server)
    out = subprocess.run(command, check=True, capture_output=True, text=True, cwd=REPO)
    after = cpu_seconds(server)
    figures: dict[str, float] = json.loads(out.stdout)
    if before is not None and after is not None and figures["requests"]:
        # The warm-up request is in the CPU time but not in the count: at most one more.
        figures["cpu_ms"] = (after - before) / figures["requests"] * 1000
    return figures


async def load(url: str, seconds: float, concurrency: int, unique: bool) -> dict[str, float]:
    import anyio
    import httpx

    latencies: list[float] = []
    errors = 0
    counter = 0
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(limits=limits, timeout=30) as http:
        # One unmeasured request warms the cache (and the connection pool).
        await http.post(url, json={"query": "netsift bench warm"})
        stop = time.perf_counter() + seconds

        async def worker() -> None:
            nonlocal errors, counter
            while time.perf_counter() < stop:
                counter += 1
                query = f"netsift bench {counter}" if unique else "netsift bench warm"
                started = time.perf_counter()
                response = await http.post(url, json={"query": query})
                latencies.append(time.perf_counter() - started)
                if response.status_code != 200:
                    errors += 1

        began = time.perf_counter()
        async with anyio.create_task_group() as group:
            for _ in range(concurrency):
                group.start_soon(worker)
        elapsed = time.perf_counter() - began
    latencies.sort()
    return {
        "requests": len(latencies),
        "rps": len(latencies) / elapsed,
        "p50_ms": statistics.median(latencies) * 1000,
        "p99_ms": latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000,
        "errors": errors,
    }


def start(command: list[str], env: dict[str, str], url: str) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        command, env=env, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    wait_ready(url, proc)
    return proc


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="per measurement")
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--latency", type=float, default=0.05, help="simulator seconds/call")
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--drive", help=argparse.SUPPRESS)
    parser.add_argument("--unique", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.drive:
        import anyio

        figures = anyio.run(load, args.drive, args.seconds, args.concurrency, args.unique)
        sys.stdout.write(json.dumps(figures))
        return

    sys.path.insert(0, str(REPO))
    from tests.offline_web.providers import build_app, new_state
    from tests.offline_web.providers.fixtures import ProviderSims
    from tests.offline_web.server import serve

    state = new_state()
    rows: list[tuple[str, int, dict[str, float]]] = []
    with serve(build_app(state)) as server, tempfile.TemporaryDirectory() as data:
        sims = ProviderSims(port=server.port, state=state)
        state["tavily"].latency = args.latency
        env = {k: v for k, v in os.environ.items() if not k.startswith("NETSIFT_")}
        env.update(sims.env())
        env.update(
            {
                "NETSIFT_PROVIDERS": "tavily",
                "NETSIFT_CAPABILITIES": "search,fetch",
                "NETSIFT_CACHE_URL": "memory://",
                "NETSIFT_DATA_DIR": data,
                "NETSIFT_SERVER_RATE_LIMIT": "1000000/second",
                "NETSIFT_SEARCH_RATE_LIMIT": "1000000/second",
                "NETSIFT_PROVIDER_RATE_LIMITS": "tavily=1000000/second",
            }
        )
        for workers in [int(w) for w in args.workers.split(",")]:
            port = free_port()
            base = f"http://127.0.0.1:{port}"
            netsift = [sys.executable, "-m", "netsift", "serve", "--port", str(port)]
            netsift += ["--workers", str(workers), "--log-level", "warning"]
            proc = start(netsift, env, f"{base}/readyz")
            try:
                cached = drive(f"{base}/v1/search", args.seconds, args.concurrency, False, proc.pid)
                rows.append(("cached /v1/search", workers, cached))
                fresh = drive(f"{base}/v1/search", args.seconds, args.concurrency, True, proc.pid)
                rows.append(
                    (f"uncached /v1/search ({args.latency * 1000:.0f} ms sim)", workers, fresh)
                )
            finally:
                stop(proc)
            port = free_port()
            echo = [sys.executable, "-m", "uvicorn", "server:echo_app", "--app-dir", "bench"]
            echo += ["--port", str(port), "--workers", str(workers), "--log-level", "warning"]
            echo += ["--no-access-log"]
            proc = start(echo, env, f"http://127.0.0.1:{port}/docs")
            try:
                ceiling = drive(
                    f"http://127.0.0.1:{port}/echo", args.seconds, args.concurrency, False, proc.pid
                )
                rows.append(("FastAPI echo (ceiling)", workers, ceiling))
            finally:
                stop(proc)

    print(f"{args.seconds:.0f} s per row, {args.concurrency} concurrent connections, loopback")
    print(
        f"{'load':<36} {'workers':>7} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'errors':>6}"
        f" {'server CPU ms/req':>17}"
    )
    ceilings = {w: f["rps"] for name, w, f in rows if name.startswith("FastAPI")}
    for name, workers, f in rows:
        cpu = f"{f['cpu_ms']:.2f}" if "cpu_ms" in f else "-"
        print(
            f"{name:<36} {workers:>7} {f['rps']:>9.0f} {f['p50_ms']:>8.1f} {f['p99_ms']:>8.1f}"
            f" {f['errors']:>6.0f} {cpu:>17}"
        )
    for name, workers, f in rows:
        if name.startswith("cached"):
            ratio = f["rps"] / ceilings[workers]
            print(f"cached search / echo ceiling, {workers} worker(s): {ratio:.2f}")


if __name__ == "__main__":
    main()
