import anyio
import pytest

from netsift.errors import InvalidInput, NotFound
from netsift.jobs.sqlite import MemoryJobStore
from netsift.research.sleep import Sleeper
from netsift.research.sleep_store import MemorySleepStore


@pytest.fixture
def sleeper():
    return Sleeper(MemorySleepStore(), MemoryJobStore(), max_seconds=2)


async def test_timer(sleeper):
    result = await sleeper.sleep("timer", seconds=0.2, reason="wait")
    assert result["woke_because"] == "timer" and 0.15 <= result["slept_s"] < 1.5


async def test_every_sleep_is_capped(sleeper):
    result = await sleeper.sleep("timer", seconds=30)
    assert result["woke_because"] == "cap" and result["slept_s"] < 3


async def test_manual_wake(sleeper):
    results = {}

    async def nap():
        results["r"] = await sleeper.sleep("manual", reason="until told")

    async with anyio.create_task_group() as group:
        group.start_soon(nap)
        await anyio.sleep(0.1)
        [record] = await sleeper.store.active()
        await sleeper.store.wake(record.id)
    assert results["r"]["woke_because"] == "woken"
    with pytest.raises(InvalidInput):
        await sleeper.store.wake(record.id)


async def test_event_sleep_wakes_when_the_job_finishes(sleeper):
    job = await sleeper.jobs.create("research", {})
    done = await sleeper.jobs.create("research", {})
    await sleeper.jobs.finish(done.id, worker=None, status="done", event=("done", {}))
    assert (await sleeper.sleep("event", job_id=done.id))["woke_because"] == "job_finished"

    async def finish():
        await anyio.sleep(0.3)
        await sleeper.jobs.finish(job.id, worker=None, status="failed", event=("error", {}))

    async with anyio.create_task_group() as group:
        group.start_soon(finish)
        result = await sleeper.sleep("event", job_id=job.id)
    assert result["woke_because"] == "job_finished" and result["slept_s"] >= 0.25


async def test_bad_sleeps(sleeper):
    with pytest.raises(NotFound):
        await sleeper.sleep("event", job_id="missing")
    with pytest.raises(InvalidInput):
        await sleeper.sleep("timer")
    with pytest.raises(InvalidInput):
        await sleeper.sleep("event")


async def test_a_wake_carries_a_message_and_wakes_at_once(sleeper):
    results = {}

    async def nap():
        results["r"] = await sleeper.sleep("manual", reason="until told")

    async with anyio.create_task_group() as group:
        group.start_soon(nap)
        await anyio.sleep(0.1)
        [record] = await sleeper.store.active()
        await sleeper.wake(record.id, message="the build is green")
    assert results["r"]["woke_because"] == "woken"
    assert results["r"]["message"] == "the build is green"
    assert results["r"]["note"].startswith("Sleep ended. Reason: the build is green. You slept")
