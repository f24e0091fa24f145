import pytest

from netsift.errors import NotFound
from netsift.store.jobs import MemoryJobStore, SQLiteJobStore, open_job_store


@pytest.fixture(params=["memory", "sqlite"])
def store(request, tmp_path):
    if request.param == "memory":
        return MemoryJobStore()
    return SQLiteJobStore(tmp_path / "jobs.sqlite3")


async def test_job_lifecycle_and_numbered_events(store):
    job = await store.create("research", {"question": "q"})
    assert job.status == "queued"
    await store.update(job.id, status="running")
    first = await store.append_event(job.id, "started", {"question": "q"})
    second = await store.append_event(job.id, "planned", {"queries": ["a"]})
    assert (first.seq, second.seq) == (1, 2)
    assert [e.seq for e in await store.events(job.id, since=1)] == [2]
    done = await store.update(job.id, status="done", result={"answer": "x"})
    assert done.finished and done.result == {"answer": "x"} and done.last_seq == 2
    assert [j.id for j in await store.list_jobs()] == [job.id]
    assert await store.list_jobs(status="running") == []


async def test_unknown_job_is_not_found(store):
    with pytest.raises(NotFound):
        await store.get("nope")
    with pytest.raises(NotFound):
        await store.append_event("nope", "started", {})


async def test_stale_running_jobs_are_marked_interrupted_and_keep_events(store):
    job = await store.create("research", {})
    await store.update(job.id, status="running")
    await store.append_event(job.id, "fetch_done", {"url": "https://a.test/"})
    assert await store.mark_interrupted(stale_after=60) == 0  # alive: heartbeat is fresh
    assert await store.mark_interrupted(stale_after=0) == 1
    after = await store.get(job.id)
    assert after.status == "interrupted"
    assert [e.type for e in await store.events(job.id)] == ["fetch_done"]


async def test_sqlite_jobs_survive_a_restart(tmp_path):
    first = SQLiteJobStore(tmp_path / "jobs.sqlite3")
    job = await first.create("research", {"question": "q"})
    await first.append_event(job.id, "started", {})
    await first.aclose()
    second = open_job_store(f"sqlite:///{tmp_path / 'jobs.sqlite3'}")
    assert (await second.get(job.id)).last_seq == 1
    await second.aclose()
