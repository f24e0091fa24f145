"""The frontier (SQLite and Redis) over a crawl's life: claim order, host politeness, leases,
atomic admission (each rule's cases are in test_frontier_rules.py)."""

import anyio
import pytest

from netsift.crawl.dedupe import bands
from netsift.crawl.frontier import Entry, FrontierStore, open_frontier_store
from netsift.crawl.frontier.sqlite import SQLiteFrontier

CRAWL = "c1"


@pytest.fixture(params=["sqlite", pytest.param("redis", marks=pytest.mark.redis)])
async def frontier(request):
    if request.param == "sqlite":
        store: FrontierStore = SQLiteFrontier(":memory:")
    else:
        store = open_frontier_store(request.getfixturevalue("redis_url"))
    await store.start(CRAWL, max_pages=3, max_bytes=10_000, deadline=60)
    yield store
    await store.aclose()


def _entry(key: str, host: str = "a.test", priority: float = 0.0) -> Entry:
    return Entry(key=key, url=f"http://{host}/{key}", host=host, priority=priority)


async def _admit(store: FrontierStore, key: str, text_hash: str, sketch: int | None = None):
    return await store.admit(
        CRAWL,
        keys=[key],
        url=f"http://a.test/{key}",
        content_hash=text_hash,
        bands=bands(sketch) if sketch is not None else [],
        sketch=sketch,
        size=100,
        page={"page": {}},
    )


async def test_the_seen_set_queues_each_url_once_and_best_priority_first(frontier):
    assert await frontier.add(CRAWL, [_entry("a", priority=2), _entry("b", priority=0)]) == 2
    assert await frontier.add(CRAWL, [_entry("a"), _entry("c", priority=1)]) == 1
    await frontier.host_policy(CRAWL, "a.test", delay=0, concurrency=8)
    order = [(await frontier.claim(CRAWL, "w", lease=30)).entry for _ in range(3)]
    assert [e.key for e in order if e] == ["b", "c", "a"]


async def test_an_unknown_host_gets_one_request_then_its_policy(frontier):
    await frontier.add(CRAWL, [_entry("a"), _entry("b")])
    first = await frontier.claim(CRAWL, "w", lease=30)
    assert first.entry is not None
    assert (await frontier.claim(CRAWL, "w", lease=30)).wait is not None  # robots not read yet
    await frontier.host_policy(CRAWL, "a.test", delay=0, concurrency=8)
    assert (await frontier.claim(CRAWL, "w", lease=30)).entry is not None


async def test_a_host_delay_holds_the_next_claim_and_says_how_long(frontier):
    await frontier.host_policy(CRAWL, "a.test", delay=5, concurrency=8)
    await frontier.add(CRAWL, [_entry("a"), _entry("b"), _entry("x", host="b.test")])
    assert (await frontier.claim(CRAWL, "w", lease=30)).entry.key == "a"
    # a.test must wait; b.test (unknown: one request) goes ahead
    assert (await frontier.claim(CRAWL, "w", lease=30)).entry.key == "x"
    wait = (await frontier.claim(CRAWL, "w", lease=30)).wait
    assert wait is not None and 0 < wait


async def test_a_lapsed_claim_is_claimed_again_and_the_crawl_ends_when_nothing_is_left(frontier):
    await frontier.host_policy(CRAWL, "a.test", delay=0, concurrency=8)
    await frontier.add(CRAWL, [_entry("a")])
    lost = await frontier.claim(CRAWL, "dead", lease=0.01)
    await anyio.sleep(0.02)
    again = await frontier.claim(CRAWL, "alive", lease=30)
    assert lost.entry == again.entry
    assert (await frontier.claim(CRAWL, "alive", lease=30)).wait is not None  # in flight
    await frontier.done(CRAWL, "a", "alive")
    assert (await frontier.claim(CRAWL, "alive", lease=30)).over


async def test_admission_drops_exact_and_near_copies_and_keeps_the_page_budget(frontier):
    assert (await _admit(frontier, "a", "h1", 0b1011_0000)).n == 1
    assert (await _admit(frontier, "a2", "h1")).duplicate_of == "http://a.test/a"
    assert (await _admit(frontier, "a3", "h3", 0b1011_0001)).duplicate_of == "http://a.test/a"
    assert (await _admit(frontier, "b", "h4")).n == 2
    assert (await _admit(frontier, "c", "h5")).n == 3
    assert (await _admit(frontier, "d", "h6")).full  # max_pages=3
    status = await frontier.status(CRAWL)
    assert status["pages"] == 3 and status["bytes"] == 300
    rows = await frontier.results(CRAWL, kind="page")
    assert [n for n, _, _ in rows] == [1, 2, 3]


async def test_budgets_stop_claims(frontier):
    await frontier.start("short", max_pages=10, max_bytes=10, deadline=0.01)
    await frontier.add("short", [_entry("a")])
    await anyio.sleep(0.02)
    assert (await frontier.claim("short", "w", lease=30)).over
    assert (await frontier.status("short"))["stopped"] == "time"


async def test_done_queues_the_links_and_records_each_refusal_once(frontier):
    await frontier.host_policy(CRAWL, "a.test", delay=0, concurrency=8)
    await frontier.add(CRAWL, [_entry("a"), _entry("b")])
    first = await frontier.claim(CRAWL, "w", lease=30)
    second = await frontier.claim(CRAWL, "w", lease=30)
    assert first.entry is not None and second.entry is not None
    off = _entry("off", host="elsewhere.test")
    refusal = (off, {"url": off.url, "code": "out_of_scope"})
    await frontier.done(CRAWL, "a", "w", links=[_entry("c"), _entry("b")], refused=[refusal])
    await frontier.done(CRAWL, "b", "w", links=[_entry("c")], refused=[refusal])
    skipped = await frontier.results(CRAWL)
    assert [(kind, data["url"]) for _, kind, data in skipped] == [("skipped", off.url)]
    status = await frontier.status(CRAWL)
    assert status["pending"] == 1 and status["in_flight"] == 0
    third = await frontier.claim(CRAWL, "w", lease=30)
    assert third.entry is not None and third.entry.key == "c"
    assert (await frontier.claim(CRAWL, "w", lease=30)).wait is not None  # c in flight


async def test_done_records_the_entry_it_ends_as_skipped(frontier):
    await frontier.host_policy(CRAWL, "a.test", delay=0, concurrency=8)
    await frontier.add(CRAWL, [_entry("a")])
    assert (await frontier.claim(CRAWL, "w", lease=30)).entry is not None
    gone = {"url": "http://a.test/a", "code": "http_error"}
    await frontier.done(CRAWL, "a", "w", skipped=gone)
    assert [(kind, data) for _, kind, data in await frontier.results(CRAWL)] == [("skipped", gone)]
    assert (await frontier.claim(CRAWL, "w", lease=30)).over


async def test_a_released_claim_frees_its_host_slot_and_keeps_the_rest_of_the_claim(frontier):
    """The body is in: the host's one slot goes to the next URL while the page is kept, but
    the claim still holds its lease, its place in the page budget and the crawl open."""
    await frontier.host_policy(CRAWL, "a.test", delay=0, concurrency=1)
    await frontier.add(CRAWL, [_entry("a"), _entry("b"), _entry("c"), _entry("d")])
    assert (await frontier.claim(CRAWL, "w", lease=30)).entry.key == "a"
    assert (await frontier.claim(CRAWL, "w", lease=30)).wait is not None  # the slot is a's
    await frontier.release_host(CRAWL, "a", "other")  # not its owner: nothing changes
    assert (await frontier.claim(CRAWL, "w", lease=30)).wait is not None
    await frontier.release_host(CRAWL, "a", "w")
    assert (await frontier.claim(CRAWL, "w", lease=30)).entry.key == "b"
    await frontier.release_host(CRAWL, "b", "w")
    assert (await frontier.claim(CRAWL, "w", lease=30)).entry.key == "c"
    assert (await frontier.status(CRAWL))["in_flight"] == 3
    # max_pages=3 and three pages in flight: d waits although its host has a free slot
    await frontier.release_host(CRAWL, "c", "w")
    assert (await frontier.claim(CRAWL, "w", lease=30)).wait is not None
    await frontier.retry(CRAWL, "c", "w")  # a released claim handed back, its slot not twice
    await frontier.done(CRAWL, "a", "w")
    await frontier.done(CRAWL, "b", "w")
    first = await frontier.claim(CRAWL, "w", lease=30)
    assert first.entry is not None and first.entry.key in {"c", "d"}
    assert (await frontier.claim(CRAWL, "w", lease=30)).wait is not None  # one slot, taken
    await frontier.done(CRAWL, first.entry.key, "w")
    second = await frontier.claim(CRAWL, "w", lease=30)
    assert second.entry is not None and {first.entry.key, second.entry.key} == {"c", "d"}
    await frontier.done(CRAWL, second.entry.key, "w")
    assert (await frontier.claim(CRAWL, "w", lease=30)).over


async def test_a_released_claim_of_a_dead_worker_is_claimed_again(frontier):
    await frontier.host_policy(CRAWL, "a.test", delay=0, concurrency=1)
    await frontier.add(CRAWL, [_entry("a")])
    assert (await frontier.claim(CRAWL, "dead", lease=0.01)).entry is not None
    await frontier.release_host(CRAWL, "a", "dead")
    await anyio.sleep(0.02)
    again = await frontier.claim(CRAWL, "alive", lease=30)
    assert again.entry is not None and again.entry.key == "a"
    # its slot is counted once: a's new request holds the host's one slot
    await frontier.add(CRAWL, [_entry("b")])
    assert (await frontier.claim(CRAWL, "alive", lease=30)).wait is not None
    await frontier.release_host(CRAWL, "a", "alive")
    assert (await frontier.claim(CRAWL, "alive", lease=30)).entry.key == "b"


async def test_the_host_delay_counts_from_the_request_end_not_from_done(frontier):
    await frontier.host_policy(CRAWL, "a.test", delay=0.2, concurrency=1)
    await frontier.add(CRAWL, [_entry("a"), _entry("b")])
    assert (await frontier.claim(CRAWL, "w", lease=30)).entry.key == "a"
    await frontier.release_host(CRAWL, "a", "w")
    wait = (await frontier.claim(CRAWL, "w", lease=30)).wait
    assert wait is not None and 0.1 < wait <= 0.2  # the delay, from the release
    await anyio.sleep(0.1)
    await frontier.done(CRAWL, "a", "w")  # a's keeping ends later: the delay is not restarted
    wait = (await frontier.claim(CRAWL, "w", lease=30)).wait
    assert wait is not None and wait <= 0.11


@pytest.mark.redis
async def test_every_redis_key_of_a_stopped_crawl_expires(redis_url):
    """Keys made after `start` (the seen-set, results, hosts…) expire with the crawl too."""
    from redis.asyncio import Redis

    from netsift.crawl.frontier.redis import PREFIX
    from netsift.jobs.redis import RETENTION

    store = open_frontier_store(redis_url)
    await store.start(CRAWL, max_pages=3, max_bytes=10_000, deadline=60)
    await store.add(CRAWL, [_entry("one"), _entry("two")])
    claim = await store.claim(CRAWL, "w", lease=5)
    assert claim.entry is not None
    await _admit(store, claim.entry.key, "h1")
    await store.done(CRAWL, claim.entry.key, "w")
    await store.stop(CRAWL, "done")
    await store.aclose()
    redis = Redis.from_url(redis_url)
    try:
        keys = await redis.keys(f"{PREFIX}{CRAWL}:*")
        ttls = [await redis.ttl(key) for key in keys]
    finally:
        await redis.aclose()
    assert len(keys) > 3 and all(0 < ttl <= RETENTION for ttl in ttls), dict(
        zip(keys, ttls, strict=True)
    )
