"""The readings kept: one per (caller, URL, tag), the previous answered as the new one is
recorded, bounded in length, count and age; SQLite and Redis alike."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from netsift.changes import store as snapshots
from netsift.changes.store import (
    KEPT_SECONDS,
    MAX_MARKDOWN_CHARS,
    RedisSnapshotStore,
    SnapshotStore,
    SQLiteSnapshotStore,
    open_snapshot_store,
)

T0 = datetime.now(UTC).replace(microsecond=0)


async def _histories(store: SnapshotStore) -> None:
    assert await store.swap("key1", "http://a.test/", None, "one", T0) is None
    previous = await store.swap("key1", "http://a.test/", None, "two", T0 + timedelta(hours=1))
    assert previous is not None and (previous.markdown, previous.taken_at) == ("one", T0)
    assert await store.swap("key1", "http://a.test/", "", "tagged", T0) is None  # "" is a tag
    assert await store.swap("key1", "http://a.test/", "daily", "tagged", T0) is None
    assert await store.swap("key2", "http://a.test/", None, "other key", T0) is None
    long = "x" * (MAX_MARKDOWN_CHARS + 10)
    await store.swap("key1", "http://b.test/", None, long, T0)
    kept = await store.swap("key1", "http://b.test/", None, "short", T0)
    assert kept is not None and len(kept.markdown) == MAX_MARKDOWN_CHARS
    # a named reading recorded again (a document made again) answers what it replaced
    later = T0 + timedelta(hours=2, microseconds=250)
    first = await store.swap("key1", "http://a.test/", None, "three", later, "job:1")
    again = await store.swap("key1", "http://a.test/", None, "three", later, "job:1")
    assert first is not None and first == again and first.markdown == "two"
    assert await store.swap("key1", "http://c.test/", None, "new", later, "job:2") is None
    assert await store.swap("key1", "http://c.test/", None, "new", later, "job:2") is None
    after = await store.swap("key1", "http://a.test/", None, "four", later + timedelta(hours=1))
    assert after is not None and (after.markdown, after.taken_at) == ("three", later)
    # an unnamed one (a scrape, its page from the cache or not) is always the next reading
    same = await store.swap("key1", "http://a.test/", None, "four", later + timedelta(hours=1))
    assert same is not None and same.markdown == "four"


async def test_sqlite_keeps_one_reading_per_caller_url_and_tag(tmp_path) -> None:
    store = open_snapshot_store(f"sqlite:///{tmp_path / 'jobs.sqlite3'}")
    assert isinstance(store, SQLiteSnapshotStore)
    try:
        await _histories(store)
    finally:
        await store.aclose()


async def test_redis_keeps_one_reading_per_caller_url_and_tag(redis_url: str) -> None:
    store = open_snapshot_store(redis_url)
    assert isinstance(store, RedisSnapshotStore)
    try:
        await _histories(store)
    finally:
        await store.aclose()


async def test_sqlite_forgets_expired_and_the_oldest_past_its_cap(
    tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = [T0.timestamp()]
    store = SQLiteSnapshotStore(tmp_path / "jobs.sqlite3", now=lambda: clock[0])
    monkeypatch.setattr(snapshots, "MAX_SNAPSHOTS", 3)
    try:
        await store.swap("k", "http://old.test/", None, "old", T0)
        clock[0] += KEPT_SECONDS + 1
        assert await store.swap("k", "http://old.test/", None, "again", T0) is None  # expired
        later = T0 + timedelta(seconds=KEPT_SECONDS)
        for n in range(4):
            await store.swap("k", f"http://p{n}.test/", None, "page", later + timedelta(seconds=n))
        # four more readings with a cap of three: the oldest (old.test's) is gone, then p0's
        assert await store.swap("k", "http://p0.test/", None, "page", later) is None
        assert await store.swap("k", "http://p3.test/", None, "page", later) is not None
    finally:
        await store.aclose()


async def test_sqlite_adds_the_replaced_reading_to_a_table_made_without_it(tmp_path) -> None:
    import sqlite3

    path = tmp_path / "jobs.sqlite3"
    with sqlite3.connect(path) as db:
        db.execute(
            "CREATE TABLE page_snapshots (key TEXT PRIMARY KEY, markdown TEXT NOT NULL, "
            "taken_at REAL NOT NULL)"
        )
    store = SQLiteSnapshotStore(path)
    try:
        assert await store.swap("k", "http://a.test/", None, "one", T0, "job:1") is None
        assert await store.swap("k", "http://a.test/", None, "one", T0, "job:1") is None
        previous = await store.swap("k", "http://a.test/", None, "two", T0 + timedelta(hours=1))
        assert previous is not None and previous.markdown == "one"
    finally:
        await store.aclose()
