"""One page at a time through `Client.fetch`: CPU and wall time a page, the pool's workers counted.

An agent that reads one page per tool call pays what a single fetch costs end to end: the
download, the round trip to the extraction worker and the extraction itself, with nothing to
overlap. This bench serves the article set's pages (../shared/bench/extraction, unzipped, as
UTF-8 HTML) from a local HTTP server in this process, and fetches them one after another in a
fresh interpreter per run, with the code under test first on its path. The measured process
tree is that interpreter and everything below it (the compute pool's forkserver and workers,
from /proc: `resource.getrusage(RUSAGE_CHILDREN)` does not count children still alive).

Each `--tree` is a source folder (a checkout's `src`), so a past commit can be measured beside
the present one in the same run (`git worktree add --detach /tmp/old 68d5c01`, then
`--tree src --tree /tmp/old/src`). Runs are interleaved tree by tree for `--rounds` rounds,
so load from other work on a shared host falls on every tree alike; each run's first
`WARMUP_PAGES` pages are untimed (imports, the pool's start).

    .venv/bin/python bench/fetch_one.py --tree src --tree /tmp/old/src --rounds 5 --limit 60
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = REPO.parent / "shared" / "bench" / "extraction"
# Untimed pages at the start of each run: the first fetch imports the readers and starts the
# pool, which a serving process pays once, not per page.
WARMUP_PAGES = 3


def load_pages(root: Path, limit: int | None) -> dict[str, bytes]:
    """The article set's pages by name, as UTF-8 bytes."""
    pages: dict[str, bytes] = {}
    for path in sorted((root / "html").glob("*.html.gz"))[:limit]:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            pages[path.name.removesuffix(".gz")] = f.read().encode("utf-8")
    return pages


def serve(pages: dict[str, bytes]) -> ThreadingHTTPServer:
    """The pages at /NAME on 127.0.0.1, from a thread of this (unmeasured) process."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = pages.get(self.path.lstrip("/"))
            self.send_response(200 if body is not None else 404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body or b"")))
            self.end_headers()
            self.wfile.write(body or b"")

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


# The measuring child: imports only what every measured commit has (Client, Settings).
CHILD = r"""
import asyncio, json, os, sys, tempfile, time
from pathlib import Path

TICKS = os.sysconf("SC_CLK_TCK")

def stat(pid):
    return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()

def below(root):
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                children.setdefault(int(stat(entry)[1]), []).append(int(entry))
            except (OSError, IndexError, ValueError):
                pass
    found, stack = [], list(children.get(root, []))
    while stack:
        pid = stack.pop()
        found.append(pid)
        stack.extend(children.get(pid, []))
    return found

def cpu(pids):
    # utime, stime and the reaped children's cutime, cstime (a replaced worker, in its parent)
    total = 0
    for pid in pids:
        try:
            total += sum(int(f) for f in stat(pid)[11:15])
        except (OSError, IndexError, ValueError):
            pass
    return total / TICKS

async def read(client, url):
    # a page read as a wall (a paywall stub) did the same work: counted, as no characters
    try:
        return len((await client.fetch(url)).content)
    except Exception as exc:
        if type(exc).__name__ != "BlockedBySite":
            raise
        return 0

async def main(base, names, warmup):
    from netsift import Client
    from netsift.config import Settings

    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(
            allow_networks=["127.0.0.0/8"], data_dir=Path(tmp), cache_url="memory://",
            respect_robots=False,
        )
        async with Client(settings) as client:
            for name in names[:warmup]:
                await read(client, f"{base}/{name}")
            me = os.getpid()
            workers = below(me)
            main0, workers0 = cpu([me]), cpu(workers)
            wall = 0.0
            chars = 0
            for name in names[warmup:]:
                started = time.perf_counter()
                chars += await read(client, f"{base}/{name}")
                wall += time.perf_counter() - started
            main1 = cpu([me])
            late = [pid for pid in below(me) if pid not in workers]
            workers1 = cpu(workers) + cpu(late)
    print(json.dumps({
        "pages": len(names) - warmup, "main": main1 - main0, "workers": workers1 - workers0,
        "wall": wall, "chars": chars,
    }))

asyncio.run(main(sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3])))
"""


def run_tree(tree: str, base: str, names: list[str]) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(Path(tree).resolve())}
    out = subprocess.run(
        [sys.executable, "-c", CHILD, base, json.dumps(names), str(WARMUP_PAGES)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode != 0:
        raise SystemExit(f"{tree}: the run failed\n{out.stderr[-2000:]}")
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", action="append", help="a source folder to measure (repeat)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--limit", type=int, default=None, help="first N pages of the set")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = parser.parse_args()
    trees = args.tree or [str(REPO / "src")]
    pages = load_pages(args.data, args.limit)
    if len(pages) <= WARMUP_PAGES:
        raise SystemExit(f"no pages under {args.data / 'html'}")
    server = serve(pages)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    names = sorted(pages)
    results: dict[str, list[dict[str, float]]] = {tree: [] for tree in trees}
    for round_ in range(args.rounds):
        for tree in trees if round_ % 2 == 0 else reversed(trees):
            result = run_tree(tree, base, names)
            results[tree].append(result)
            ms = {k: result[k] / result["pages"] * 1000 for k in ("main", "workers", "wall")}
            print(
                f"round {round_ + 1} {tree}: CPU {ms['main'] + ms['workers']:.1f} ms a page "
                f"(main {ms['main']:.1f}, workers {ms['workers']:.1f}), wall {ms['wall']:.1f} ms",
                flush=True,
            )
    server.shutdown()
    print(f"\n{len(names) - WARMUP_PAGES} pages a run, one at a time; ms a page, median [range]")
    print("| tree | CPU | main | workers | wall |\n|---|---|---|---|---|")
    for tree, runs in results.items():
        cells = []
        for key in ("total", "main", "workers", "wall"):
            values = [
                (r["main"] + r["workers"] if key == "total" else r[key]) / r["pages"] * 1000
                for r in runs
            ]
            cells.append(f"{statistics.median(values):.1f} [{min(values):.1f}-{max(values):.1f}]")
        print(f"| {tree} | {' | '.join(cells)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
