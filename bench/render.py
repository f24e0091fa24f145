"""Render throughput and cost: pages/s, CPU and peak memory per rendered page.

    .venv/bin/python bench/render.py [--rounds 5] [--concurrency 2] [--crawl4ai PYTHON]
        [--workers N] [--once]

Serves the offline web's JavaScript pages (`tests/offline_web/spa.py`: a client-rendered
article, a hash-routed docs page, an infinite-scroll listing and a Discourse-like thread)
on 127.0.0.1 and renders them `--rounds` times with the real Client (`render="always"`, guard
on, every request through HttpClient) in a process of its own (`_netsift_render.py`), so the
bench's web server is in neither contender's figures. Each contender reports pages/s, CPU
seconds per page and the peak proportional memory (PSS) of its whole process tree, sampled
every 50 ms, with what each kind of process held at that peak (`_proctree.py`), and the bench
checks that each render found its page's text. `--workers` sets netsift's compute pool
(`NETSIFT_WORKERS`: the processes pages are extracted in).

`--crawl4ai PYTHON` runs the same pages, at the same concurrency, with Crawl4AI's Playwright
crawler in that interpreter (a venv where `crawl4ai` is installed; it is not a netsift
dependency), pointed at the same system Chromium, between two netsift runs (`--once`: one).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.offline_web.server import serve
from tests.offline_web.site import build_app
from tests.offline_web.spa import ARTICLE, DOCS, FEED_ITEMS, THREAD
from tests.offline_web.state import SiteState

PAGES = {
    "/article": ARTICLE["paragraphs"][-1],
    "/docs#/guide/setup": DOCS["/guide/setup"][1][-1],
    "/feed": FEED_ITEMS[-1],
    "/t/thread": THREAD["posts"][-1][1],
}
HERE = Path(__file__).resolve().parent
MiB = 2**20


def run_contender(argv: list[str], spec: dict[str, Any]) -> dict[str, Any]:
    """Run one contender's script (it prints one JSON line) and count the pages it read."""
    out = subprocess.run(
        [*argv, json.dumps(spec)], capture_output=True, text=True, timeout=900, check=False
    )
    if out.returncode != 0:
        return {"error": (out.stderr or out.stdout).strip().splitlines()[-1:]}
    data: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    data["found"] = sum(any(t in md for t in PAGES.values()) for md in data.pop("markdown"))
    return data


def report(name: str, r: dict[str, Any]) -> str:
    if "error" in r:
        return f"| {name} | failed: {r['error']} | | | |"
    pages = r["pages"]
    return (
        f"| {name} | {pages / r['wall']:.2f} | {r['cpu'] / pages * 1000:.0f} ms "
        f"| {r['peak_pss'] / MiB:.0f} MiB | {r['found']}/{pages} |"
    )


def breakdown(runs: dict[str, dict[str, Any]]) -> list[str]:
    """PSS by process role at each run's peak: `role | run (processes) | ...`."""
    runs = {name: r for name, r in runs.items() if "breakdown" in r}
    roles = sorted({role for r in runs.values() for role in r["breakdown"]})
    roles.sort(key=lambda role: -max(r["breakdown"].get(role, [0, 0])[1] for r in runs.values()))
    lines = [f"| process at peak | {' | '.join(runs)} |", "| --- |" + " --- |" * len(runs)]
    for role in roles:
        cells = []
        for r in runs.values():
            count, pss = r["breakdown"].get(role, [0, 0])
            cells.append(f"{pss / MiB:.0f} MiB ({count})" if count else "-")
        lines.append(f"| {role} | {' | '.join(cells)} |")
    totals = [f"**{r['peak_pss'] / MiB:.0f} MiB**" for r in runs.values()]
    lines.append(f"| whole tree | {' | '.join(totals)} |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--crawl4ai", metavar="PYTHON", default=None)
    parser.add_argument("--workers", type=int, default=0, help="compute workers (0: per core)")
    parser.add_argument("--once", action="store_true", help="netsift once, not around the peer")
    args = parser.parse_args()
    with serve(build_app(SiteState())) as server:
        urls = [f"http://spa.test:{server.port}{path}" for path in PAGES] * args.rounds
        spec = {
            "urls": urls,
            "pins": {"spa.test": "127.0.0.1"},
            "concurrency": args.concurrency,
            "workers": args.workers,
        }
        netsift = [sys.executable, str(HERE / "_netsift_render.py")]
        runs = {"netsift (guarded)": run_contender(netsift, spec)}
        if args.crawl4ai:
            peer = [args.crawl4ai, str(HERE / "_crawl4ai_peer.py")]
            runs["Crawl4AI (Playwright)"] = run_contender(peer, spec)
            if not args.once:
                runs["netsift again"] = run_contender(netsift, spec)
    print(f"{len(urls)} renders of {len(PAGES)} JavaScript pages, concurrency {args.concurrency}")
    print("| crawler | pages/s | CPU per page | peak PSS | text found |")
    print("| --- | --- | --- | --- | --- |")
    print("\n".join(report(name, r) for name, r in runs.items()))
    print()
    print("\n".join(breakdown(runs)))
    for name, r in runs.items():
        if r.get("restarts"):
            print(f"{name}: the browser was restarted {r['restarts']} times (memory ceiling)")


if __name__ == "__main__":
    main()
