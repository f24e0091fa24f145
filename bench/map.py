"""The server's liveness while it maps a huge site: `/healthz` p99 idle and during `/v1/map`.

    .venv/bin/python bench/map.py [--rounds 3] [--probes 200] [--urls 200000]

Serves tests/offline_web/huge_sitemap.py (robots.txt naming one sitemap of `--urls` URLs,
18 MB at 200,000) in this process and starts `netsift serve` as a subprocess aimed at it. Each
round measures `/healthz` from this process, one probe at a time 20 ms apart: idle (`--probes`
probes), then while a `/v1/map` with a query runs (the whole bounded read: the protocol's
50,000 entries parsed in the compute pool, ranked there, merged on the loop a block at a
time), then while one with `limit` 1000 runs (reading stops once 1,000 are in hand). Prints
each phase's p50/p99/max, the ratio of the busy p99 to the idle p99 (the goal: under 2x), the
map's wall time and the server tree's CPU seconds for it. Not a test: timing on a shared
machine moves; rounds interleave idle and busy so load drifts hit both alike.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import httpx  # noqa: E402
from tests.offline_web.huge_sitemap import HUGE_HOST, huge_sitemap_app  # noqa: E402
from tests.offline_web.server import serve  # noqa: E402

from bench._proctree import cpu_seconds, descendants  # noqa: E402
from bench.server import free_port, wait_ready  # noqa: E402

PROBE_GAP = 0.02  # seconds between two probes: a client checking liveness, not a load test


def probe(
    client: httpx.Client, api: str, *, count: int | None, until: threading.Event | None
) -> list[float]:
    """Wall seconds of sequential /healthz requests: `count` of them, or until `until` is set."""
    waits: list[float] = []
    while (count is not None and len(waits) < count) or (until is not None and not until.is_set()):
        started = time.perf_counter()
        client.get(f"{api}/healthz").raise_for_status()
        waits.append(time.perf_counter() - started)
        time.sleep(PROBE_GAP)
    return waits


def tree_cpu(pid: int) -> float:
    """CPU seconds of the server and its live descendants (the compute pool's workers)."""
    return cpu_seconds([pid, *descendants(pid)])


def p99(waits: list[float]) -> float:
    # inclusive: a p99 within the probes taken, never extrapolated past the slowest
    return (
        statistics.quantiles(waits, n=100, method="inclusive")[98]
        if len(waits) >= 2
        else max(waits)
    )


def busy(
    client: httpx.Client, api: str, body: dict[str, Any], pid: int
) -> tuple[list[float], float, float, dict[str, Any]]:
    """Probes while one map runs: the waits, the map's wall and CPU seconds, its answer."""
    done = threading.Event()
    answer: dict[str, Any] = {}

    def run() -> None:
        try:
            answer.update(httpx.post(f"{api}/v1/map", json=body, timeout=300).json())
        finally:
            done.set()

    cpu = tree_cpu(pid)
    started = time.perf_counter()
    worker = threading.Thread(target=run)
    worker.start()
    waits = probe(client, api, count=None, until=done)
    worker.join()
    return waits, time.perf_counter() - started, tree_cpu(pid) - cpu, answer


def row(name: str, waits: list[float], idle: float) -> str:
    ms = sorted(w * 1000 for w in waits)
    return (
        f"| {name} | {len(ms)} | {statistics.median(ms):.1f} | {p99(waits) * 1000:.1f} | "
        f"{ms[-1]:.1f} | {p99(waits) / idle:.2f}x |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--probes", type=int, default=200)
    parser.add_argument("--urls", type=int, default=200_000)
    args = parser.parse_args()
    with serve(huge_sitemap_app(args.urls)) as site, tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        env = {
            **os.environ,
            "PYTHONPATH": f"{REPO / 'src'}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
            "NETSIFT_RESOLVE": f"{HUGE_HOST}:127.0.0.1",
            "NETSIFT_ALLOW_NETWORKS": "127.0.0.0/8",
            "NETSIFT_JOBS_URL": f"sqlite:///{tmp}/jobs.sqlite3",
            "NETSIFT_DATA_DIR": f"{tmp}/data",
            "NETSIFT_CACHE_URL": "memory://",
        }
        cmd = [sys.executable, "-m", "netsift", "serve", "--port", str(port), "--no-worker"]
        server = subprocess.Popen([*cmd, "--log-level", "warning"], env=env)
        api = f"http://127.0.0.1:{port}"
        try:
            wait_ready(f"{api}/v1/info", server, timeout=60)
            start = site.url("/", host=HUGE_HOST)
            ranked = {"url": start, "limit": 10, "query": "p012345", "sitemaps": "only"}
            limited = {"url": start, "limit": 1000, "sitemaps": "only"}
            httpx.post(f"{api}/v1/map", json={**limited, "limit": 5}, timeout=300)  # warm the pool
            idle_all: list[float] = []
            phases: dict[str, list[float]] = {"query (50,000 read)": [], "limit 1000": []}
            costs: dict[str, list[tuple[float, float]]] = {name: [] for name in phases}
            found: dict[str, tuple[int, list[str]]] = {}
            with httpx.Client(timeout=60) as client:
                probe(client, api, count=20, until=None)  # warm the connection
                for _ in range(args.rounds):
                    idle_all += probe(client, api, count=args.probes, until=None)
                    for name, body in zip(phases, (ranked, limited), strict=True):
                        waits, wall, cpu, answer = busy(client, api, body, server.pid)
                        if "links" not in answer:
                            raise SystemExit(f"the map failed: {answer}")
                        phases[name] += waits
                        costs[name].append((wall, cpu))
                        found[name] = (answer["found"], answer["stopped_because"])
            idle = p99(idle_all)
            load = " / ".join(f"{x:.1f}" for x in os.getloadavg())
            print(f"load average at the end (1 / 5 / 15 min): {load}")
            print(
                f"/healthz while /v1/map reads a {args.urls:,}-URL sitemap ({args.rounds} rounds)"
            )
            print("| phase | probes | p50 ms | p99 ms | max ms | p99 / idle p99 |")
            print("|---|---:|---:|---:|---:|---:|")
            print(row("idle", idle_all, idle))
            for name, waits in phases.items():
                print(row(f"during map, {name}", waits, idle))
            for name, runs in costs.items():
                walls = ", ".join(f"{w:.2f}" for w, _ in runs)
                cpus = ", ".join(f"{c:.2f}" for _, c in runs)
                print(f"map {name}: wall s {walls}; server tree CPU s {cpus}")
                print(f"  last answer: found {found[name][0]}, stopped because {found[name][1]}")
        finally:
            server.terminate()
            server.wait(timeout=30)


if __name__ == "__main__":
    main()
