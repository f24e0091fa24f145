"""The compute pool: a task past its CPU or memory budget dies with its worker and is reported as
`too_complex`; the worker is replaced and its neighbours carry on."""

from __future__ import annotations

import asyncio
import os

import pytest

from netsift.compute import Compute, ComputeLimits
from netsift.errors import TooComplex, UnsupportedContentType
from netsift.fetch.content import _extract_content


def spin() -> None:
    while True:
        pass


def hog(megabytes: int) -> int:
    return len(bytearray(megabytes * 1024 * 1024))


def pid() -> int:
    return os.getpid()


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
