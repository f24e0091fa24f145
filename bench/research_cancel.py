"""Cancel latency across processes: `DELETE /v1/research/{id}` to an API process until it
answers that the job, run by a worker process, has ended — on SQLite and on Redis.

    .venv/bin/python bench/research_cancel.py [--cancels 30] [--stores sqlite,redis]

Serves, in this process on 127.0.0.1, the tests' research web (its pages answer after 30 s,
so every job is mid-read when it is cancelled) and the scripted model; per store it starts
one `netsift serve --no-worker` and one `netsift worker` sharing the store (a SQLite file, a
throwaway redis-server). Each job is cancelled at a random moment 0.2-1.2 s into its page
reads, so the cancel lands anywhere in the worker's heartbeat. Per store it prints n, the
median and p99 of the DELETE's answer time (what a caller waits for), and how many jobs
ended `cancelled`. Goal: p99 < 1 s. Not a test.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path
from tempfile import TemporaryDirectory

import httpx

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.integration.research.web import HOSTS, QUESTION, WebState, build_app  # noqa: E402
from tests.offline_web.llm import MODEL, LLMState, create_app  # noqa: E402
from tests.offline_web.server import serve  # noqa: E402

from bench.jobs import Processes, start_redis, until  # noqa: E402

PAGE_LATENCY = 30.0  # seconds a page takes: longer than any cancel may
SETTLE = (0.2, 1.2)  # seconds into the page reads a cancel is sent (uniform)
LEASE = 10.0  # NETSIFT_JOB_LEASE: long, so the heartbeat interval is its own cap


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def cancels(api: str, web: WebState, count: int) -> tuple[list[float], int]:
    """Seconds each DELETE took to answer, and how many answered `cancelled`."""
    took: list[float] = []
    cancelled = 0
    for _ in range(count):
        web.pages.clear()
        body = {"question": QUESTION, "depth": "quick"}
        job_id = httpx.post(f"{api}/v1/research", json=body, timeout=30).json()["id"]
        until(lambda: web.pages, 60, "the worker reading pages")
        time.sleep(random.uniform(*SETTLE))
        started = time.perf_counter()
        answer = httpx.delete(f"{api}/v1/research/{job_id}", timeout=30).json()
        took.append(time.perf_counter() - started)
        cancelled += answer.get("status") == "cancelled"
    return took, cancelled


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cancels", type=int, default=30)
    parser.add_argument("--stores", default="sqlite,redis")
    args = parser.parse_args()
    web, llm = WebState(), LLMState()
    web.page_latency = PAGE_LATENCY
    print(f"{'store':8} {'n':>4} {'median':>9} {'p99':>9} {'max':>9}  cancelled")
    with (
        TemporaryDirectory() as tmp,
        serve(build_app(web)) as web_server,
        serve(create_app(llm)) as llm_server,
    ):
        root = Path(tmp)
        for store in args.stores.split(","):
            redis = None
            if store == "redis":
                url, redis = start_redis(root)
            else:
                url = f"sqlite:///{root / 'jobs.sqlite3'}"
            env = {
                "NETSIFT_RESOLVE": ",".join(f"{host}:127.0.0.1" for host in HOSTS),
                "NETSIFT_ALLOW_NETWORKS": "127.0.0.0/8",
                "NETSIFT_PROVIDERS": "searxng",
                "SEARXNG_URL": f"http://search.test:{web_server.port}/",
                "NETSIFT_LLM_MODEL": MODEL,
                "OPENAI_BASE_URL": f"http://127.0.0.1:{llm_server.port}/v1",
                "NETSIFT_JOBS_URL": url,
                "NETSIFT_DATA_DIR": str(root / f"data-{store}"),
                "NETSIFT_CACHE_URL": "memory://",
                "NETSIFT_JOB_LEASE": str(LEASE),
                "NETSIFT_SERVER_RATE_LIMIT": "1000000/minute",
            }
            procs = Processes(env, root)
            try:
                api, _ = procs.api("--no-worker")
                procs.start("worker")
                took, cancelled = cancels(api, web, args.cancels)
            finally:
                procs.stop_all()
                if redis is not None:
                    redis.terminate()
                    redis.wait(timeout=10)
            print(
                f"{store:8} {len(took):>4} {statistics.median(took) * 1000:>6.0f} ms "
                f"{quantile(took, 0.99) * 1000:>6.0f} ms {max(took) * 1000:>6.0f} ms"
                f"  {cancelled}/{len(took)}"
            )


if __name__ == "__main__":
    main()
