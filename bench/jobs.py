"""Jobs benchmark: research jobs on one Redis, with workers killed by PID while they run.

    .venv/bin/python bench/jobs.py [--jobs 200] [--kill-every 3] [--page-latency 0.3]
                                   [--cancels 20] [--lease 2]
    .venv/bin/python bench/jobs.py --mode scale [--scale 100000] [--stores sqlite,redis]
    .venv/bin/python bench/jobs.py --mode checkpoint [--data ../shared/bench]

`--mode scale` measures the queue itself: a trivial job kind (`noop`, which returns at once)
run by real `Worker`s in this process, `--scale` jobs enqueued, claimed and completed on
SQLite and on a throwaway redis-server; it prints enqueue and completion throughput, claim
latency p50/p99 (early, and late in the run), and how lookups and listings (all, by status,
deep pages) behave once the store holds them all. `--mode checkpoint` measures the bytes a
research job's checkpoints write over a 30-source run (three rounds of ten page reads, real
page texts from the WCXB corpus), whole texts in every save against texts kept once by hash.

Serves, in this process on 127.0.0.1, the tests' research web (SearXNG-format engine and its
pages) and the scripted model; starts a throwaway redis-server, 2 API replicas (`netsift serve
--no-worker`) and 3 `netsift worker` processes on it. It submits the jobs through both replicas
twice: once undisturbed, once while every `--kill-every` seconds a random worker is killed
with SIGKILL and a new one started. For each run it prints jobs done / total, jobs published
more than once (more than one `done` event), events lost (a gap in a stream's seq numbers)
and duplicated (the same event twice), and throughput in jobs per minute; then the latency of
`DELETE /v1/research/{id}` sent to the other replica than the one that started the job, until
the worker has ended it (p50/p99); then the embedded variant: one `netsift serve` on SQLite,
killed with SIGKILL mid-job and restarted, must finish the job. Not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

import anyio
import httpx

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.integration.research.web import HOSTS, QUESTION, WebState, build_app  # noqa: E402
from tests.offline_web.llm import MODEL, LLMState, create_app  # noqa: E402
from tests.offline_web.server import serve  # noqa: E402

FINAL = ("done", "cancelled", "failed", "interrupted")
SUBMITTERS = 8  # clients submitting at once: enough that submission is not the bottleneck
ENQUEUERS = 32  # concurrent `create` calls in the scale run: the store, not the loop, limits
SCALE_WORKERS = 2  # Worker objects in the scale run (one per core of the bench machine)
SCALE_CONCURRENCY = 16  # jobs each of them runs at once
LOOKUPS = 200  # timed lookups of each kind once the store is full


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def until(check: Callable[[], Any], timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if value := check():
            return value
        time.sleep(0.05)
    raise SystemExit(f"timed out waiting for {what}")


class Processes:
    def __init__(self, env: dict[str, str], logs: Path) -> None:
        self.env = env
        self.logs = logs
        self.started: list[subprocess.Popen[bytes]] = []

    def start(self, *args: str) -> subprocess.Popen[bytes]:
        log = (self.logs / f"{len(self.started)}-{args[0]}.log").open("wb")
        process = subprocess.Popen(
            [sys.executable, "-m", "netsift", *args],
            env={**os.environ, **self.env},
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        self.started.append(process)
        return process

    def api(self, *extra: str) -> tuple[str, subprocess.Popen[bytes]]:
        port = free_port()
        process = self.start("serve", "--port", str(port), "--log-level", "warning", *extra)
        url = f"http://127.0.0.1:{port}"

        def up() -> bool:
            try:
                return httpx.get(f"{url}/v1/info", timeout=1).status_code == 200
            except httpx.HTTPError:
                return False

        until(up, 60, "an API replica")
        return url, process

    def stop_all(self) -> None:
        for process in self.started:
            if process.poll() is None:
                process.kill()
            process.wait(timeout=10)


def start_redis(directory: Path) -> tuple[str, subprocess.Popen[bytes]]:
    binary = shutil.which("redis-server")
    if binary is None:
        raise SystemExit("redis-server is not installed (apt-get install redis-server)")
    port = free_port()
    args = [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", ""]
    args += ["--appendonly", "no", "--dir", str(directory)]
    process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.3)
    return f"redis://127.0.0.1:{port}", process


def submit(apis: list[str], count: int) -> list[str]:
    """`count` jobs, alternating replicas, SUBMITTERS at a time."""
    body = {"question": QUESTION, "depth": "quick"}

    def one(n: int) -> str:
        answer = httpx.post(f"{apis[n % len(apis)]}/v1/research", json=body, timeout=60)
        job_id: str = answer.json()["id"]
        return job_id

    with ThreadPoolExecutor(SUBMITTERS) as pool:
        return list(pool.map(one, range(count)))


def listing(api: str, ids: list[str]) -> list[dict[str, Any]]:
    listed = httpx.get(f"{api}/v1/research", params={"limit": 500}, timeout=30).json()["jobs"]
    wanted = set(ids)
    return [job for job in listed if job["id"] in wanted]


def statuses(api: str, ids: list[str]) -> dict[str, str]:
    return {job["id"]: job["status"] for job in listing(api, ids)}


def audit(api: str, ids: list[str]) -> dict[str, int]:
    """Published more than once, events lost (seq gaps), events duplicated (same event)."""
    twice = lost = duplicated = 0
    for job_id in ids:
        events = httpx.get(f"{api}/v1/research/{job_id}/events", timeout=30).json()["events"]
        seqs = [e["seq"] for e in events]
        lost += len(set(range(1, max(seqs, default=0) + 1)) - set(seqs))
        keys = [json.dumps([e["type"], e["data"]], sort_keys=True) for e in events]
        duplicated += len(keys) - len(set(keys))
        twice += sum(e["type"] == "done" for e in events) > 1
    return {"twice": twice, "lost": lost, "duplicated": duplicated}


def run_batch(
    procs: Processes, apis: list[str], count: int, *, kill_every: float | None
) -> dict[str, Any]:
    workers = [procs.start("worker") for _ in range(3)]
    started = time.monotonic()
    ids: list[str] = []
    # Submitted from a thread, so kills begin while jobs are still arriving.
    sender = threading.Thread(target=lambda: ids.extend(submit(apis, count)))
    sender.start()
    kills = 0
    next_kill = time.monotonic() + (kill_every or 0)
    while True:
        seen = statuses(apis[0], list(ids)) if not sender.is_alive() else {}
        done = sum(status in FINAL for status in seen.values())
        if done == count:
            break
        if kill_every is not None and time.monotonic() >= next_kill:
            victim = random.choice(workers)
            victim.send_signal(signal.SIGKILL)
            victim.wait()
            workers.remove(victim)
            workers.append(procs.start("worker"))
            kills += 1
            next_kill = time.monotonic() + kill_every
        if time.monotonic() - started > 900:
            raise SystemExit(f"only {done}/{count} jobs ended in 15 minutes")
        time.sleep(0.25)
    wall = time.monotonic() - started
    jobs = listing(apis[0], ids)
    for worker in workers:
        worker.send_signal(signal.SIGTERM)
    for worker in workers:
        worker.wait(timeout=30)
    return {
        "done": sum(job["status"] == "done" for job in jobs),
        "resumed": sum(job["attempts"] > 1 for job in jobs),
        "total": count,
        "kills": kills,
        "wall": wall,
        "per_min": count / wall * 60,
        **audit(apis[1], ids),
    }


def cancel_latency(
    procs: Processes, apis: list[str], web: WebState, count: int
) -> tuple[list[float], list[float]]:
    """DELETE through the other replica while a worker reads slow pages: seconds until the
    worker had ended the job (its final `updated_at`), and until the DELETE answered."""
    workers = [procs.start("worker") for _ in range(3)]
    web.page_latency = 30.0
    latencies: list[float] = []
    reached: list[float] = []
    for n in range(count):
        job_id = submit([apis[n % 2]], 1)[0]
        until(lambda j=job_id: statuses(apis[0], [j]).get(j) == "running", 60, "a running job")
        time.sleep(0.3)  # into its page reads
        sent, started = time.time(), time.perf_counter()
        answer = httpx.delete(f"{apis[(n + 1) % 2]}/v1/research/{job_id}", timeout=30).json()
        latencies.append(time.perf_counter() - started)
        ended = datetime.fromisoformat(answer["updated_at"].replace("Z", "+00:00")).timestamp()
        reached.append(ended - sent)
        if answer["status"] != "cancelled":
            print(f"  job {job_id} answered {answer['status']} to its cancel")
    web.page_latency = 0.0
    for worker in workers:
        worker.kill()
        worker.wait()
    return reached, latencies


def embedded(env: dict[str, str], logs: Path, web: WebState, data: Path) -> str:
    """One `netsift serve` on SQLite, killed mid-job and restarted: does the job finish?"""
    procs = Processes({**env, "NETSIFT_JOBS_URL": f"sqlite:///{data / 'jobs.sqlite3'}"}, logs)
    web.page_latency = 1.0
    web.pages.clear()
    api, server = procs.api()
    job_id = submit([api], 1)[0]
    until(lambda: web.pages, 60, "the job to read pages")
    server.send_signal(signal.SIGKILL)
    server.wait()
    web.page_latency = 0.0
    started = time.monotonic()
    api, _ = procs.api()
    job = until(
        lambda: (
            (j := httpx.get(f"{api}/v1/research/{job_id}", timeout=10).json())["status"] in FINAL
            and j
        ),
        120,
        "the restarted server to finish the job",
    )
    procs.stop_all()
    took = time.monotonic() - started
    return f"{job['status']} after restart (attempts {job['attempts']}, {took:.1f} s)"


class Timed:
    """A job store that times each successful claim and counts the jobs finished."""

    def __init__(self, store: Any, total: int) -> None:
        self._store = store
        self.total = total
        self.finished = 0
        self.claims: list[float] = []
        self.all_done = anyio.Event()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    async def claim(self, worker: str, *, lease: float, job_id: str | None = None) -> Any:
        started = time.perf_counter()
        job = await self._store.claim(worker, lease=lease, job_id=job_id)
        if job is not None:
            self.claims.append(time.perf_counter() - started)
        return job

    async def finish(self, job_id: str, **kw: Any) -> bool:
        ended: bool = await self._store.finish(job_id, **kw)
        if ended:
            self.finished += 1
            if self.finished == self.total:
                self.all_done.set()
        return ended


async def timed(calls: int, call: Callable[[int], Any]) -> list[float]:
    took = []
    for n in range(calls):
        started = time.perf_counter()
        await call(n)
        took.append(time.perf_counter() - started)
    return took


async def old_listing_by_status(store: Any, status: str, limit: int) -> int:
    """The Redis listing by status this change replaced, as it was: it paged the creation
    index and read every job to filter by status (kept here to measure the difference)."""
    found, start, page = 0, 0, max(limit, 50)
    while found < limit:
        ids = await store._redis.zrevrange("netsift:jobs", start, start + page - 1)
        if not ids:
            break
        start += page
        for job_id in map(str, ids):
            if (await store.get(job_id)).status == status:
                found += 1
    return found


async def scale_run(url: str, count: int, old_scan: bool) -> dict[str, Any]:
    from pydantic import BaseModel

    from netsift.jobs import JobContext, Kind, Outcome, Worker
    from netsift.jobs.store import open_job_store

    class Noop(BaseModel):
        n: int = 0

    class Nothing(BaseModel):
        pass

    async def noop(context: JobContext[Noop, Any]) -> Outcome[Nothing]:
        return Outcome(Nothing())

    kinds = {"noop": Kind("noop", Noop, Nothing, noop)}
    store = open_job_store(url)
    row: dict[str, Any] = {}
    middle: list[str] = []  # the job enqueued halfway: a listing cursor deep in the store
    started = time.perf_counter()
    async with anyio.create_task_group() as group:
        for part in range(ENQUEUERS):

            async def enqueue(part: int = part) -> None:
                for n in range(part, count, ENQUEUERS):
                    job = await store.create("noop", {"n": n})
                    if n == count // 2:
                        middle.append(job.id)

            group.start_soon(enqueue)
    row["enqueue"] = count / (time.perf_counter() - started)
    row["queued_list"] = await timed(LOOKUPS, lambda n: store.list_jobs(limit=50, status="queued"))
    clock = Timed(store, count)
    workers = [
        Worker(clock, kinds, lease=60, concurrency=SCALE_CONCURRENCY, stop_timeout=5)
        for _ in range(SCALE_WORKERS)
    ]
    started = time.perf_counter()
    async with anyio.create_task_group() as group:
        for worker in workers:
            group.start_soon(worker.run)
        await clock.all_done.wait()
        for worker in workers:
            worker.stop()
    row["complete"] = count / (time.perf_counter() - started)
    tenth = max(1, len(clock.claims) // 10)
    row["claim_early"], row["claim_late"] = clock.claims[:tenth], clock.claims[-tenth:]
    ids = [job.id for job in await store.list_jobs(limit=500, status="done")]
    rng = random.Random(7)
    row["get"] = await timed(LOOKUPS, lambda n: store.get(rng.choice(ids)))
    row["list"] = await timed(LOOKUPS, lambda n: store.list_jobs(limit=50))
    row["list_done"] = await timed(LOOKUPS, lambda n: store.list_jobs(limit=50, status="done"))
    row["list_running"] = await timed(
        LOOKUPS, lambda n: store.list_jobs(limit=50, status="running")
    )
    row["deep_page"] = await timed(
        LOOKUPS, lambda n: store.list_jobs(limit=50, status="done", before=middle[0])
    )
    one = await store.create("noop", {})  # a claim and its end, with the whole store done
    row["claim_full"] = await timed(1, lambda n: store.claim("late:1:x", lease=60))
    await store.finish(one.id, worker="late:1:x", status="done", event=("done", {}))
    if old_scan and url.startswith("redis"):
        started = time.perf_counter()
        await old_listing_by_status(store, "running", 50)
        row["old_scan"] = time.perf_counter() - started
    await store.aclose()
    return row


def ms(values: list[float]) -> str:
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return f"{statistics.median(ordered) * 1000:.2f} / {p99 * 1000:.2f}"


def scale(count: int, stores: list[str], old_scan: bool) -> None:
    with TemporaryDirectory() as tmp:
        root = Path(tmp)
        redis_url, redis = start_redis(root) if "redis" in stores else ("", None)
        urls = {"sqlite": f"sqlite:///{root / 'jobs.sqlite3'}", "redis": redis_url}
        try:
            rows = {name: anyio.run(scale_run, urls[name], count, old_scan) for name in stores}
        finally:
            if redis is not None:
                redis.terminate()
                redis.wait(timeout=10)
    print(f"{count} noop jobs, {SCALE_WORKERS} workers x {SCALE_CONCURRENCY} in one process")
    print("\n| | " + " | ".join(stores) + " |")
    print("|---|" + "---|" * len(stores))
    lines = (
        ("enqueue, jobs/s", lambda r: f"{r['enqueue']:.0f}"),
        ("claim+run+finish, jobs/s", lambda r: f"{r['complete']:.0f}"),
        ("claim p50/p99 ms, first 10%", lambda r: ms(r["claim_early"])),
        ("claim p50/p99 ms, last 10%", lambda r: ms(r["claim_late"])),
        ("claim ms, all jobs done", lambda r: ms(r["claim_full"])),
        (f"list queued (50 of {count} queued) p50/p99 ms", lambda r: ms(r["queued_list"])),
        ("get by id p50/p99 ms", lambda r: ms(r["get"])),
        ("list newest 50 p50/p99 ms", lambda r: ms(r["list"])),
        ("list done 50 p50/p99 ms", lambda r: ms(r["list_done"])),
        ("list running (none) p50/p99 ms", lambda r: ms(r["list_running"])),
        ("list done, a page halfway (before=) p50/p99 ms", lambda r: ms(r["deep_page"])),
    )
    for name, cell in lines:
        print(f"| {name} | " + " | ".join(cell(rows[store]) for store in stores) + " |")
    if "old_scan" in rows.get("redis", {}):
        print(
            "Redis list running (none) by the former filter-scan: "
            f"{rows['redis']['old_scan']:.1f} s"
        )


def wcxb_texts(data: Path, count: int) -> list[str]:
    """Real page texts (WCXB's ground-truth Markdown of articles), or stand-ins if absent."""
    texts = []
    for path in sorted((data / "wcxb" / "ground-truth").glob("*.json")):
        truth = json.loads(path.read_text())
        if truth["_internal"]["page_type"]["primary"] == "article":
            texts.append(truth["ground_truth"]["main_content_markdown"])
        if len(texts) == count:
            return texts
    print(f"(WCXB not found under {data}: stand-in texts of 4 kB)")
    return [f"Paragraph {n} of a page. " * 160 for n in range(count)]


def checkpoint_bytes(data: Path) -> None:
    """Bytes written by the checkpoints of a 30-source research run, before and after."""
    from netsift.models import SearchResult
    from netsift.research.state import ReadPage, RunState, split_texts
    from netsift.research.synthesis import Source

    texts = wcxb_texts(data, 30)
    state = RunState(queries=["a question"])
    whole: list[int] = []
    by_hash: list[int] = []
    kept: set[str] = set()

    def save() -> None:
        full = state.to_dict()
        whole.append(len(json.dumps({"step": "read", "state": full})))
        slim, found = split_texts(full)
        new = {sha: text for sha, text in found.items() if sha not in kept}
        kept.update(new)
        written = len(json.dumps({"step": "read", "state": slim}))
        by_hash.append(written + sum(len(sha) + len(text) for sha, text in new.items()))

    for round_ in range(3):  # three rounds of ten page reads, a save after each read
        for n in range(round_ * 10 + 1, round_ * 10 + 11):
            url = f"https://site{n}.test/page"
            state.round_pages[url] = ReadPage(url, f"Page {n}", texts[n - 1])
            save()
        for url, page in state.round_pages.items():  # the round's pages become sources
            assert page is not None
            n = len(state.sources) + 1
            state.sources[n] = Source(n, url, page.title, page.text)
            state.results[n] = SearchResult(title=page.title or "", url=url, source="searxng")
        state.round_pages = {}
        save()
    size = sum(len(t) for t in texts)
    print(f"30-source research run, {len(whole)} saves, page texts {size / 1000:.0f} kB in all")
    print("| checkpoints | bytes per save (mean) | last save | all saves |")
    print("|---|---|---|---|")
    for name, sizes in (("every text in every save", whole), ("texts once, by hash", by_hash)):
        print(
            f"| {name} | {statistics.mean(sizes) / 1000:.1f} kB | {sizes[-1] / 1000:.1f} kB "
            f"| {sum(sizes) / 1e6:.2f} MB |"
        )
    print(f"written in all: {sum(by_hash) / sum(whole):.3f}x")


def percentiles(values: list[float]) -> str:
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return f"p50 {statistics.median(ordered) * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=200)
    parser.add_argument("--kill-every", type=float, default=3.0)
    parser.add_argument("--page-latency", type=float, default=0.3)
    parser.add_argument("--cancels", type=int, default=20)
    parser.add_argument("--lease", type=float, default=2.0)
    parser.add_argument("--mode", choices=("research", "scale", "checkpoint"), default="research")
    parser.add_argument("--scale", type=int, default=100_000)
    parser.add_argument("--stores", default="sqlite,redis")
    parser.add_argument("--old-scan", action="store_true", help="also time the former listing")
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "bench")
    args = parser.parse_args()
    if args.mode == "scale":
        scale(args.scale, args.stores.split(","), args.old_scan)
        return
    if args.mode == "checkpoint":
        checkpoint_bytes(args.data)
        return
    web, llm = WebState(), LLMState()
    with (
        TemporaryDirectory() as tmp,
        serve(build_app(web)) as web_server,
        serve(create_app(llm)) as llm_server,
    ):
        root = Path(tmp)
        redis_url, redis = start_redis(root)
        env = {
            "NETSIFT_RESOLVE": ",".join(f"{host}:127.0.0.1" for host in HOSTS),
            "NETSIFT_ALLOW_NETWORKS": "127.0.0.0/8",
            "NETSIFT_PROVIDERS": "searxng",
            "SEARXNG_URL": f"http://search.test:{web_server.port}/",
            "NETSIFT_LLM_MODEL": MODEL,
            "OPENAI_BASE_URL": f"http://127.0.0.1:{llm_server.port}/v1",
            "NETSIFT_JOBS_URL": redis_url,
            "NETSIFT_DATA_DIR": str(root / "data"),
            "NETSIFT_CACHE_URL": "memory://",
            "NETSIFT_JOB_LEASE": str(args.lease),
            "NETSIFT_SERVER_RATE_LIMIT": "1000000/minute",
        }
        procs = Processes(env, root)
        try:
            web.page_latency = args.page_latency
            apis = [procs.api("--no-worker")[0] for _ in range(2)]
            print(f"{args.jobs} research jobs, 2 API replicas, 3 workers, one Redis")
            calm = run_batch(procs, apis, args.jobs, kill_every=None)
            chaos = run_batch(procs, apis, args.jobs, kill_every=args.kill_every)
            header = "| run | done/total | kills | resumed | published twice | events lost |"
            print(f"\n{header} duplicated | jobs/min |")
            print("|---|---|---|---|---|---|---|---|")
            for name, row in (("no kills", calm), (f"kill -9 every {args.kill_every:g} s", chaos)):
                print(
                    f"| {name} | {row['done']}/{row['total']} | {row['kills']} | {row['resumed']} "
                    f"| {row['twice']} "
                    f"| {row['lost']} | {row['duplicated']} | {row['per_min']:.0f} |"
                )
            print(f"throughput with kills: {chaos['per_min'] / calm['per_min']:.2f}x the calm run")
            reached, answered = cancel_latency(procs, apis, web, args.cancels)
            print(f"cancel across replicas, {args.cancels} jobs: worker ended the job in")
            print(f"  {percentiles(reached)}; the DELETE answered in {percentiles(answered)}")
        finally:
            procs.stop_all()
            redis.terminate()
            redis.wait(timeout=10)
        print("embedded SQLite, serve killed mid-job:", embedded(env, root, web, root / "data"))


if __name__ == "__main__":
    main()
