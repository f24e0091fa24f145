import os
import socket
import sqlite3
import subprocess
import sys

import anyio
import pytest

from netsift.errors import NotFound
from netsift.jobs.model import LeaseLost, owner_is_dead
from netsift.jobs.sqlite import MemoryJobStore, SQLiteJobStore
from netsift.jobs.store import JobStore, open_job_store

A, B = "host-a:1:a", "host-b:2:b"
LEASE = 60.0


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
    claimed = await store.claim(A, lease=LEASE)
    assert claimed is not None and claimed.id == job.id and claimed.status == "running"
    assert claimed.owner == A and claimed.attempts == 1
    assert await store.claim(B, lease=LEASE) is None  # held
    first = await store.append_event(job.id, "started", {"question": "q"}, worker=A)
    second = await store.append_event(job.id, "planned", {"queries": ["a"]}, worker=A)
    assert first is not None and second is not None and (first.seq, second.seq) == (1, 2)
    assert [e.seq for e in await store.events(job.id, since=1)] == [2]
    assert await store.finish(
        job.id, worker=A, status="done", event=("done", {"n": 1}), result={"answer": "x"}
    )
    done = await store.get(job.id)
    assert done.finished and done.result == {"answer": "x"} and done.last_seq == 3
    assert [j.id for j in await store.list_jobs()] == [job.id]
    assert await store.list_jobs(status="running") == []


async def test_a_job_is_finished_once(store):
    job = await store.create("research", {})
    await store.claim(A, lease=LEASE)
    assert await store.finish(job.id, worker=A, status="done", event=("done", {}))
    assert not await store.finish(job.id, worker=A, status="done", event=("done", {"again": 1}))
    assert [e.type for e in await store.events(job.id)] == ["done"]


async def test_the_same_event_is_stored_once(store):
    job = await store.create("research", {})
    await store.claim(A, lease=LEASE)
    assert await store.append_event(job.id, "search_started", {"query": "a"}, worker=A)
    assert await store.append_event(job.id, "search_started", {"query": "a"}, worker=A) is None
    assert await store.append_event(job.id, "search_started", {"query": "b"}, worker=A)
    assert [e.seq for e in await store.events(job.id)] == [1, 2]


async def test_an_expired_lease_is_taken_over_and_the_old_owner_is_fenced(store):
    job = await store.create("research", {})
    await store.claim(A, lease=0.2)
    await store.save_checkpoint(job.id, A, {"step": "planned"}, {"pages": 1})
    await store.append_event(job.id, "started", {}, worker=A)
    await anyio.sleep(0.4)  # A stops beating: its lease runs out
    taken = await store.claim(B, lease=0.2)  # workers share one lease setting
    assert taken is not None and taken.id == job.id and taken.owner == B and taken.attempts == 2
    assert taken.usage == {"pages": 1}
    assert await store.checkpoint(job.id) == {"step": "planned"}
    assert await store.beat(job.id, A, lease=LEASE) == "lost"
    with pytest.raises(LeaseLost):
        await store.append_event(job.id, "planned", {"from": "a"}, worker=A)
    with pytest.raises(LeaseLost):
        await store.save_checkpoint(job.id, A, {"step": "late"}, {})
    assert not await store.finish(job.id, worker=A, status="done", event=("done", {}))
    assert await store.beat(job.id, B, lease=LEASE) == "ok"
    assert await store.finish(job.id, worker=B, status="done", event=("done", {}))
    assert [e.seq for e in await store.events(job.id)] == [1, 2]


async def test_a_released_job_is_claimed_again_at_once(store):
    job = await store.create("research", {})
    await store.claim(A, lease=LEASE)
    await store.release(job.id, A)
    assert (await store.get(job.id)).status == "queued"
    again = await store.claim(B, lease=LEASE)
    assert again is not None and again.id == job.id and again.attempts == 2


async def test_cancel_is_seen_on_the_next_beat(store):
    job = await store.create("research", {})
    await store.claim(A, lease=LEASE)
    assert await store.beat(job.id, A, lease=LEASE) == "ok"
    assert (await store.request_cancel(job.id)).cancel_requested
    assert await store.beat(job.id, A, lease=LEASE) == "cancel"


async def test_nobody_but_the_holder_ends_a_held_job(store):
    job = await store.create("research", {})
    queued = await store.create("research", {})
    await store.claim(A, lease=LEASE, job_id=job.id)
    assert not await store.finish(job.id, worker=None, status="cancelled", event=("error", {}))
    assert await store.finish(queued.id, worker=None, status="cancelled", event=("error", {}))
    assert (await store.get(queued.id)).status == "cancelled"


async def test_claim_by_id_takes_that_job(store):
    first = await store.create("research", {})
    second = await store.create("research", {})
    claimed = await store.claim(A, lease=LEASE, job_id=second.id)
    assert claimed is not None and claimed.id == second.id
    other = await store.claim(B, lease=LEASE)
    assert other is not None and other.id == first.id


async def test_unknown_job_is_not_found(store):
    with pytest.raises(NotFound):
        await store.get("nope")
    with pytest.raises(NotFound):
        await store.append_event("nope", "started", {})


async def test_sqlite_jobs_survive_a_restart(tmp_path):
    first = SQLiteJobStore(tmp_path / "jobs.sqlite3")
    job = await first.create("research", {"question": "q"})
    await first.append_event(job.id, "started", {})
    await first.aclose()
    second = open_job_store(f"sqlite:///{tmp_path / 'jobs.sqlite3'}")
    assert (await second.get(job.id)).last_seq == 1
    await second.aclose()


async def test_a_job_whose_owner_process_died_is_claimable_at_once(tmp_path):
    store = SQLiteJobStore(tmp_path / "jobs.sqlite3")
    host = socket.gethostname()
    dead = await store.create("research", {})
    await store.claim(f"{host}:{_dead_pid()}:r1", lease=LEASE, job_id=dead.id)
    elsewhere = await store.create("research", {})
    await store.claim(f"other-host:{_dead_pid()}:r3", lease=LEASE, job_id=elsewhere.id)
    # Leases are all fresh: only the job of the process known to be gone is claimable.
    taken = await store.claim(A, lease=LEASE)
    assert taken is not None and taken.id == dead.id
    assert await store.claim(A, lease=LEASE) is None
    await store.aclose()


def test_owner_is_dead_only_for_a_gone_process_on_this_host():
    host = socket.gethostname()
    assert owner_is_dead(f"{host}:{_dead_pid()}:x")
    assert not owner_is_dead(f"{host}:{os.getpid()}:x")
    assert not owner_is_dead(f"{host}:1:x")  # init: alive (or not ours to signal)
    assert not owner_is_dead(f"elsewhere:{_dead_pid()}:x")
    assert not owner_is_dead(None) and not owner_is_dead("garbage")


async def test_a_store_written_before_leases_is_upgraded(tmp_path):
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
    old = await store.get("old1")
    assert old.owner is None and old.attempts == 0 and old.status == "done"
    job = await store.create("research", {"question": "q"})
    claimed = await store.claim("h:1:r", lease=LEASE)
    assert claimed is not None and claimed.id == job.id
    await store.aclose()


async def test_events_resume_from_any_seq(store):
    job = await store.create("research", {})
    for index in range(5):
        await store.append_event(job.id, "search_done", {"i": index})
    assert [e.seq for e in await store.events(job.id, since=3)] == [4, 5]
    assert [e.data["i"] for e in await store.events(job.id, since=3)] == [3, 4]
    assert await store.events(job.id, since=5) == []


async def _walk(store: JobStore, status: str, page: int, between) -> list[str]:
    """Every page of a listing by status, calling `between()` after each page."""
    seen: list[str] = []
    before = None
    while True:
        jobs = await store.list_jobs(limit=page, status=status, before=before)
        assert all(j.status == status for j in jobs)
        seen += [j.id for j in jobs]
        if len(jobs) < page:
            return seen
        before = jobs[-1].id
        await between()


async def test_listing_by_status_pages_while_jobs_change_status(store):
    made = [await store.create("research", {"n": n}) for n in range(23)]
    for _ in range(10):  # the 10 oldest run; the 13 newest wait
        await store.claim(A, lease=LEASE)
    running = [j.id for j in made[:10]]
    assert [j.id for j in await store.list_jobs(status="running", limit=100)] == running[::-1]
    # Between pages, the newest running job ends and a queued one starts running.
    moved: list[str] = []

    async def between() -> None:
        current = await store.list_jobs(status="running", limit=1)
        await store.finish(current[0].id, worker=A, status="done", event=("done", {}))
        moved.append(current[0].id)
        claimed = await store.claim(A, lease=LEASE)
        assert claimed is not None
        moved.append(claimed.id)

    seen = await _walk(store, "running", 3, between)
    assert len(seen) == len(set(seen))  # never twice
    created = {j.id: n for n, j in enumerate(made)}
    assert [created[i] for i in seen] == sorted((created[i] for i in seen), reverse=True)
    # Every job that stayed running through the walk was listed.
    assert {i for i in running if i not in moved} <= set(seen)
    done = await store.list_jobs(status="done", limit=100)
    assert {j.id for j in done} == set(moved[0::2])
    queued = await _walk(store, "queued", 4, _nothing)
    assert queued == [j.id for j in made[::-1] if j.id not in moved and j.id not in running]


async def _nothing() -> None:
    return None


async def test_listing_pages_every_job_once_newest_first(store):
    made = [await store.create("research", {"n": n}) for n in range(9)]
    pages: list[list[str]] = []
    before = None
    while jobs := await store.list_jobs(limit=4, before=before):
        pages.append([j.id for j in jobs])
        before = jobs[-1].id
    assert [len(p) for p in pages] == [4, 4, 1]
    assert [i for p in pages for i in p] == [j.id for j in made[::-1]]
    with pytest.raises(NotFound):
        await store.list_jobs(before="nope")


async def test_checkpointed_texts_are_kept_once_fenced_and_dropped_at_the_end(store):
    job = await store.create("research", {})
    await store.claim(A, lease=LEASE)
    await store.save_texts(job.id, A, {"h1": "one", "h2": "two"})
    await store.save_texts(job.id, A, {"h2": "two", "h3": "three"})
    assert await store.texts(job.id) == {"h1": "one", "h2": "two", "h3": "three"}
    with pytest.raises(LeaseLost):
        await store.save_texts(job.id, B, {"h4": "four"})
    assert await store.finish(job.id, worker=A, status="done", event=("done", {}))
    assert await store.texts(job.id) == {}


@pytest.mark.redis
async def test_a_redis_store_from_before_the_status_index_is_indexed_once(redis_url):
    from redis.asyncio import Redis

    from netsift.jobs.redis import BY_STATUS, INDEXED

    old = open_job_store(redis_url)
    queued = await old.create("research", {})
    running = await old.create("research", {})
    await old.claim(A, lease=LEASE, job_id=running.id)
    await old.aclose()
    raw = Redis.from_url(redis_url)
    await raw.delete(INDEXED, BY_STATUS + "queued", BY_STATUS + "running")
    await raw.aclose()
    store = open_job_store(redis_url)
    assert [j.id for j in await store.list_jobs(status="queued")] == [queued.id]
    assert [j.id for j in await store.list_jobs(status="running")] == [running.id]
    await store.aclose()


@pytest.mark.redis
async def test_a_dead_workers_job_behind_many_live_ones_is_taken_over(redis_url):
    """XAUTOCLAIM looks at ten pending entries per call: the sweep must go on past a head of
    live, heartbeating jobs, or the dead one behind them is never resumed."""
    store = open_job_store(redis_url)
    live = [await store.create("research", {"n": n}) for n in range(12)]
    dead = await store.create("research", {})
    for job in live:
        assert (await store.claim(A, lease=LEASE)).id == job.id  # type: ignore[union-attr]
    assert (await store.claim(B, lease=0.2)).id == dead.id  # type: ignore[union-attr]
    await anyio.sleep(0.4)  # B stops beating: its lease runs out
    taken = None
    for _ in range(3):
        for job in live:  # A is alive: its entries are never idle
            assert await store.beat(job.id, A, lease=LEASE) == "ok"
        if taken := await store.claim("host-c:3:c", lease=0.2):
            break
    assert taken is not None and taken.id == dead.id
    await store.aclose()


async def test_listing_by_client_reads_only_that_keys_jobs(store):
    mine = [await store.create("crawl", {"n": n}, client="key-mine") for n in range(3)]
    await store.create("crawl", {}, client="key-other")
    await store.create("research", {})  # charged to nobody
    await store.claim(A, lease=LEASE, job_id=mine[0].id)
    listed = await store.list_jobs(client="key-mine", limit=2)
    assert [j.id for j in listed] == [mine[2].id, mine[1].id]
    rest = await store.list_jobs(client="key-mine", before=listed[-1].id)
    assert [j.id for j in rest] == [mine[0].id]
    running = await store.list_jobs(client="key-mine", status="running")
    assert [j.id for j in running] == [mine[0].id]
    assert await store.list_jobs(client="key-other", status="running") == []
