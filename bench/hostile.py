"""Hostile pages against one `netsift serve`: does each end within budget, and do others wait?

Serves the pathological pages of `tests/offline_web/hostile.py` (nested, unclosed, wide, digit
runs, many links and paragraphs, deep JSON and JSON-LD, many-page and heavy-page PDFs) on
127.0.0.1, starts `netsift serve` as a subprocess pinned to them, and for each page POSTs
/v1/fetch while a stream of small `/healthz` requests runs against the same server. Prints, per
page: the outcome (code or "ok"), wall time, the server's CPU time and peak RSS of its workers
(from /proc), the p99 of the other requests against an idle server's p99, and what the
structure and PDF caps cut (`Page.warnings`).

    python bench/hostile.py [--pages nested,digits] [--cpu 15] [--memory 1024] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.offline_web.hostile import PAGES


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _tree(pid: int) -> list[int]:
    """pid and its descendants (the compute pool's forkserver and workers). Every thread's
    children: the forkserver is started from a thread of the server, not its main one."""
    out = [pid]
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            children = (task / "children").read_text().split()
        except (FileNotFoundError, ProcessLookupError):
            continue  # the thread ended
        for child in children:
            out.extend(_tree(int(child)))
    return out


def _cpu_and_rss(pid: int) -> tuple[float, int]:
    """CPU seconds of the process tree and the largest VmHWM (peak RSS, MB) in it."""
    ticks = os.sysconf("SC_CLK_TCK")
    cpu, peak = 0.0, 0
    for member in _tree(pid):
        try:
            fields = Path(f"/proc/{member}/stat").read_text().rsplit(")", 1)[1].split()
            cpu += (int(fields[11]) + int(fields[12]) + int(fields[13]) + int(fields[14])) / ticks
            for line in Path(f"/proc/{member}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    peak = max(peak, int(line.split()[1]) // 1024)
        except (FileNotFoundError, ProcessLookupError):
            continue
    return cpu, peak


async def _probe(http: httpx.AsyncClient, base: str, stop: asyncio.Event) -> list[float]:
    times = []
    while not stop.is_set():
        started = time.perf_counter()
        await http.get(f"{base}/healthz")
        times.append((time.perf_counter() - started) * 1000)
        await asyncio.sleep(0.01)
    return times


def _p99(values: list[float]) -> float:
    return statistics.quantiles(values, n=100)[98] if len(values) >= 2 else float("nan")


# Idle /healthz is measured for this long just before each page, so every page is compared with
# an idle server at the same moment of a shared host's load (interleaved, not once at the start).
IDLE_SECONDS = 1.5

Row = tuple[float, float, float, float, int, str, str]


async def _window(http: httpx.AsyncClient, base: str, seconds: float) -> float:
    stop = asyncio.Event()
    task = asyncio.create_task(_probe(http, base, stop))
    await asyncio.sleep(seconds)
    stop.set()
    return _p99(await task)


async def _page(http: httpx.AsyncClient, base: str, url: str, server_pid: int) -> Row:
    idle = await _window(http, base, IDLE_SECONDS)
    cpu0, _ = _cpu_and_rss(server_pid)
    stop = asyncio.Event()
    probe = asyncio.create_task(_probe(http, base, stop))
    started = time.perf_counter()
    response = await http.post(f"{base}/v1/fetch", json={"url": url})
    wall = time.perf_counter() - started
    # the window is at least as long as the idle one, so a short page's p99 is not the max of a
    # handful of samples
    await asyncio.sleep(max(0.0, IDLE_SECONDS - wall))
    stop.set()
    p99 = _p99(await probe)
    cpu1, peak = _cpu_and_rss(server_pid)
    body = response.json()
    outcome = body["error"]["code"] if "error" in body else "ok"
    if body.get("rendered"):  # the render step took it for a JavaScript shell: Chromium ran
        outcome = "ok, rendered"
    cut = "; ".join(body.get("warnings", [])) or "—"
    return wall, cpu1 - cpu0, p99, idle, peak, outcome, cut


async def _run(base: str, site: str, server_pid: int, names: list[str], rounds: int) -> None:
    rows: dict[str, list[Row]] = {name: [] for name in names}
    async with httpx.AsyncClient(timeout=300) as http:
        await _window(http, base, IDLE_SECONDS)  # warm the connection pool
        for round in range(rounds):
            for name in names:
                # a URL of its own each round: the recent-page cache would answer a repeat
                url = f"{site}/{name}?round={round}"
                rows[name].append(await _page(http, base, url, server_pid))
    print(f"medians of {rounds} rounds; idle p99 measured for {IDLE_SECONDS} s before each page\n")
    print(
        "| page | bytes | outcome | wall s | server CPU s | peak RSS MB | p99 ms | idle p99 ms "
        "| x idle | what the caps cut |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name in names:
        build, _, size = PAGES[name]
        runs = rows[name]
        wall, cpu, p99, idle = (statistics.median(float(run[i]) for run in runs) for i in range(4))
        ratio = statistics.median(run[2] / run[3] for run in runs)
        peak, outcome, cut = max(run[4] for run in runs), runs[-1][5], runs[-1][6]
        print(
            f"| {name} | {len(build(size)):,} | {outcome} | {wall:.1f} | {cpu:.1f} | {peak} "
            f"| {p99:.1f} | {idle:.1f} | {ratio:.1f} | {cut} |"
        )


def _serve_site(names: list[str], port: int) -> None:
    """The hostile pages, served from a process of their own: in the benchmark's process its
    thread would hold the GIL while sending megabytes, and the probe's p99 would measure that."""
    bodies = {name: (PAGES[name][0](PAGES[name][2]), PAGES[name][1]) for name in names}

    async def page(request: Request) -> Response:
        body, content_type = bodies[request.path_params["name"]]
        return Response(body, media_type=content_type)

    app = Starlette(routes=[Route("/{name}", page)])
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)


def _wait_for(url: str) -> None:
    for _ in range(100):
        try:
            httpx.get(url, timeout=1)
            return
        except httpx.TransportError:
            time.sleep(0.2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", default=",".join(PAGES))
    parser.add_argument("--cpu", type=int, default=15, help="NETSIFT_TASK_CPU_SECONDS")
    parser.add_argument("--memory", type=int, default=1024, help="NETSIFT_TASK_MEMORY_MB")
    parser.add_argument("--rounds", type=int, default=3, help="runs of every page, interleaved")
    args = parser.parse_args()
    names = [name for name in args.pages.split(",") if name]
    site_port, port = _free_port(), _free_port()
    site = multiprocessing.get_context("spawn").Process(
        target=_serve_site, args=(names, site_port), daemon=True
    )
    site.start()
    env = {
        **os.environ,
        "NETSIFT_RESOLVE": "hostile.test:127.0.0.1",
        "NETSIFT_ALLOW_NETWORKS": "127.0.0.0/8",
        "NETSIFT_RESPECT_ROBOTS": "false",
        "NETSIFT_CAPABILITIES": "fetch",
        "NETSIFT_SERVER_RATE_LIMIT": "100000/minute",
        "NETSIFT_TASK_CPU_SECONDS": str(args.cpu),
        "NETSIFT_TASK_MEMORY_MB": str(args.memory),
        "NETSIFT_TIMEOUT": "300",
    }
    command = [sys.executable, "-m", "netsift", "serve", "--port", str(port)]
    server = subprocess.Popen(command, env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_for(f"{base}/healthz")
        _wait_for(f"http://127.0.0.1:{site_port}/{names[0]}")
        print(f"budget: {args.cpu} CPU s and {args.memory} MB per page\n")
        asyncio.run(_run(base, f"http://hostile.test:{site_port}", server.pid, names, args.rounds))
    finally:
        server.terminate()
        server.wait(timeout=10)
        site.terminate()


if __name__ == "__main__":
    main()
