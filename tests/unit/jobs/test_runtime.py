"""The job runtime with a kind it has never heard of (count_kind.py): typed params, result and
checkpoint through every backend, events followed, a job resumed from its checkpoint by
another worker, cancelled with its partial, and a second cancel answered `already_finished`."""

from __future__ import annotations

import anyio
import pytest

from netsift.errors import AlreadyFinished, InvalidInput
from netsift.jobs import Jobs
from netsift.jobs.sqlite import MemoryJobStore, SQLiteJobStore
from netsift.jobs.store import JobStore, open_job_store
from netsift.usage import Billing, metering

from .count_kind import COUNT, Count, Counted, CountedSoFar, Progress

DEAD = "host-gone:1:dead"  # a worker that claimed a job and stopped beating


@pytest.fixture(params=["memory", "sqlite", pytest.param("redis", marks=pytest.mark.redis)])
async def store(request, tmp_path):
    if request.param == "memory":
        made: JobStore = MemoryJobStore()
    elif request.param == "sqlite":
        made = SQLiteJobStore(tmp_path / "jobs.sqlite3")
    else:
        made = open_job_store(request.getfixturevalue("redis_url"))
    yield made
    await made.aclose()


def _jobs(store: JobStore, *, local: bool = True, lease: float = 60.0) -> Jobs:
    return Jobs(store, {COUNT.name: COUNT}, lease=lease, local=local)


async def test_a_job_runs_to_its_typed_result_and_the_store_keeps_json(store):
    async with _jobs(store) as jobs:
        job, result = await jobs.run(COUNT, Count(upto=4))
    assert result == Counted(total=6, resumed_at=None)
    assert job.kind == "count" and job.status == "done"
    assert job.params == {"upto": 4, "pause": 0.0}
    assert job.result == {"total": 6, "resumed_at": None}
    stored = await store.get(job.id)  # read back, typed again, from any process
    assert COUNT.params_of(stored) == Count(upto=4)
    assert COUNT.result_of(stored) == result
    events = await jobs.events(job.id)
    assert [e.type for e in events] == ["result"] * 4 + ["done"]
    assert events[-1].data == {"total": 6, "resumed_at": None}  # the result, when no event


async def test_a_started_job_runs_here_and_is_followed_to_its_end(store):
    async with _jobs(store) as jobs:
        job = await jobs.start(COUNT, Count(upto=3, pause=0.01))
        seen = [event async for event in jobs.follow(job.id)]
        done = await jobs.wait(job.id, timeout=10)
        later = [event.seq async for event in jobs.follow(job.id, since=2)]
    assert [e.seq for e in seen] == [1, 2, 3, 4] and seen[-1].type == "done"
    assert later == [3, 4]
    assert done.status == "done" and COUNT.result_of(done) == Counted(total=3, resumed_at=None)


async def test_a_job_its_worker_left_resumes_from_the_typed_checkpoint(store):
    jobs = _jobs(store, local=False, lease=0.3)
    async with jobs:
        job = await jobs.start(COUNT, Count(upto=4))  # queued: this runtime runs no job
        claimed = await store.claim(DEAD, lease=0.3, job_id=job.id)
        assert claimed is not None
        for at in (0, 1):
            await store.append_event(job.id, "result", {"at": at}, worker=DEAD)
        await store.save_checkpoint(job.id, DEAD, Progress(at=2).model_dump(), {})
        await anyio.sleep(0.4)  # the dead worker's lease runs out
        worker = jobs.worker(concurrency=1, stop_timeout=1)
        async with anyio.create_task_group() as group:
            group.start_soon(worker.run)
            done = await jobs.wait(job.id, timeout=10)
            worker.stop()
    assert done.status == "done" and done.attempts == 2
    assert COUNT.result_of(done) == Counted(total=6, resumed_at=2)
    events = await jobs.events(job.id)
    assert [e.data.get("at") for e in events if e.type == "result"] == [0, 1, 2, 3]
    assert [e.seq for e in events] == [1, 2, 3, 4, 5]


async def test_cancel_ends_a_running_job_with_its_partial_then_answers_already_finished(store):
    async with _jobs(store) as jobs:
        job = await jobs.start(COUNT, Count(upto=1000, pause=0.05))
        with anyio.fail_after(10):
            async for event in jobs.follow(job.id):
                if event.seq == 2:
                    break
        ended = await jobs.cancel(job.id)
        assert ended.status == "cancelled"
        partial = CountedSoFar.model_validate(ended.result)
        assert partial.partial and partial.steps[:2] == [0, 1]
        assert COUNT.result_of(ended) is None  # a partial is not the kind's result
        with pytest.raises(AlreadyFinished) as second:
            await jobs.cancel(job.id)
    error = second.value.to_dict()
    assert error["code"] == "already_finished" and error["retryable"] is False
    assert second.value.status == 409 and error["details"]["status"] == "cancelled"


async def test_a_queued_job_nobody_holds_is_cancelled_where_it_is_asked(store):
    async with _jobs(store, local=False) as jobs:
        job = await jobs.start(COUNT, Count(upto=3))
        ended = await jobs.cancel(job.id)
    assert ended.status == "cancelled" and ended.result == {"partial": True, "steps": []}
    assert (await store.events(job.id))[-1].data == {"code": "cancelled"}


async def test_a_job_of_another_kind_or_an_unregistered_kind_is_refused(store):
    async with _jobs(store) as jobs:
        job, _ = await jobs.run(COUNT, Count(upto=1))
        with pytest.raises(InvalidInput, match="is a count job, not a crawl"):
            await jobs.get(job.id, kind="crawl")
        with pytest.raises(InvalidInput):
            await jobs.cancel(job.id, kind="crawl")
        other = Jobs(store, {}, lease=60, local=False)
        with pytest.raises(RuntimeError, match="not registered"):
            await other.start(COUNT, Count(upto=1))


async def test_a_job_is_charged_to_its_caller_and_reports_its_usage(store):
    billing = Billing()
    async with Jobs(store, {COUNT.name: COUNT}, lease=60, billing=billing) as jobs:
        with metering(billing.meter("client-a")):
            job, _ = await jobs.run(COUNT, Count(upto=2))
    assert (await store.get(job.id)).client == "client-a"
    usage = await jobs.usage(job.id)
    assert (usage.pages, usage.tokens, usage.total_searches) == (2, 0, 0)


async def test_jobs_need_the_runtime_entered_to_run_here(store):
    jobs = _jobs(store)
    with pytest.raises(RuntimeError, match="enter the job runtime"):
        await jobs.start(COUNT, Count(upto=1))


async def test_the_runtime_may_be_left_in_another_task_than_it_was_entered_in():
    """A server's lifespan or an async fixture enters a Client in one task and leaves it in
    another: the jobs it runs are tasks of their own, handed back on the way out."""
    import asyncio

    store = MemoryJobStore()
    jobs = _jobs(store)
    await asyncio.create_task(jobs.__aenter__())
    job = await jobs.start(COUNT, Count(upto=50, pause=0.05))
    await anyio.sleep(0.1)
    await asyncio.create_task(jobs.__aexit__(None, None, None))
    left = await store.get(job.id)
    assert left.status in ("queued", "running", "done")  # handed back, or done: never lost
    await store.aclose()


async def test_a_client_that_runs_no_job_never_opens_the_job_store(tmp_path):
    """Entering a Client costs no job store: the runtime and its file come with the first
    job (a one-shot fetch or search opens nothing it does not use)."""
    from netsift.client import Client
    from netsift.config import Settings

    path = tmp_path / "jobs.sqlite3"
    async with Client(Settings(data_dir=tmp_path, jobs_url=f"sqlite:///{path}")) as client:
        assert not path.exists()
        await client.list_jobs()  # the first use opens it, and jobs then run here
        assert path.exists()
