"""Crawl benchmark: a 2,000-page documentation site built by the bench, crawled by netsift,
Crawl4AI's deep crawl and trafilatura's focused crawler in the same run, interleaved.

    .venv/bin/python bench/crawl.py [--sections 20] [--pages 100] [--latencies 0,0.05] \
        [--rounds 1] [--crawl4ai PYTHON] [--skip NAME ...]

The site (bench/_crawl_site.py, not a test site): `--sections` x `--pages` numbered pages
(/docs/secNN/pNNN.html) of their own text, each linking the next and previous page, its
section's index and 3 pages of other sections; indexes link their first 10 pages; a sitemap
(robots.txt names it) lists every page; robots.txt disallows /private/, which some pages
link; and a planted calendar trap (/calendar/YYYY/MM.html: empty months linking the next
and previous month, for ever). Served in this process on 127.0.0.1 under the name
docs.bench.test, each answer `latency` seconds late.

Per contender and latency: pages read / pages in scope (goal 100 %; a page read is one the
site answered 200 for), wrong pages read (calendar months past the first 3 a crawler may
need to judge them, and /private/ pages; goal 0) and, where the contender says what it kept,
wrong pages kept; pages/s (pages in scope read per wall second of the contender's process,
its start-up included) and CPU seconds per page (resource.getrusage of the reaped contender
process, plus netsift's compute pool, which its process reports before closing it: not
reaped by it, getrusage cannot see it). Each contender runs in a process of its own; rounds
rotate their order. What is missing (a contender that cannot run here, a CrawlParams without
`sitemap`) is printed with the table.

- netsift: bench/_netsift_crawl.py, one process, `max_depth` 50, `max_pages` 10,000, and
  `sitemap="include"` when CrawlParams has that field.
- Crawl4AI: bench/_crawl4ai_crawl_peer.py in `--crawl4ai PYTHON` (a venv of its own: it
  brings ~100 packages), its HTTP strategy (aiohttp, no browser) under BFSDeepCrawlStrategy,
  depth 50, `max_pages` = the pages in scope, robots.txt on, 8 requests in flight.
- trafilatura: `trafilatura.spider.focused_crawler` (a link collector: it reads pages for their
  links and extracts nothing), its SSRF filter off and 5 s pause set to 0.
Not a test: on a shared machine wall time moves; CPU per page is the steadier figure.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.offline_web.server import serve  # noqa: E402

from bench._crawl_site import BenchSite, SiteLog  # noqa: E402

HOST = "docs.bench.test"
TRAP_ALLOWANCE = 3  # calendar months a crawler may read before it can tell they are alike
SESSIONS = 8  # requests in flight to the one host: netsift's default, given to Crawl4AI too
PYTHON = sys.executable

# trafilatura resolves through socket.getaddrinfo: the site's name is pinned there (curl's
# --resolve); its SSRF filter refuses the loopback the site is served on, so it is off.
TRAFILATURA = """
import json, socket, sys
_resolve = socket.getaddrinfo
def getaddrinfo(host, *args, **kwargs):
    return _resolve("127.0.0.1" if host == sys.argv[3] else host, *args, **kwargs)
socket.getaddrinfo = getaddrinfo
from trafilatura.settings import use_config
from trafilatura.spider import focused_crawler
config = use_config()
config.set("DEFAULT", "SSRF_PROTECTION", "off")
config.set("DEFAULT", "SLEEP_TIME", "0")
to_visit, known = focused_crawler(sys.argv[1], max_seen_urls=int(sys.argv[2]), config=config)
print(json.dumps({"to_visit": len(to_visit), "known": len(known)}))
"""


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(argv: list[str], env: dict[str, str] | None = None) -> tuple[float, float, str]:
    """Run a contender's process to its end: wall seconds, CPU seconds, its stdout."""
    cpu, started = children_cpu(), time.perf_counter()
    done = subprocess.run(
        argv, env=env, capture_output=True, text=True, cwd=tempfile.gettempdir(), check=False
    )
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"exit {done.returncode}: {done.stderr.strip()[-600:]}")
    return wall, children_cpu() - cpu, done.stdout.strip().splitlines()[-1]


def netsift(url: str, site: BenchSite, tmp: str) -> dict[str, Any]:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(REPO / "src"), os.environ.get("PYTHONPATH", "")]),
        "NETSIFT_RESOLVE": f"{HOST}:127.0.0.1",
        "NETSIFT_ALLOW_NETWORKS": "127.0.0.0/8",
        "NETSIFT_JOBS_URL": f"sqlite:///{tmp}/jobs-{time.time_ns()}.sqlite3",
        "NETSIFT_DATA_DIR": f"{tmp}/data",
        "NETSIFT_CACHE_URL": "memory://",
    }
    spec = {"url": url, "max_pages": 10_000, "max_depth": 50}
    argv = [PYTHON, str(REPO / "bench" / "_netsift_crawl.py"), json.dumps(spec)]
    wall, cpu, out = run(argv, env)
    answer = json.loads(out)
    return {
        "wall": wall,
        "cpu": cpu + answer["pool_cpu"],
        "kept": answer["kept"],
        "note": f"stopped {answer['stopped_because']}; sitemap: {answer['sitemap']}",
    }


def trafilatura(url: str, site: BenchSite, tmp: str) -> dict[str, Any]:
    seen = len(site.in_scope()) + 200
    wall, cpu, out = run([PYTHON, "-c", TRAFILATURA, url, str(seen), HOST])
    answer = json.loads(out)
    return {"wall": wall, "cpu": cpu, "kept": None, "note": f"known links {answer['known']}"}


def crawl4ai(python: str) -> Any:
    def contender(url: str, site: BenchSite, tmp: str) -> dict[str, Any]:
        peer = {
            "url": url,
            "max_pages": len(site.in_scope()),
            "pins": {HOST: "127.0.0.1"},
            "sessions": SESSIONS,
            "urls": True,
        }
        env = {**os.environ, "CRAWL4_AI_BASE_DIRECTORY": f"{tmp}/c4a-{time.time_ns()}"}
        argv = [python, str(REPO / "bench" / "_crawl4ai_crawl_peer.py"), json.dumps(peer)]
        wall, cpu, out = run(argv, env)
        answer = json.loads(out)
        kept = [urlsplit(u).path or "/" for u in answer.get("ok_urls", [])]
        return {"wall": wall, "cpu": cpu, "kept": kept, "note": f"results {answer['results']}"}

    return contender


def judge(site: BenchSite, log: list[tuple[str, int]], kept: list[str] | None) -> dict[str, Any]:
    """Pages in scope read, wrong pages read and kept, from the site's log."""
    scope = site.in_scope()
    answered = [path for path, status in log if status == 200]
    read = scope & set(answered)
    calendar = sorted({p for p in answered if p.startswith("/calendar/")})
    private = {p for p in answered if p.startswith("/private/")}
    wrong_read = max(0, len(calendar) - TRAP_ALLOWANCE) + len(private)
    asked = Counter(path for path, _ in log)
    twice = sum(n - 1 for path, n in asked.items() if path in scope and n > 1)
    wrong_kept = None if kept is None else sum(1 for p in kept if p not in scope)
    return {
        "read": len(read),
        "scope": len(scope),
        "wrong_read": wrong_read,
        "calendar": len(calendar),
        "twice": twice,
        "wrong_kept": wrong_kept,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sections", type=int, default=20)
    parser.add_argument("--pages", type=int, default=100, help="pages per section")
    parser.add_argument("--latencies", default="0,0.05", help="seconds, comma-separated")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--crawl4ai", metavar="PYTHON", help="an interpreter with crawl4ai")
    parser.add_argument("--skip", nargs="*", default=[], help="netsift trafilatura crawl4ai")
    args = parser.parse_args()
    latencies = [float(x) for x in args.latencies.split(",")]
    missing: list[str] = []
    contenders: dict[str, Any] = {"netsift": netsift, "trafilatura": trafilatura}
    if args.crawl4ai:
        contenders["crawl4ai"] = crawl4ai(args.crawl4ai)
    else:
        missing.append("Crawl4AI: not run (no --crawl4ai PYTHON: it needs a venv of its own)")
    try:
        import trafilatura as _  # noqa: F401
    except ImportError:
        contenders.pop("trafilatura")
        missing.append("trafilatura: not installed in this interpreter")
    for name in args.skip:
        if contenders.pop(name, None) is not None:
            missing.append(f"{name}: skipped (--skip)")
    rows: list[dict[str, Any]] = []
    log = SiteLog()
    with tempfile.TemporaryDirectory() as tmp:
        for latency in latencies:
            site = BenchSite(sections=args.sections, pages=args.pages, latency=latency)
            with serve(site.app(log)) as live:
                url = live.url("/", host=HOST)
                for round_ in range(args.rounds):
                    names = list(contenders)
                    names = names[round_ % len(names) :] + names[: round_ % len(names)]
                    for name in names:
                        log.take()
                        try:
                            result = contenders[name](url, site, tmp)
                        except (RuntimeError, json.JSONDecodeError, IndexError) as exc:
                            missing.append(f"{name} at {latency:g} s: failed ({exc})")
                            continue
                        result.update(judge(site, log.take(), result.pop("kept")))
                        result.update(name=name, latency=latency, round=round_)
                        rows.append(result)
                        print(json.dumps(result), flush=True)
    print()
    print(
        "| crawler | latency | pages read / in scope | wrong read (trap/private) | wrong kept "
        "| asked twice | pages/s | CPU s/page | note |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for r in rows:
        share = 100 * r["read"] / r["scope"]
        kept = "-" if r["wrong_kept"] is None else str(r["wrong_kept"])
        print(
            f"| {r['name']} | {r['latency'] * 1000:.0f} ms | {r['read']}/{r['scope']} "
            f"({share:.1f} %) | {r['wrong_read']} ({r['calendar']} months) | {kept} "
            f"| {r['twice']} | {r['read'] / r['wall']:.1f} | {r['cpu'] / max(r['read'], 1):.4f} "
            f"| {r['note']} |"
        )
    for line in missing:
        print(f"MISSING: {line}")


if __name__ == "__main__":
    main()
