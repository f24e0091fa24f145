"""The server's liveness while it maps or crawls: `/healthz` p99 idle and during each.

    .venv/bin/python bench/map.py [--rounds 3] [--probes 200] [--urls 200000]
                                  [--phases query limit crawl]

Serves, in this process, tests/offline_web/huge_sitemap.py (robots.txt naming one sitemap of
`--urls` URLs, 18 MB at 200,000) and bench/_crawl_site.py's 2,000-page documentation site,
and starts `netsift serve` (with its job worker) as a subprocess aimed at them, under
bench/_loop_watch.py's heartbeat. `/healthz` is probed from this process, one request at a
time 20 ms apart, in these phases:

- idle, before every busy phase and once at the end, so each busy phase has idle probes
  taken just before and just after it and a drift of the machine's load hits both sides of
  its ratio alike;
- `/v1/map` with a query (the whole bounded read: the protocol's 50,000 entries parsed in
  the compute pool, ranked there, merged on the loop a block at a time);
- `/v1/map` with `limit` 1000 (reading stops once 1,000 are in hand);
- `/v1/crawl?wait=true` of `CRAWL_PAGES` pages of the documentation site, seeded by its
  sitemap (the job runs in the server's own worker, on its loop).

Each busy phase repeats its map or crawl until it has `--probes` probes (200 by default) in
the round, so every phase's p99 stands on as many probes as idle's: a limit-1000 map lasts
0.1-0.5 s, 4-25 probes, whose "p99" is just their slowest one, so one stray probe decided
it. With 200 probes a round, 600 over 3, the p99 is the ~6th slowest of a phase. Prints per
phase: probes, p50/p99/max, the ratio of its p99 to the p99 of the idle probes around it
(the goal: under 2x), the loop's worst stall from the heartbeat (ms late, wall: moves with
the machine's load) and the most CPU the loop spent between two of its beats (steady on a
shared machine: what the loop's own work held it), then each action's wall and server-tree
CPU seconds. Not a test: timing on a shared machine moves.
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
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import httpx  # noqa: E402
from tests.offline_web.huge_sitemap import HUGE_HOST, huge_sitemap_app  # noqa: E402
from tests.offline_web.server import serve  # noqa: E402

from bench._crawl_site import BenchSite, SiteLog  # noqa: E402
from bench._loop_watch import read_stalls  # noqa: E402
from bench._proctree import cpu_seconds, descendants  # noqa: E402
from bench.server import free_port, wait_ready  # noqa: E402

PROBE_GAP = 0.02  # seconds between two probes: a client checking liveness, not a load test
CRAWL_HOST = "docs.bench"
# Pages a crawl phase reads: a few seconds of work, so a round takes one or two crawls.
CRAWL_PAGES = 300
PHASES = ("query", "limit", "crawl")  # the busy phases, in the order a round runs them


@dataclass
class Phase:
    """One kind of probing: its probes, and per busy action (wall s, server CPU s)."""

    name: str
    waits: list[float] = field(default_factory=list)
    windows: list[tuple[float, float]] = field(default_factory=list)  # monotonic spans
    costs: list[tuple[float, float]] = field(default_factory=list)
    around: list[float] = field(default_factory=list)  # idle probes just before and after
    last: str = ""


def probe_once(client: httpx.Client, api: str) -> float:
    started = time.perf_counter()
    client.get(f"{api}/healthz").raise_for_status()
    wait = time.perf_counter() - started
    time.sleep(PROBE_GAP)
    return wait


def idle(client: httpx.Client, api: str, count: int) -> tuple[list[float], tuple[float, float]]:
    started = time.monotonic()
    waits = [probe_once(client, api) for _ in range(count)]
    return waits, (started, time.monotonic())


def tree_cpu(pid: int) -> float:
    """CPU seconds of the server and its live descendants (the compute pool's workers)."""
    return cpu_seconds([pid, *descendants(pid)])


def busy(
    client: httpx.Client, api: str, phase: Phase, act: Callable[[], str], pid: int, want: int
) -> None:
    """Probe while `act` runs again and again, until `want` probes are taken; the last
    action started is waited for (probed too), so every probe falls during one."""
    enough = threading.Event()
    done = threading.Event()
    failed: list[BaseException] = []

    def run() -> None:
        try:
            while not enough.is_set():
                cpu, started = tree_cpu(pid), time.perf_counter()
                phase.last = act()
                phase.costs.append((time.perf_counter() - started, tree_cpu(pid) - cpu))
        except BaseException as exc:  # reported by the prober's thread
            failed.append(exc)
        finally:
            done.set()

    worker = threading.Thread(target=run)
    started = time.monotonic()
    worker.start()
    taken = 0
    while not done.is_set():
        phase.waits.append(probe_once(client, api))
        taken += 1
        if taken >= want:
            enough.set()
    worker.join()
    phase.windows.append((started, time.monotonic()))
    if failed:
        raise SystemExit(f"{phase.name} failed: {failed[0]!r}")


def p99(waits: list[float]) -> float:
    # inclusive: a p99 within the probes taken, never extrapolated past the slowest
    return (
        statistics.quantiles(waits, n=100, method="inclusive")[98]
        if len(waits) >= 2
        else max(waits)
    )


def worst(stalls: list[tuple[float, float, float]], windows: list[tuple[float, float]]) -> str:
    """The heartbeat's worst lateness and loop CPU between two beats within `windows`."""
    inside = [(late, ran) for at, late, ran in stalls if any(a <= at <= b for a, b in windows)]
    if not inside:
        return "< 2.0 | -"
    return f"{max(late for late, _ in inside):.1f} | {max(ran for _, ran in inside):.1f}"


def spread_of(values: tuple[float, ...]) -> str:
    return f"{statistics.median(values):.2f} ({min(values):.2f}-{max(values):.2f})"


def row(name: str, waits: list[float], idle_p99: float, loop: str) -> str:
    ms = sorted(w * 1000 for w in waits)
    return (
        f"| {name} | {len(ms)} | {statistics.median(ms):.1f} | {p99(waits) * 1000:.1f} | "
        f"{ms[-1]:.1f} | {p99(waits) / idle_p99:.2f}x | {loop} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--probes", type=int, default=200, help="per busy phase and round")
    parser.add_argument("--urls", type=int, default=200_000)
    parser.add_argument(
        "--phases", nargs="+", choices=PHASES, default=list(PHASES), help="busy phases to run"
    )
    args = parser.parse_args()
    docs = BenchSite(sections=20, pages=100)
    with (
        serve(huge_sitemap_app(args.urls)) as site,
        serve(docs.app(SiteLog())) as docs_site,
        tempfile.TemporaryDirectory() as tmp,
    ):
        port = free_port()
        env = {
            **os.environ,
            "PYTHONPATH": f"{REPO / 'src'}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
            "NETSIFT_RESOLVE": f"{HUGE_HOST}:127.0.0.1,{CRAWL_HOST}:127.0.0.1",
            "NETSIFT_ALLOW_NETWORKS": "127.0.0.0/8",
            "NETSIFT_JOBS_URL": f"sqlite:///{tmp}/jobs.sqlite3",
            "NETSIFT_DATA_DIR": f"{tmp}/data",
            "NETSIFT_CACHE_URL": "memory://",
        }
        lag_file = Path(tmp) / "loop-stalls.txt"
        watch = [sys.executable, str(REPO / "bench" / "_loop_watch.py"), str(lag_file)]
        cmd = [*watch, "serve", "--port", str(port), "--log-level", "warning"]
        server = subprocess.Popen(cmd, env=env)
        api = f"http://127.0.0.1:{port}"
        try:
            wait_ready(f"{api}/v1/info", server, timeout=60)
            start = site.url("/", host=HUGE_HOST)
            ranked = {"url": start, "limit": 10, "query": "p012345", "sitemaps": "only"}
            limited = {"url": start, "limit": 1000, "sitemaps": "only"}
            crawl = {"url": docs_site.url("/", host=CRAWL_HOST), "max_pages": CRAWL_PAGES}

            def mapped(body: dict[str, Any]) -> Callable[[], str]:
                def act() -> str:
                    answer = httpx.post(f"{api}/v1/map", json=body, timeout=300).json()
                    if "links" not in answer:
                        raise RuntimeError(f"the map failed: {answer}")
                    return f"found {answer['found']}, stopped because {answer['stopped_because']}"

                return act

            def crawled() -> str:
                answer = httpx.post(
                    f"{api}/v1/crawl", params={"wait": "true"}, json=crawl, timeout=300
                ).json()
                if "pages_read" not in answer:  # the ended crawl's summary, or an error
                    raise RuntimeError(f"the crawl failed: {answer}")
                return f"read {answer['pages_read']}, stopped because {answer['stopped_because']}"

            every = {
                "query": (Phase("map, query (50,000 read)"), mapped(ranked)),
                "limit": (Phase("map, limit 1000"), mapped(limited)),
                "crawl": (Phase(f"crawl, {CRAWL_PAGES} pages"), crawled),
            }
            busy_phases = [every[name] for name in PHASES if name in args.phases]
            kinds = len(busy_phases)
            mapped({**limited, "limit": 5})()  # warm the pool
            # and the crawl stack: the first crawl imports it on the loop (~40 ms), once
            httpx.post(
                f"{api}/v1/crawl",
                params={"wait": "true"},
                json={**crawl, "max_pages": 5},
                timeout=300,
            ).raise_for_status()
            slots: list[list[float]] = []  # idle probes, in order
            idle_windows: list[tuple[float, float]] = []
            with httpx.Client(timeout=60) as client:
                for _ in range(20):  # warm the connection
                    probe_once(client, api)
                for _ in range(args.rounds):
                    for phase, act in busy_phases:
                        waits, window = idle(client, api, args.probes // 2)
                        slots.append(waits)
                        idle_windows.append(window)
                        busy(client, api, phase, act, server.pid, args.probes)
                waits, window = idle(client, api, args.probes // 2)
                slots.append(waits)
                idle_windows.append(window)
            # each phase's idle: the slot before each of its runs and the slot after it
            for index, (phase, _) in enumerate(busy_phases):
                phase.around = [
                    wait
                    for n in range(args.rounds)
                    for wait in (*slots[n * kinds + index], *slots[n * kinds + index + 1])
                ]
            stalls = read_stalls(lag_file)
            all_idle = [wait for slot in slots for wait in slot]
            load = " / ".join(f"{x:.1f}" for x in os.getloadavg())
            print(f"load average at the end (1 / 5 / 15 min): {load}")
            print(
                f"/healthz while netsift maps a {args.urls:,}-URL sitemap and crawls "
                f"{CRAWL_PAGES} pages ({args.rounds} rounds, {len(slots)} idle slots)"
            )
            print(
                "| phase | probes | p50 ms | p99 ms | max ms | p99 / idle p99 around it "
                "| loop: worst ms late | loop: most CPU ms between beats |"
            )
            print("|---|---:|---:|---:|---:|---:|---:|---:|")
            print(row("idle (all slots)", all_idle, p99(all_idle), worst(stalls, idle_windows)))
            for phase, _ in busy_phases:
                loop = worst(stalls, phase.windows)
                print(row(f"during {phase.name}", phase.waits, p99(phase.around), loop))
            each = ", ".join(f"{p99(slot) * 1000:.1f}" for slot in slots)
            print(f"idle p99 ms of each slot, in order: {each}")
            for phase, _ in busy_phases:
                walls, cpus = zip(*phase.costs, strict=True)
                print(
                    f"{phase.name}: {len(phase.costs)} runs; median (min-max) wall s "
                    f"{spread_of(walls)}, server tree CPU s {spread_of(cpus)}"
                )
                print(f"  last answer: {phase.last}")
        finally:
            server.terminate()
            server.wait(timeout=30)


if __name__ == "__main__":
    main()
