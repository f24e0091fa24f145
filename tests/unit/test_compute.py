"""The compute pool: a task past its CPU or memory budget dies with its worker and is reported as
`too_complex`; the worker is replaced and its neighbours carry on."""

from __future__ import annotations

import asyncio
import gc
import os
import pickle
import platform
import subprocess
import sys
import time
from pathlib import Path

import pytest

from netsift.compute import (
    WALL_GRACE_SECONDS,
    WORKER_NICENESS,
    Compute,
    ComputeLimits,
    default_workers,
)
from netsift.errors import TooComplex, UnsupportedContentType
from netsift.fetch.content import Content, _extract_content
from netsift.models import Link, Metadata
from netsift.task_limits import TRIM_ABOVE_MB


def spin() -> None:
    while True:
        pass


def hog(megabytes: int) -> int:
    return len(bytearray(megabytes * 1024 * 1024))


def pid() -> int:
    return os.getpid()


def niceness() -> int:
    return os.getpriority(os.PRIO_PROCESS, 0)


def extraction_loaded() -> bool:
    """The HTML readers are imported, and trafilatura's rescue stop list (every language's
    stop words, built the first time a page has too little text) is built."""
    external = sys.modules.get("trafilatura.external")
    loaded = "netsift.fetch.html" in sys.modules and external is not None
    return loaded and bool(getattr(external, "JT_STOPLIST", None))


_PINNED: list[bytes] = []


def churn(megabytes: int) -> None:
    """Grow the C heap by `megabytes` of 2 KiB blocks (above pymalloc's, below mmap's size) and
    free them, with a block allocated after them still held: free() cannot shrink the heap."""
    blocks = [bytes(2048) for _ in range(megabytes * 512)]
    _PINNED.append(bytes(2048))
    del blocks


def collector_generations() -> tuple[int, int]:
    """How many objects the worker's collector leaves alone (frozen) and how many it walks."""
    return gc.get_freeze_count(), len(gc.get_objects())


def resident() -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        line = next(line for line in status if line.startswith("VmRSS:"))
    return int(line.split()[1]) * 1024


@pytest.fixture
async def compute():
    pool = Compute(workers=2, limits=ComputeLimits(cpu_seconds=1, memory_mb=200))
    try:
        yield pool
    finally:
        await asyncio.to_thread(pool.close)


async def test_a_runaway_task_is_killed_and_the_next_one_runs(compute):
    before = await compute.run(pid)
    with pytest.raises(TooComplex) as caught:
        await compute.run(spin, what="the spinner")
    assert caught.value.code == "too_complex"
    assert caught.value.status == 422
    # the CPU budget, or on a starved host the wall-clock backstop, whichever ends it first
    assert caught.value.details["limit"] in ("cpu", "time")
    assert "the spinner" in caught.value.message
    assert await compute.run(pid) > 0  # a fresh worker took the task
    assert before > 0


def nap(seconds: float) -> int:
    time.sleep(seconds)
    return niceness()


async def test_workers_yield_the_cpu_to_the_serving_process(compute):
    """One task at a time runs at the serving process's priority (it leaves the other cores
    free); while it runs, the next runs nicer, so answering goes first where they share one."""
    if default_workers() < 2:
        assert await compute.run(niceness) == min(19, niceness() + WORKER_NICENESS)
        return
    assert await compute.run(niceness) == niceness()
    first = asyncio.ensure_future(compute.run(nap, 1.0))
    await asyncio.sleep(0)  # the first has claimed the prompt worker
    assert await compute.run(niceness) == min(19, niceness() + WORKER_NICENESS)
    assert await first == niceness()
    assert await compute.run(niceness) == niceness()  # free again


async def test_neighbours_finish_while_a_task_runs_away(compute):
    runaway = asyncio.ensure_future(compute.run(spin))
    answers = [await compute.run(pid) for _ in range(20)]
    assert all(answers)
    assert not runaway.done()  # the neighbours did not wait for it
    with pytest.raises(TooComplex):
        await runaway


async def test_a_task_past_the_memory_ceiling_is_too_complex(compute):
    with pytest.raises(TooComplex) as caught:
        await compute.run(hog, 500)
    assert caught.value.details == {"limit": "memory", "value": 200}
    assert await compute.run(hog, 20) == 20 * 1024 * 1024


async def test_errors_inside_a_worker_keep_their_code(compute):
    png = b"\x89PNG\r\n\x1a\n" + b"\0" * 64
    with pytest.raises(UnsupportedContentType) as caught:
        await compute.run(_extract_content, png, "image/png", "http://x.test/i", "markdown", "auto")
    assert caught.value.details["content_type"] == "image/png"


async def test_a_page_crosses_from_a_worker_whole(compute):
    """What a worker read arrives as it was read: links (packed as pairs on the way,
    `Content.__reduce__`), metadata, the shell verdict and the rest."""
    page = (
        b"<html lang=en><head><title>Crossing</title><meta name=description content=Card>"
        b"</head><body><article><h1>Crossing</h1>"
        + b"".join(
            b"<p>Paragraph %d of a page read in a worker, sent back. <a href=/p%d>Next %d</a></p>"
            % (n, n, n)
            for n in range(8)
        )
        + b"</article></body></html>"
    )
    url = "http://x.test/a"
    read = await compute.run(_extract_content, page, "text/html", url, "markdown", "auto")
    assert len(read.links) == 8
    assert read == _extract_content(page, "text/html", url, "markdown", "auto")


def test_a_content_pickles_every_field_of_its_links():
    """The links cross as (url, text) pairs: a field added to `Link` must be carried too."""
    link = Link(**{name: f"{name} value" for name in Link.model_fields})
    content = Content("Title", "Body", Metadata(title="Title"), page_type="article", links=(link,))
    assert pickle.loads(pickle.dumps(content)) == content


async def test_workers_do_not_walk_what_the_forkserver_loaded(compute):
    """The forkserver froze what it imported and read (compute_warmup): a worker's collector
    skips it, so it neither spends the time nor writes to the pages the workers share."""
    frozen, walked = await compute.run(collector_generations)
    assert frozen > walked


async def test_workers_start_with_the_extraction_loaded(compute):
    """The forkserver read a page before it forked them (compute_warmup): what extraction loads
    on first use is in pages the workers share, not loaded again into each."""
    assert await compute.run(extraction_loaded)


@pytest.mark.skipif(
    platform.libc_ver()[0] != "glibc" or not os.path.exists("/proc/self/status"),
    reason="malloc_trim is glibc's; RSS is read from /proc",
)
async def test_a_worker_hands_back_the_heap_a_task_grew():
    pool = Compute(workers=1, limits=ComputeLimits(cpu_seconds=5, memory_mb=400))
    try:
        before = await pool.run(resident)
        await pool.run(churn, 64)
        grown = await pool.run(resident) - before
    finally:
        await asyncio.to_thread(pool.close)
    assert grown < 16 * 1024 * 1024  # without the trim the worker keeps the 64 MiB


@pytest.mark.skipif(
    platform.libc_ver()[0] != "glibc" or not os.path.exists("/proc/self/status"),
    reason="malloc_trim is glibc's; RSS is read from /proc",
)
async def test_a_worker_keeps_a_small_heap_for_the_next_task():
    """Ordinary pages reuse what the last one freed: trimming it, then faulting it in again,
    cost more than the page's other bounds together (task_limits.TRIM_ABOVE_MB)."""
    pool = Compute(workers=1, limits=ComputeLimits(cpu_seconds=5, memory_mb=400))
    try:
        before = await pool.run(resident)
        await pool.run(churn, TRIM_ABOVE_MB // 4)
        grown = await pool.run(resident) - before
    finally:
        await asyncio.to_thread(pool.close)
    assert grown > TRIM_ABOVE_MB // 8 * 1024 * 1024


def test_the_wall_clock_backstop_leaves_a_nice_worker_its_cpu_budget():
    """A worker at nice 10 beside one busy process of the server's priority gets about a tenth
    of the core: the backstop (for a worker that stopped using CPU) must come after the CPU
    budget such a worker can use, not end it first."""
    limits = ComputeLimits(cpu_seconds=5, memory_mb=100)
    assert limits.wall_seconds(0) == 5 * 3 + WALL_GRACE_SECONDS
    assert limits.wall_seconds(WORKER_NICENESS) > 5 * 10 + WALL_GRACE_SECONDS
    assert limits.wall_seconds(19) > limits.wall_seconds(WORKER_NICENESS)


# A program that embeds netsift, written without an `if __name__ == "__main__":` guard: its
# top level counts its runs, then uses the pool.
UNGUARDED_MAIN = """
import asyncio, os, sys
from netsift.compute import Compute, ComputeLimits
with open(sys.argv[1], "a") as runs:
    runs.write("run\\n")
async def main():
    pool = Compute(workers=2, limits=ComputeLimits(cpu_seconds=5, memory_mb=200))
    try:
        pids = {await pool.run(os.getpid) for _ in range(4)}
    finally:
        await asyncio.to_thread(pool.close)
    print(len(pids - {os.getpid()}))
asyncio.run(main())
"""


def test_workers_do_not_run_the_main_module_again(tmp_path: Path) -> None:
    """multiprocessing would run the parent's main module in every worker (its imports, and
    here a second pool inside each worker, which kills them); the forkserver turns that off
    (compute_nomain.py)."""
    script, runs = tmp_path / "embedding.py", tmp_path / "runs.txt"
    script.write_text(UNGUARDED_MAIN)
    done = subprocess.run(
        [sys.executable, str(script), str(runs)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert int(done.stdout.split()[-1]) >= 1  # the tasks ran in workers
    assert runs.read_text().splitlines() == ["run"]  # the main module ran once: in its process
