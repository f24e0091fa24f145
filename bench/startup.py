"""Start-up benchmark: the CPU a netsift command costs beside the peers' equivalent commands.

    .venv/bin/python bench/startup.py [--repeat 7] [--only help,search,fetch,mcp]

Agent harnesses start a process per tool call, so what a command costs before it does any work
is paid on every call. Each contender runs as a subprocess; its cost is the CPU of its whole
process tree (user + system, from `getrusage(RUSAGE_CHILDREN)` deltas), which a busy machine
disturbs far less than wall time. The tree includes processes that outlive the command: this
script is a child subreaper (Linux `PR_SET_CHILD_SUBREAPER`), so any extraction worker or
forkserver a command leaves behind as it exits is reparented here and reaped into the figure
(without it a fetch through the pool looked about 2x cheaper than it is). Contenders of one
figure run interleaved, round after round, and the median is reported with the ratio
netsift / peer:

- `netsift --help` beside `trafilatura --help` (and `ddgs --help` for reference);
- a cached `netsift search --json` (the provider simulators from tests/offline_web, the SQLite
  cache of a scratch data directory warmed by one first search) beside `trafilatura --help`;
- `netsift fetch URL --json` beside `trafilatura -u URL`, the page served on 127.0.0.1 by a
  small server this script starts (netsift is allowed that one address);
- `netsift mcp` beside `mcp-server-fetch` (the reference MCP fetch server): start, answer
  `initialize` and `tools/list` over stdio, exit at end of input. CPU and the wall time to the
  `tools/list` answer are both reported.

netsift runs with a scratch data directory: nothing touches the user's own.
"""

from __future__ import annotations

import argparse
import ctypes
import http.server
import json
import os
import resource
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from tempfile import TemporaryDirectory

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.offline_web.providers import build_app, new_state  # noqa: E402
from tests.offline_web.providers.fixtures import ProviderSims  # noqa: E402
from tests.offline_web.server import serve  # noqa: E402

BIN = Path(sys.executable).parent
PAGE = REPO / "tests" / "offline_web" / "pages" / "article.html"
QUERY = "rust async runtime"
# The start-up's targets (issue "First contact"): netsift's cost over the peer's, at most.
TARGET_RATIO = 1.0
MCP_PROTOCOL = "2025-06-18"
MCP_ANSWER_TIMEOUT = 60.0  # seconds a server gets to answer tools/list before it counts as hung


@dataclass(frozen=True)
class Contender:
    name: str
    run: Callable[[], float | None]  # runs once; returns a wall time worth reporting, or None


PR_SET_CHILD_SUBREAPER = 36  # prctl(2)
ORPHAN_WAIT = 15.0  # seconds a command's leftover processes get to exit before the bench fails


def become_subreaper() -> None:
    """Descendants orphaned by a contender become our children, so their CPU can be reaped."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise SystemExit(f"prctl(PR_SET_CHILD_SUBREAPER) failed: errno {ctypes.get_errno()}")


def reap_orphans() -> None:
    """Wait for every leftover descendant (a contender's forkserver and workers) to exit."""
    deadline = time.monotonic() + ORPHAN_WAIT
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return  # no children left
        if pid == 0:
            if time.monotonic() > deadline:
                raise SystemExit(f"a contender left processes running after {ORPHAN_WAIT:.0f} s")
            time.sleep(0.01)


def cpu_of(run: Callable[[], float | None]) -> tuple[float, float | None]:
    """CPU (user + system) of the process tree `run` started, and its own figure."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = run()
    reap_orphans()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    used = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return used, wall


def command(argv: list[str], env: dict[str, str]) -> Callable[[], float | None]:
    def run() -> float | None:
        done = subprocess.run(argv, env=env, capture_output=True, check=False)
        if done.returncode != 0:
            raise SystemExit(
                f"{' '.join(argv)} exited {done.returncode}: {done.stderr.decode()[-500:]}"
            )
        return None

    return run


def mcp_session(argv: list[str], env: dict[str, str]) -> Callable[[], float | None]:
    """Start an MCP stdio server, initialize, list its tools, close its input; wall to tools."""

    def send(process: subprocess.Popen[bytes], message: dict[str, object]) -> None:
        assert process.stdin is not None
        process.stdin.write(json.dumps(message).encode() + b"\n")
        process.stdin.flush()

    def answer(process: subprocess.Popen[bytes], want: int) -> dict[str, object]:
        assert process.stdout is not None
        while line := process.stdout.readline():
            message = json.loads(line)
            if message.get("id") == want:
                return dict(message)
        raise SystemExit(f"{argv[0]} closed its output before answering request {want}")

    def run() -> float | None:
        started = time.perf_counter()
        process = subprocess.Popen(
            argv, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        timer = threading.Timer(MCP_ANSWER_TIMEOUT, process.kill)
        timer.start()
        try:
            client = {"name": "startup-bench", "version": "1"}
            params = {"protocolVersion": MCP_PROTOCOL, "capabilities": {}, "clientInfo": client}
            send(process, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})
            answer(process, 1)
            send(process, {"jsonrpc": "2.0", "method": "notifications/initialized"})
            send(process, {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}})
            tools = answer(process, 2)
            wall = time.perf_counter() - started
            if not tools.get("result"):
                raise SystemExit(f"{argv[0]} answered tools/list with {tools}")
            assert process.stdin is not None
            process.stdin.close()
            process.wait(timeout=MCP_ANSWER_TIMEOUT)
            return wall
        finally:
            timer.cancel()
            if process.poll() is None:
                process.kill()
                process.wait()
            for stream in (process.stdout, process.stderr):
                if stream is not None:
                    stream.close()

    return run


@contextmanager
def page_server() -> Iterator[str]:
    """The article page on 127.0.0.1 (robots.txt absent: everything allowed)."""
    body = PAGE.read_bytes()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path != "/article":
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            return None

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/article"
    finally:
        server.shutdown()
        server.server_close()


def measure(title: str, contenders: list[Contender], repeat: int) -> list[str]:
    """Interleave the contenders `repeat` times; a table row per contender, ratios to netsift."""
    cpu: dict[str, list[float]] = {c.name: [] for c in contenders}
    walls: dict[str, list[float]] = {c.name: [] for c in contenders}
    for contender in contenders:  # one untimed round: page caches, .pyc files, the first search
        contender.run()
        reap_orphans()
    for _ in range(repeat):
        for contender in contenders:
            used, wall = cpu_of(contender.run)
            cpu[contender.name].append(used)
            if wall is not None:
                walls[contender.name].append(wall)
    ours = statistics.median(cpu[contenders[0].name])
    rows = [f"\n{title}", "| command | CPU (median) | netsift / it | wall to answer |"]
    rows.append("| --- | --- | --- | --- |")
    for contender in contenders:
        median = statistics.median(cpu[contender.name])
        ratio = "—" if contender is contenders[0] else f"{ours / median:.2f}x"
        wall = (
            f"{statistics.median(walls[contender.name]) * 1000:.0f} ms"
            if walls[contender.name]
            else ""
        )
        rows.append(f"| `{contender.name}` | {median * 1000:.0f} ms | {ratio} | {wall} |")
    for row in rows:
        print(row)
    sys.stdout.flush()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=7, help="timed rounds per figure")
    parser.add_argument("--only", default="help,search,fetch,mcp", help="figures to run")
    args = parser.parse_args()
    wanted = set(args.only.split(","))
    netsift, trafilatura = str(BIN / "netsift"), str(BIN / "trafilatura")
    missing = [name for name in ("netsift", "trafilatura", "ddgs") if not (BIN / name).exists()]
    if "mcp" in wanted and not (BIN / "mcp-server-fetch").exists():
        missing.append("mcp-server-fetch")
    if missing:
        raise SystemExit(f"missing {', '.join(missing)}: run scripts/install (the bench group)")

    become_subreaper()
    state = new_state()
    with (
        TemporaryDirectory() as data,
        serve(build_app(state), timeout_graceful_shutdown=1) as sims_server,
        page_server() as url,
    ):
        sims = ProviderSims(port=sims_server.port, state=state)
        base = {k: v for k, v in os.environ.items() if not k.startswith("NETSIFT_")}
        env = {**base, "NETSIFT_DATA_DIR": data}
        search_env = {**env, **sims.env()}
        fetch_env = {**env, "NETSIFT_ALLOW_NETWORKS": "127.0.0.1/32"}
        peer_help = Contender("trafilatura --help", command([trafilatura, "--help"], base))
        if "help" in wanted:
            ours = Contender("netsift --help", command([netsift, "--help"], env))
            ddgs = Contender("ddgs --help", command([str(BIN / "ddgs"), "--help"], base))
            measure("`--help`", [ours, peer_help, ddgs], args.repeat)
        if "search" in wanted:
            argv = [netsift, "search", QUERY, "--json", "-p", "brave"]
            ours = Contender("netsift search … --json (cached)", command(argv, search_env))
            measure("cached search", [ours, peer_help], args.repeat)
        if "fetch" in wanted:
            ours = Contender(
                "netsift fetch URL --json", command([netsift, "fetch", url, "--json"], fetch_env)
            )
            # trafilatura guards against loopback addresses too; its own setting lifts that.
            config = Path(data) / "trafilatura.cfg"
            config.write_text("[DEFAULT]\nSSRF_PROTECTION = off\n")
            argv = [trafilatura, "--config-file", str(config), "-u", url]
            peer = Contender("trafilatura -u URL", command(argv, base))
            measure("fetch one page", [ours, peer], args.repeat)
        if "mcp" in wanted:
            ours = Contender("netsift mcp", mcp_session([netsift, "mcp"], env))
            peer = Contender("mcp-server-fetch", mcp_session([str(BIN / "mcp-server-fetch")], base))
            measure("MCP server start (initialize + tools/list)", [ours, peer], args.repeat)
    print(f"\ntarget: netsift / peer ≤ {TARGET_RATIO:.2f}x on every figure (CPU)")


if __name__ == "__main__":
    main()
