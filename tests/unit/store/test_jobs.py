import os
import socket
import sqlite3
import subprocess
import sys

import pytest

from netsift.errors import NotFound
from netsift.store.jobs import (
    JobStore,
    MemoryJobStore,
    SQLiteJobStore,
    open_job_store,
    owner_is_dead,
)


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


def _dead_pid() -> int:
    """The pid of a process that has ended (a child that exited and was reaped)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


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
    assert await store.mark_interrupted(stale_after=60) == []  # alive: heartbeat is fresh
    assert await store.mark_interrupted(stale_after=0) == [job.id]
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


async def test_a_job_whose_owner_process_died_is_interrupted_at_once(store):
    host = socket.gethostname()
    dead = await store.create("research", {})
    await store.update(dead.id, status="running", owner=f"{host}:{_dead_pid()}:r1")
    mine = await store.create("research", {})
    await store.update(mine.id, status="running", owner=f"{host}:{os.getpid()}:r2")
    elsewhere = await store.create("research", {})
    await store.update(elsewhere.id, status="running", owner=f"other-host:{_dead_pid()}:r3")
    finished = await store.create("research", {})
    await store.update(finished.id, status="done", owner=f"{host}:{_dead_pid()}:r4")
    # Heartbeats are all fresh: only the job of the process known to be gone is abandoned.
    assert await store.mark_interrupted(stale_after=60) == [dead.id]
    assert (await store.get(dead.id)).status == "interrupted"
    assert (await store.get(mine.id)).status == "running"
    assert (await store.get(elsewhere.id)).status == "running"
    assert (await store.get(finished.id)).status == "done"


def test_owner_is_dead_only_for_a_gone_process_on_this_host():
    host = socket.gethostname()
    assert owner_is_dead(f"{host}:{_dead_pid()}:x")
    assert not owner_is_dead(f"{host}:{os.getpid()}:x")
    assert not owner_is_dead(f"{host}:1:x")  # init: alive (or not ours to signal)
    assert not owner_is_dead(f"elsewhere:{_dead_pid()}:x")
    assert not owner_is_dead(None) and not owner_is_dead("garbage")


async def test_a_store_written_before_owners_is_upgraded(tmp_path):
    path = tmp_path / "old.sqlite3"
    db = sqlite3.connect(path)
    db.execute(
        "CREATE TABLE jobs (id TEXT PRIMARY KEY, kind TEXT NOT NULL, status TEXT NOT NULL, "
        "params TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, result TEXT, "
        "error TEXT, last_seq INTEGER NOT NULL DEFAULT 0, heartbeat_at REAL NOT NULL DEFAULT 0)"
    )
    db.execute(
        "INSERT INTO jobs VALUES ('old1', 'research', 'done', '{}', "
        "'2026-01-01T00:00:00+00:00', '2026-01-01T00:00:00+00:00', NULL, NULL, 0, 0)"
    )
    db.commit()
    db.close()
    store = SQLiteJobStore(path)
    assert (await store.get("old1")).owner is None
    job = await store.create("research", {"question": "q"})
    assert (await store.update(job.id, status="running", owner="h:1:r")).owner == "h:1:r"
    await store.aclose()


async def test_events_resume_from_any_seq(store):
    job = await store.create("research", {})
    for index in range(5):
        await store.append_event(job.id, "search_done", {"i": index})
    assert [e.seq for e in await store.events(job.id, since=3)] == [4, 5]
    assert [e.data["i"] for e in await store.events(job.id, since=3)] == [3, 4]
    assert await store.events(job.id, since=5) == []
