"""Crawl benchmark: a generated 2,000-page site, crawled by netsift (1 and 2 worker
processes) and, in the same run, by trafilatura's focused crawler and Crawl4AI's HTTP crawler.

    .venv/bin/python bench/crawl.py [--pages 2000] [--rounds 1] [--latency 0.0] \
        [--host-concurrency 8] [--crawl4ai PYTHON] [--redis URL]

Serves tests/offline_web/generated.py's site in this process on 127.0.0.1 (robots rules,
exact and near copies, canonical aliases, tracking spellings, a 429 page, slow pages, an
infinite calendar and an archive of its empty months, off-site and private links and
redirects). netsift runs as `netsift worker` processes on one SQLite store (the crawl is
enqueued with `workers=N`, so N workers share it); trafilatura (`trafilatura.spider.
focused_crawler`, which collects links and does not extract pages) runs in a subprocess. For
each contender it prints pages/s (expected pages reached per wall second), CPU seconds per
page (the contender's whole process tree), the requests a correct crawler would not have made
(robots-disallowed, duplicates asked although canonicalisable, calendar pages past the first
three, off-site) and the expected pages it missed. Crawl4AI's HTTP (non-browser) deep crawl
runs when `--crawl4ai` names an interpreter where it is installed (it needs a venv of its own:
bench/_crawl4ai_crawl_peer.py is its side). `--latency` makes every page answer that many
seconds late, so the comparison is not only CPU-bound. `--redis URL` keeps netsift's jobs and
crawl frontier in that Redis instead of a SQLite file. `--host-concurrency` sets the requests in
flight to the one host, for netsift (NETSIFT_CRAWL_HOST_CONCURRENCY; its default and
Scrapy's is 8) and Crawl4AI alike, to show where throughput flattens past politeness' cap.
Not a test: run it on a quiet machine; contenders run one after another, rounds interleave.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import httpx  # noqa: E402
from tests.offline_web.generated import SiteSpec, build_site, expected_paths  # noqa: E402
from tests.offline_web.server import serve  # noqa: E402
from tests.offline_web.state import SiteState  # noqa: E402

HOST = "crawl.test"
CLOCK = os.sysconf("SC_CLK_TCK")
TRAP_ALLOWANCE = 3  # calendar pages a crawler must read before it can tell they are alike


def tree_cpu(root: int) -> float:
    """CPU seconds of `root` and every live descendant (the compute pool's workers too)."""
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(entry.name)] = int(fields[1])
        times[int(entry.name)] = sum(int(f) for f in fields[11:15]) / CLOCK  # u+s, cu+cs
    total, stack = 0.0, [root]
    while stack:
        pid = stack.pop()
        total += times.get(pid, 0.0)
        stack.extend(child for child, parent in parents.items() if parent == pid)
    return total


def judge(log: list[tuple[float, str]], spec: SiteSpec) -> dict[str, Any]:
    """What a contender asked for, sorted into right and wrong."""
    asked = Counter(path for _, path in log)
    wrong = Counter()
    for path, count in asked.items():
        if path.startswith("/private/"):
            wrong["robots"] += count
        elif "utm_source=" in path:
            wrong["duplicate"] += count
        elif path in expected_paths(spec) or path == "/robots.txt":
            wrong["duplicate"] += count - 1  # the same page asked again
    calendar = sum(n for path, n in asked.items() if path.startswith("/calendar/"))
    wrong["trap"] = max(0, calendar - TRAP_ALLOWANCE - 1)  # /calendar/2024/1 is expected
    missed = [p for p in expected_paths(spec) if p not in asked]
    return {"asked": sum(asked.values()), "wrong": dict(wrong), "missed": len(missed)}


def run_netsift(
    site: Any, spec: SiteSpec, workers: int, tmp: Path, host_concurrency: int, redis: str | None
) -> dict[str, Any]:
    store = redis or f"sqlite:///{tmp / f'jobs-{workers}-{time.time_ns()}.sqlite3'}"
    env = {
        **os.environ,
        "NETSIFT_RESOLVE": f"{HOST}:127.0.0.1,elsewhere.test:127.0.0.1,www.{HOST}:10.0.0.7",
        "NETSIFT_ALLOW_NETWORKS": "127.0.0.0/8",
        "NETSIFT_JOBS_URL": store,
        "NETSIFT_DATA_DIR": str(tmp / "data"),
        "NETSIFT_CACHE_URL": "memory://",
        "NETSIFT_WORKER_CONCURRENCY": "1",
        "NETSIFT_RUN_JOBS": "false",
        "NETSIFT_CRAWL_HOST_CONCURRENCY": str(host_concurrency),
    }
    python = str(REPO / ".venv" / "bin" / "python")
    params = {"url": f"http://{HOST}:{site.port}/", "max_pages": 10_000, "max_depth": 50}
    params["workers"] = workers
    enqueue = (
        "import asyncio, json, sys\n"
        "from netsift.client import Client\nfrom netsift.params import CrawlParams\n"
        "async def main():\n"
        "    async with Client() as c:\n"
        "        job = await c.start_crawl(CrawlParams.model_validate(json.loads(sys.argv[1])))\n"
        "        print(job.id)\n"
        "asyncio.run(main())\n"
    )
    job_id = subprocess.run(
        [python, "-c", enqueue, json.dumps(params)], env=env, capture_output=True, text=True
    ).stdout.strip()
    site.state.reset()
    started = time.perf_counter()
    procs = [
        subprocess.Popen([python, "-m", "netsift", "worker"], env=env, stderr=subprocess.DEVNULL)
        for _ in range(workers)
    ]
    waiter = (
        "import asyncio, sys\nfrom netsift.client import Client\n"
        "async def main():\n"
        "    async with Client() as c:\n"
        "        job = await c.wait_job(sys.argv[1], timeout=900)\n"
        "        print(job.status, job.result)\n"
        "asyncio.run(main())\n"
    )
    cpu = 0.0
    done = subprocess.Popen(
        [python, "-c", waiter, job_id], env=env, stdout=subprocess.PIPE, text=True
    )
    while done.poll() is None:
        cpu = max(cpu, sum(tree_cpu(p.pid) for p in procs))
        time.sleep(0.2)
    elapsed = time.perf_counter() - started
    cpu = max(cpu, sum(tree_cpu(p.pid) for p in procs))
    for proc in procs:
        proc.terminate()
        proc.wait(timeout=30)
    status = (done.stdout.read() if done.stdout else "").strip()
    return {"elapsed": elapsed, "cpu": cpu, "status": status[:120]}


# Its SSRF filter refuses 127.0.0.1, where the site is served: switched off for the run; and
# its URL filter (courlan) drops IP hosts, so it gets the site's name, resolved to the loopback
# the way NETSIFT_RESOLVE does for netsift (curl's --resolve).
TRAFILATURA = """
import socket, sys
_resolve = socket.getaddrinfo
def getaddrinfo(host, *args, **kwargs):
    return _resolve("127.0.0.1" if host == "crawl.test" else host, *args, **kwargs)
socket.getaddrinfo = getaddrinfo
from trafilatura.settings import use_config
from trafilatura.spider import focused_crawler
config = use_config()
config.set("DEFAULT", "SSRF_PROTECTION", "off")
config.set("DEFAULT", "SLEEP_TIME", "0")  # its default pause is 5 s a page; netsift pauses none
seen = int(sys.argv[2])
to_visit, known = focused_crawler(sys.argv[1], max_seen_urls=seen, config=config)
print(len(to_visit), len(known))
"""


def run_trafilatura(site: Any, spec: SiteSpec) -> dict[str, Any]:
    python = str(REPO / ".venv" / "bin" / "python")
    site.state.reset()
    started = time.perf_counter()
    proc = subprocess.Popen(
        [python, "-c", TRAFILATURA, f"http://{HOST}:{site.port}/", str(spec.pages + 200)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    return _watch(proc, started)


def _watch(proc: subprocess.Popen[str], started: float) -> dict[str, Any]:
    """Wait for a peer's process, sampling its tree's CPU (its children die with it)."""
    cpu = 0.0
    while proc.poll() is None:
        cpu = max(cpu, tree_cpu(proc.pid))
        time.sleep(0.2)
    elapsed = time.perf_counter() - started
    return {"elapsed": elapsed, "cpu": cpu, "status": (proc.stdout.read() if proc.stdout else "")}


def run_crawl4ai(site: Any, spec: SiteSpec, python: str, sessions: int) -> dict[str, Any]:
    site.state.reset()
    peer = {
        "url": f"http://{HOST}:{site.port}/",
        "max_pages": len(expected_paths(spec)),
        "pins": {HOST: "127.0.0.1"},
        "sessions": sessions,
    }
    started = time.perf_counter()
    proc = subprocess.Popen(
        [python, str(REPO / "bench" / "_crawl4ai_crawl_peer.py"), json.dumps(peer)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=tempfile.gettempdir(),  # its package has a types.py: keep bench/ off its sys.path
        # a fresh robots.txt cache each run, as each netsift run starts with none
        env={**os.environ, "CRAWL4_AI_BASE_DIRECTORY": str(site.tmp / f"c4a-{time.time_ns()}")},
    )
    return _watch(proc, started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--host-concurrency", type=int, default=8, help="requests in flight")
    parser.add_argument("--crawl4ai", metavar="PYTHON", help="an interpreter with crawl4ai")
    parser.add_argument(
        "--redis", metavar="URL", help="netsift's jobs and frontier in this Redis, not SQLite"
    )
    parser.add_argument(
        "--skip", nargs="*", default=[], help="netsift-1 netsift-2 trafilatura crawl4ai"
    )
    args = parser.parse_args()
    spec = SiteSpec(pages=args.pages, host=HOST, latency=args.latency)
    state = SiteState()
    expected = len(expected_paths(spec))
    rows: dict[str, list[dict[str, Any]]] = {}
    with serve(build_site(spec, state)) as live, tempfile.TemporaryDirectory() as tmp:
        site = type("Site", (), {"port": live.port, "state": state, "tmp": Path(tmp)})()
        assert httpx.get(live.url("/robots.txt")).status_code == 200
        for _ in range(args.rounds):
            contenders = {
                "netsift-1": lambda: run_netsift(
                    site, spec, 1, Path(tmp), args.host_concurrency, args.redis
                ),
                "netsift-2": lambda: run_netsift(
                    site, spec, 2, Path(tmp), args.host_concurrency, args.redis
                ),
                "trafilatura": lambda: run_trafilatura(site, spec),
            }
            if args.crawl4ai:
                contenders["crawl4ai"] = lambda: run_crawl4ai(
                    site, spec, args.crawl4ai, args.host_concurrency
                )
            for name, run in contenders.items():
                if name in args.skip:
                    continue
                result = run()
                log = state.knobs.get("log", [])
                assert isinstance(log, list)
                result.update(judge(list(log), spec))
                rows.setdefault(name, []).append(result)
                print(name, json.dumps(result), flush=True)
    print(f"\n{expected} expected pages (site of {args.pages} documents)\n")
    header = (
        "| crawler | pages/s | CPU s/page | requests | not to read (robots/dup/trap) | missed |"
    )
    print(header)
    print("|---|---:|---:|---:|---|---:|")
    for name, results in rows.items():
        best = min(results, key=lambda r: r["elapsed"])
        reached = expected - best["missed"]
        wrong = best["wrong"]
        bad = f"{wrong.get('robots', 0)}/{wrong.get('duplicate', 0)}/{wrong.get('trap', 0)}"
        print(
            f"| {name} | {reached / best['elapsed']:.1f} | {best['cpu'] / max(reached, 1):.4f} "
            f"| {best['asked']} | {bad} | {best['missed']} |"
        )


if __name__ == "__main__":
    main()
