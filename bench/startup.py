"""Start-up benchmark: the CPU a netsift command costs beside the peers' equivalent commands.

    .venv/bin/python bench/startup.py [--repeat 7] [--only help,search,fetch,meta,extract,mcp]

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
  cache of a scratch data directory warmed by one first search) beside `trafilatura --help`
  and `trafilatura -u URL`;
- `netsift fetch URL --json` and `netsift meta URL --json` beside `trafilatura -u URL`, the
  page served on 127.0.0.1 by a small server this script starts (netsift is allowed that one
  address);
- `netsift extract FILE --json` beside `trafilatura < FILE` (the same page, no network);
- `netsift mcp` beside `mcp-server-fetch` (the reference MCP fetch server): start, answer
  `initialize` and `tools/list` over stdio, exit at end of input. CPU and the wall time to the
  `tools/list` answer are both reported.

netsift runs with a scratch data directory: nothing touches the user's own.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import http.server
import itertools
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
# The start-up's targets (issues "First contact" 1 and 2): netsift's cost over the peer's, at
# most: `--help` and the MCP server's start as cheap as the peers'; a one-shot call an agent
# makes (fetch, search, meta, extract) at most 1.5x `trafilatura -u`'s CPU.
TARGET_RATIO = 1.0
ONE_SHOT_TARGET = 1.5
MCP_PROTOCOL = "2025-06-18"
MCP_ANSWER_TIMEOUT = 60.0  # seconds a server gets to answer tools/list before it counts as hung


@dataclass(frozen=True)
class Contender:
    name: str
    run: Callable[[], float | None]  # runs once; returns a wall time worth reporting, or None
    # CPU spent so far by a resident process the call is handed to (a `netsift serve`):
    # its share of each call counts, though that process is not the call's child.
    resident_cpu: Callable[[], float] | None = None


PR_SET_CHILD_SUBREAPER = 36  # prctl(2)
ORPHAN_WAIT = 15.0  # seconds a command's leftover processes get to exit before the bench fails


def become_subreaper() -> None:
    """Descendants orphaned by a contender become our children, so their CPU can be reaped."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise SystemExit(f"prctl(PR_SET_CHILD_SUBREAPER) failed: errno {ctypes.get_errno()}")


RESIDENTS: set[int] = set()  # children that live through the run (the handoff's server)


def children_of(pid: int | str) -> set[int]:
    """The live children of process `pid` (Linux /proc)."""
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):
            found.update(int(child) for child in (task / "children").read_text().split())
    return found


def reap_orphans() -> None:
    """Wait for every leftover descendant (a contender's forkserver and workers) to exit."""
    deadline = time.monotonic() + ORPHAN_WAIT
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return  # no children left
        if pid != 0:
            continue
        if not children_of("self") - RESIDENTS:
            return
        if time.monotonic() > deadline:
            raise SystemExit(f"a contender left processes running after {ORPHAN_WAIT:.0f} s")
        time.sleep(0.01)


def tree_cpu(pid: int) -> float:
    """CPU (user + system) of process `pid` and its live descendants so far, in seconds."""
    ticks = os.sysconf("SC_CLK_TCK")
    total, pending = 0.0, [pid]
    while pending:
        current = pending.pop()
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{current}/stat").read_text().rsplit(")", 1)[1].split()
            # utime, stime, cutime, cstime: fields 14-17 of stat(5), 12-15 after the name
            total += sum(int(value) for value in fields[11:15]) / ticks
            pending.extend(children_of(current))
    return total


def cpu_of(run: Callable[[], float | None]) -> tuple[float, float | None]:
    """CPU (user + system) of the process tree `run` started, and its own figure."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = run()
    reap_orphans()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    used = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return used, wall


def command(
    argv: list[str] | Callable[[], list[str]], env: dict[str, str], stdin: bytes | None = None
) -> Callable[[], float | None]:
    """Run `argv` (or the argv it makes each time: a fresh URL per call) once."""

    def run() -> float | None:
        args = argv() if callable(argv) else argv
        done = subprocess.run(args, env=env, input=stdin, capture_output=True, check=False)
        if done.returncode != 0:
            raise SystemExit(
                f"{' '.join(args)} exited {done.returncode}: {done.stderr.decode()[-500:]}"
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
    """The article page on 127.0.0.1 (robots.txt absent: everything allowed), at `/article`
    with any query: each call reads its own URL, so no contender is answered from a cache."""
    body = PAGE.read_bytes()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path.split("?")[0] != "/article":
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
            resident = contender.resident_cpu() if contender.resident_cpu else 0.0
            used, wall = cpu_of(contender.run)
            if contender.resident_cpu:
                used += contender.resident_cpu() - resident
            cpu[contender.name].append(used)
            if wall is not None:
                walls[contender.name].append(wall)
    ours = statistics.median(cpu[contenders[0].name])
    rows = [f"\n{title}", "| command | CPU (median) | netsift / it | wall to answer |"]
    rows.append("| --- | --- | --- | --- |")
    for contender in contenders:
        median = statistics.median(cpu[contender.name])
        ratio = "—" if contender is contenders[0] else f"{ours / median:.2f}x"
        shown = (
            f"{statistics.median(walls[contender.name]) * 1000:.0f} ms"
            if walls[contender.name]
            else ""
        )
        rows.append(f"| `{contender.name}` | {median * 1000:.0f} ms | {ratio} | {shown} |")
    for row in rows:
        print(row)
    sys.stdout.flush()
    return rows


@dataclass(frozen=True)
class Resident:
    pid: int
    url: str


SERVER_START = 120.0  # seconds `netsift serve` may take to answer /healthz on a busy machine


def resident_server(netsift: str, env: dict[str, str]) -> Resident:
    """`netsift serve` on a free loopback port for the handed-off calls; stopped at exit."""
    import atexit
    import socket
    import urllib.request

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    argv = [netsift, "serve", "--port", str(port), "--no-worker", "--log-level", "warning"]
    process = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    RESIDENTS.add(process.pid)
    atexit.register(process.terminate)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + SERVER_START
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError):
            with urllib.request.urlopen(f"{url}/healthz", timeout=1):
                return Resident(pid=process.pid, url=url)
        time.sleep(0.2)
    raise SystemExit(f"netsift serve did not start within {SERVER_START:.0f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=7, help="timed rounds per figure")
    parser.add_argument(
        "--only", default="help,search,fetch,meta,extract,mcp", help="figures to run"
    )
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
        # trafilatura guards against loopback addresses too; its own setting lifts that.
        config = Path(data) / "trafilatura.cfg"
        config.write_text("[DEFAULT]\nSSRF_PROTECTION = off\n")
        calls = itertools.count()

        def fresh(*argv: str) -> Callable[[], list[str]]:
            """`argv` with URL replaced by a URL no call has read before."""

            def make() -> list[str]:
                call = f"{url}?call={next(calls)}"
                return [call if arg == url else arg for arg in argv]

            return make

        peer_fetch = Contender(
            "trafilatura -u URL",
            command(fresh(trafilatura, "--config-file", str(config), "-u", url), base),
        )
        server = resident_server(netsift, {**search_env, **fetch_env})
        handed_env = {**search_env, **fetch_env, "NETSIFT_HANDOFF": server.url}

        def handed(name: str, argv: list[str] | Callable[[], list[str]]) -> Contender:
            return Contender(
                f"{name} (handed off)", command(argv, handed_env), lambda: tree_cpu(server.pid)
            )

        if "search" in wanted:
            argv = [netsift, "search", QUERY, "--json"]
            ours = Contender("netsift search … --json (cached)", command(argv, search_env))
            measure("cached search", [ours, peer_help, peer_fetch], args.repeat)
            hand = handed("netsift search … --json (cached)", argv)
            measure("cached search, handed off", [hand, peer_fetch], args.repeat)
        if "fetch" in wanted:
            fetch_argv = fresh(netsift, "fetch", url, "--json")
            ours = Contender("netsift fetch URL --json", command(fetch_argv, fetch_env))
            measure("fetch one page", [ours, peer_fetch], args.repeat)
            hand = handed("netsift fetch URL --json", fetch_argv)
            measure("fetch one page, handed off", [hand, peer_fetch], args.repeat)
        if "meta" in wanted:
            meta_argv = fresh(netsift, "meta", url, "--json")
            ours = Contender("netsift meta URL --json", command(meta_argv, fetch_env))
            measure("a page's card", [ours, peer_fetch], args.repeat)
            hand = handed("netsift meta URL --json", meta_argv)
            measure("a page's card, handed off", [hand, peer_fetch], args.repeat)
        if "extract" in wanted:
            argv = [netsift, "extract", str(PAGE), "--json"]
            ours = Contender("netsift extract FILE --json", command(argv, env))
            peer = Contender("trafilatura < FILE", command([trafilatura], base, PAGE.read_bytes()))
            measure("extract a file", [ours, peer], args.repeat)
            hand = handed("netsift extract FILE --json", argv)
            measure("extract a file, handed off", [hand, peer], args.repeat)
        if "mcp" in wanted:
            ours = Contender("netsift mcp", mcp_session([netsift, "mcp"], env))
            peer = Contender("mcp-server-fetch", mcp_session([str(BIN / "mcp-server-fetch")], base))
            measure("MCP server start (initialize + tools/list)", [ours, peer], args.repeat)
    print(
        f"\ntargets (CPU): --help and the MCP start ≤ {TARGET_RATIO:.2f}x their peers; "
        f"search, fetch, meta, extract ≤ {ONE_SHOT_TARGET:.2f}x `trafilatura -u`"
    )


if __name__ == "__main__":
    main()
