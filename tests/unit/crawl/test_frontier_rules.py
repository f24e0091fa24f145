"""The frontier's rules, one table of cases run three ways: against the pure rules
(crawl/frontier/rules.py, given the state a store would load), and against the SQLite and
Redis frontiers (the state built through their API). A backend that decided anything its
own way fails here."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import pytest

from netsift.crawl.dedupe import bands
from netsift.crawl.frontier import (
    HOST_BUSY_WAIT,
    IN_FLIGHT_WAIT,
    Admission,
    Claim,
    Entry,
    FrontierStore,
    open_frontier_store,
    rules,
)
from netsift.crawl.frontier.sqlite import SQLiteFrontier

HOST = "a.test"
OTHER = "b.test"


@dataclass(frozen=True)
class Flying:
    """A claim in flight when the case's claim is made; `released`: its request ended."""

    key: str
    host: str = HOST
    pattern: str = ""
    released: bool = False


@dataclass(frozen=True)
class ClaimCase:
    name: str
    pending: list[tuple[str, str, str]]  # (key, host, pattern), in queue order
    expect: tuple[
        str, str | None
    ]  # (entry|trapped, key), (wait, busy|in_flight|delay), (over, stop)
    hosts: dict[str, tuple[float, int]] = field(default_factory=dict)  # robots read: delay, slots
    flying: list[Flying] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)  # a pattern per page kept ("" none)
    duplicates: dict[str, int] = field(default_factory=dict)
    paused: dict[str, float] = field(default_factory=dict)
    max_pages: int = 100
    max_bytes: int = 1_000_000
    page_bytes: int = 10
    deadline: float = 60.0
    trap_limit: int | None = 3


CLAIMS = [
    ClaimCase("the best pending entry first", [("a", HOST, ""), ("b", HOST, "")], ("entry", "a"),
              hosts={HOST: (0, 8)}),
    ClaimCase("nothing pending, nothing in flight: over", [], ("over", None)),
    ClaimCase("nothing pending, a page in flight may add links", [], ("wait", "in_flight"),
              hosts={HOST: (0, 8)}, flying=[Flying("x")]),
    ClaimCase("an unknown host gets one request", [("a", HOST, "")], ("wait", "busy"),
              flying=[Flying("x")]),
    ClaimCase("a known host gets its slots", [("a", HOST, "")], ("entry", "a"),
              hosts={HOST: (0, 2)}, flying=[Flying("x")]),
    ClaimCase("a host's slots all taken: the next host's entry", [("a", HOST, ""),
              ("b", OTHER, "")], ("entry", "b"), hosts={HOST: (0, 1)}, flying=[Flying("x")]),
    ClaimCase("a released request holds no slot", [("a", HOST, "")], ("entry", "a"),
              hosts={HOST: (0, 1)}, flying=[Flying("x", released=True)]),
    ClaimCase("a request ended rests its host for its delay", [("a", HOST, "")],
              ("wait", "delay"), hosts={HOST: (5, 1)}, flying=[Flying("x", released=True)]),
    ClaimCase("a paused host waits", [("a", HOST, "")], ("wait", "delay"),
              hosts={HOST: (0, 8)}, paused={HOST: 30}),
    ClaimCase("time spent: over", [("a", HOST, "")], ("over", "time"), deadline=0),
    ClaimCase("bytes spent: over", [("a", HOST, "")], ("over", "max_bytes"), kept=["", ""],
              max_bytes=20),
    ClaimCase("pages spent: over", [("a", HOST, "")], ("over", "max_pages"), kept=["", ""],
              max_pages=2),
    ClaimCase("the rest of the budget in flight: wait", [("a", HOST, "")], ("wait", "busy"),
              hosts={HOST: (0, 8)}, kept=[""], flying=[Flying("x"), Flying("y")], max_pages=3),
    ClaimCase("a pattern that kept nothing yet gets one request", [("a", HOST, "p/0")],
              ("wait", "busy"), hosts={HOST: (0, 8)}, flying=[Flying("x", pattern="p/0")]),
    ClaimCase("a pattern earns a request per page kept", [("a", HOST, "p/0")], ("entry", "a"),
              hosts={HOST: (0, 8)}, kept=["p/0"], flying=[Flying("x", pattern="p/0")]),
    ClaimCase("and loses one per duplicate", [("a", HOST, "p/0"), ("b", HOST, "q")],
              ("entry", "b"), hosts={HOST: (0, 8)}, kept=["p/0"], duplicates={"p/0": 1},
              flying=[Flying("x", pattern="p/0")]),
    ClaimCase("a trap's entry is handed out to be ended, whatever its host",
              [("a", HOST, "p/0")], ("trapped", "a"), hosts={HOST: (0, 1)},
              duplicates={"p/0": 3}, flying=[Flying("x")], paused={HOST: 30}),
    ClaimCase("below the trap limit it is asked for", [("a", HOST, "p/0")], ("entry", "a"),
              hosts={HOST: (0, 8)}, kept=["p/0"] * 5, duplicates={"p/0": 2}),
    ClaimCase("no trap limit: no trap", [("a", HOST, "p/0")], ("entry", "a"),
              hosts={HOST: (0, 8)}, duplicates={"p/0": 9}, trap_limit=None),
]  # fmt: skip


def _pure_claim(case: ClaimCase) -> rules.ClaimDecision:
    """The state a store holds after the case's setup, as the rules are given it."""
    now = time.time()
    budget = rules.Budget(
        deadline=now + case.deadline,
        max_pages=case.max_pages,
        max_bytes=case.max_bytes,
        pages=len(case.kept),
        bytes=len(case.kept) * case.page_bytes,
    )
    kept = Counter(case.kept)
    claimed = Counter(f.pattern for f in case.flying)
    candidates = []
    for key, host, pattern in case.pending:
        delay, slots = case.hosts.get(host, (0.0, rules.Host().concurrency))
        flying = [f for f in case.flying if f.host == host]
        next_at = now + delay if flying else 0.0  # a claim's and a request end's rest
        next_at = max(next_at, now + case.paused[host]) if host in case.paused else next_at
        state = rules.Host(delay, slots, next_at, host in case.hosts)
        state = rules.Host(
            state.delay, state.concurrency, state.next_at, state.known,
            busy=sum(1 for f in flying if not f.released),
        )  # fmt: skip
        record = None
        if pattern:
            record = rules.Pattern(kept[pattern], case.duplicates.get(pattern, 0), claimed[pattern])
        entry = Entry(key, f"http://{host}/{key}", host, pattern=pattern)
        candidates.append(rules.Candidate(entry, state, record))
    return rules.claim(budget, len(case.flying), candidates, now, case.trap_limit)


async def _store_claim(store: FrontierStore, crawl: str, case: ClaimCase) -> Claim:
    """The case's state built through the store's API, then its claim."""
    await store.start(
        crawl, max_pages=case.max_pages, max_bytes=case.max_bytes, deadline=case.deadline
    )
    for i, pattern in enumerate(case.kept):
        admitted = await store.admit(
            crawl, keys=[f"kept{i}"], url=f"http://{HOST}/kept{i}", content_hash=f"h{i}",
            bands=[], sketch=None, size=case.page_bytes, page={"page": {}}, pattern=pattern,
        )  # fmt: skip
        assert admitted.n is not None, "setup: a kept page was refused"
    for pattern, n in case.duplicates.items():
        for _ in range(n):
            await store.mark_trap(crawl, pattern)
    for host, (delay, slots) in case.hosts.items():
        await store.host_policy(crawl, host, delay=delay, concurrency=slots)
    for f in case.flying:
        await store.add(crawl, [Entry(f.key, f"http://{f.host}/{f.key}", f.host, pattern=f.pattern,
                                      priority=-1)])  # fmt: skip
        got = await store.claim(crawl, "w", lease=30)
        assert got.entry is not None and got.entry.key == f.key, f"setup: {got}"
        if f.released:
            await store.release_host(crawl, f.key, "w")
    for host, seconds in case.paused.items():
        await store.pause_host(crawl, host, seconds)
    pending = [
        Entry(key, f"http://{host}/{key}", host, priority=float(i), pattern=pattern)
        for i, (key, host, pattern) in enumerate(case.pending)
    ]
    await store.add(crawl, pending)
    return await store.claim(crawl, "w", lease=30, trap_limit=case.trap_limit)


def _outcome(got: Claim, stopped: str | None, case: ClaimCase) -> tuple[str, str | None]:
    if got.entry is not None:
        return ("trapped" if got.trapped else "entry", got.entry.key)
    if got.wait is None:
        return ("over", stopped)
    if got.wait == IN_FLIGHT_WAIT:
        return ("wait", "in_flight")
    if got.wait == HOST_BUSY_WAIT:
        return ("wait", "busy")
    longest = max([*[d for d, _ in case.hosts.values()], *case.paused.values()])
    assert 0 < got.wait <= longest
    return ("wait", "delay")


@pytest.fixture(params=["sqlite", pytest.param("redis", marks=pytest.mark.redis)])
async def store(request: pytest.FixtureRequest) -> Any:
    if request.param == "sqlite":
        opened: FrontierStore = SQLiteFrontier(":memory:")
    else:
        opened = open_frontier_store(request.getfixturevalue("redis_url"))
    yield opened
    await opened.aclose()


@pytest.mark.parametrize("case", CLAIMS, ids=[case.name for case in CLAIMS])
def test_claim_rules(case: ClaimCase) -> None:
    decision = _pure_claim(case)
    assert _outcome(decision.claim, decision.stop, case) == case.expect


@pytest.mark.parametrize("case", CLAIMS, ids=[case.name for case in CLAIMS])
async def test_claim_in_each_store(store: FrontierStore, case: ClaimCase) -> None:
    got = await _store_claim(store, "crawl", case)
    stopped = (await store.status("crawl"))["stopped"]
    assert _outcome(got, stopped, case) == case.expect


BASE = 0x0123_4567_89AB_CDEF


@dataclass(frozen=True)
class Page:
    keys: list[str]
    text: str  # its exact hash
    sketch: int | None = None

    @property
    def url(self) -> str:
        return f"http://{HOST}/{self.keys[0]}"


@dataclass(frozen=True)
class AdmitCase:
    name: str
    kept: list[Page]
    offer: Page
    expect: tuple[str, str | None]  # (kept, None), (duplicate, url of), (full, None)
    max_pages: int = 10


AS_KEPT = Page(["a"], "t1", BASE)
ADMISSIONS = [
    AdmitCase("a new page is kept", [AS_KEPT], Page(["b"], "t2", ~BASE & (1 << 64) - 1),
              ("kept", None)),
    AdmitCase("the same URL is a duplicate", [AS_KEPT], Page(["a"], "t9"),
              ("duplicate", AS_KEPT.url)),
    AdmitCase("an alias of a kept URL is a duplicate", [Page(["a", "a-alias"], "t1")],
              Page(["c", "a-alias"], "t9"), ("duplicate", "http://a.test/a")),
    AdmitCase("the same text is a duplicate", [AS_KEPT], Page(["b"], "t1"),
              ("duplicate", AS_KEPT.url)),
    AdmitCase("a sketch 6 bits away is a near duplicate", [AS_KEPT],
              Page(["b"], "t2", BASE ^ 0b11_1111), ("duplicate", AS_KEPT.url)),
    AdmitCase("7 bits away shares bands but is a page of its own", [AS_KEPT],
              Page(["b"], "t2", BASE ^ 0b111_1111), ("kept", None)),
    AdmitCase("no sketch: only the exact hash judges", [AS_KEPT], Page(["b"], "t2"),
              ("kept", None)),
    AdmitCase("the page budget spent: full", [AS_KEPT], Page(["b"], "t2"), ("full", None),
              max_pages=1),
    AdmitCase("a duplicate is named before the budget", [AS_KEPT], Page(["b"], "t1"),
              ("duplicate", AS_KEPT.url), max_pages=1),
]  # fmt: skip


def _marks(page: Page) -> set[str]:
    return {f"url:{key}" for key in page.keys} | {f"sha:{page.text}"}


def _pure_admission(case: AdmitCase) -> Admission | None:
    offer = case.offer
    seen = next((p.url for p in case.kept if _marks(p) & _marks(offer)), None)
    mine = set(bands(offer.sketch)) if offer.sketch is not None else set()
    candidates = [
        (p.sketch, p.url) for p in case.kept if p.sketch is not None and mine & set(bands(p.sketch))
    ]
    return rules.admission(
        seen=seen, candidates=candidates, sketch=offer.sketch, pages=len(case.kept),
        max_pages=case.max_pages,
    )  # fmt: skip


async def _offer(store: FrontierStore, page: Page) -> Admission:
    return await store.admit(
        "crawl", keys=page.keys, url=page.url, content_hash=page.text,
        bands=bands(page.sketch) if page.sketch is not None else [], sketch=page.sketch,
        size=1, page={"page": {}},
    )  # fmt: skip


def _verdict(refusal: Admission | None) -> tuple[str, str | None]:
    if refusal is None or refusal.n is not None:
        return ("kept", None)
    if refusal.duplicate_of is not None:
        return ("duplicate", refusal.duplicate_of)
    assert refusal.full
    return ("full", None)


@pytest.mark.parametrize("case", ADMISSIONS, ids=[case.name for case in ADMISSIONS])
def test_admission_rules(case: AdmitCase) -> None:
    assert _verdict(_pure_admission(case)) == case.expect


@pytest.mark.parametrize("case", ADMISSIONS, ids=[case.name for case in ADMISSIONS])
async def test_admission_in_each_store(store: FrontierStore, case: AdmitCase) -> None:
    await store.start("crawl", max_pages=case.max_pages, max_bytes=10**6, deadline=60)
    for page in case.kept:
        assert (await _offer(store, page)).n is not None, "setup: a kept page was refused"
    assert _verdict(await _offer(store, case.offer)) == case.expect


@pytest.mark.parametrize(
    ("duplicates", "limit", "trap"), [(2, 3, False), (3, 3, True), (9, None, False)]
)
async def test_traps_in_the_rules_and_each_store(
    store: FrontierStore, duplicates: int, limit: int | None, trap: bool
) -> None:
    assert rules.is_trap(rules.Pattern(duplicates=duplicates), limit) is trap
    await store.start("crawl", max_pages=10, max_bytes=10**6, deadline=60)
    for _ in range(duplicates):
        await store.mark_trap("crawl", "p/0")
    if limit is not None:
        assert (await store.traps("crawl", limit=limit) == {"p/0"}) is trap
