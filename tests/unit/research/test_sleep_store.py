from datetime import UTC, datetime, timedelta

import anyio
import pytest

from netsift.jobs.store import open_job_store
from netsift.research.sleep import Sleeper
from netsift.research.sleep_store import SleepRecord, open_sleep_store


@pytest.fixture(params=["sqlite", pytest.param("redis", marks=pytest.mark.redis)])
def url(request, tmp_path):
    if request.param == "redis":
        return request.getfixturevalue("redis_url")
    return f"sqlite:///{tmp_path / 'sleeps.sqlite3'}"


async def test_a_sleep_expires_at_its_deadline_even_after_a_restart(url):
    first = open_sleep_store(url)
    soon = datetime.now(UTC) + timedelta(seconds=0.3)
    record = await first.add(SleepRecord(mode="manual", deadline=soon))
    await first.aclose()  # the process that slept is gone; nobody ends the sleep
    second = open_sleep_store(url)
    assert [r.id for r in await second.active()] == [record.id]
    await anyio.sleep(0.4)
    assert (await second.get(record.id)).woke_because == "expired"
    assert await second.active() == []
    await second.aclose()


async def test_a_wake_from_another_process_reaches_the_sleeper_with_its_message(url):
    """Two stores on one URL stand for two processes (replicas) sharing it."""
    jobs = open_job_store(url)
    here = Sleeper(open_sleep_store(url), jobs, max_seconds=10)
    there = Sleeper(open_sleep_store(url), jobs, max_seconds=10)
    results = {}

    async def nap():
        results["r"] = await here.sleep("manual")

    async with anyio.create_task_group() as group:
        group.start_soon(nap)
        active = []
        for _ in range(200):  # the sleeper's record appears in the shared store
            if active := await there.store.active():
                break
            await anyio.sleep(0.02)
        await there.wake(active[0].id, message="go on")
    assert results["r"]["woke_because"] == "woken" and results["r"]["message"] == "go on"
    assert results["r"]["slept_s"] < 5
    for store in (here.store, there.store):
        await store.aclose()
    await jobs.aclose()


async def test_event_sleepers_wake_when_a_job_ends_in_another_process(url):
    jobs = open_job_store(url)
    other = open_job_store(url)
    sleeper = Sleeper(open_sleep_store(url), jobs, max_seconds=10)
    job = await jobs.create("research", {})
    results = {}

    async def nap():
        results["r"] = await sleeper.sleep("event", job_id=job.id)

    async with anyio.create_task_group() as group:
        group.start_soon(nap)
        await anyio.sleep(0.2)
        await other.finish(job.id, worker=None, status="done", event=("done", {}))
    assert results["r"]["woke_because"] == "job_finished" and results["r"]["slept_s"] < 5
    await sleeper.store.aclose()
    await jobs.aclose()
    await other.aclose()
