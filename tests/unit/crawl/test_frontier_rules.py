"""The frontier's rules, one table of cases run three ways: against the pure rules
(crawl/frontier/rules.py, given the state a store would load), and against the SQLite and
Redis frontiers (the state built through their API). A backend that decided anything its
own way fails here."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field, replace
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
    Verdict,
    open_frontier_store,
    rules,
)
from netsift.crawl.frontier.sqlite import SQLiteFrontier

HOST = "a.test"
OTHER = "b.test"
SETUP = "setup.test"  # the host of the pages read to give a pattern its record


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
    kept: int = 0  # pages kept
    # each pattern's pages read so far, oldest first: "1" added, "0" added nothing
    judged: dict[str, str] = field(default_factory=dict)
    paused: dict[str, float] = field(default_factory=dict)
    max_pages: int = 100
    max_bytes: int = 1_000_000
    page_bytes: int = 10
    deadline: float = 60.0


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
    ClaimCase("past a long queue of a busy host", [*[(f"a{i}", HOST, "") for i in range(20)],
              ("b", OTHER, "")], ("entry", "b"), hosts={HOST: (0, 1)}, flying=[Flying("x")]),
    ClaimCase("a released request holds no slot", [("a", HOST, "")], ("entry", "a"),
              hosts={HOST: (0, 1)}, flying=[Flying("x", released=True)]),
    ClaimCase("a request ended rests its host for its delay", [("a", HOST, "")],
              ("wait", "delay"), hosts={HOST: (5, 1)}, flying=[Flying("x", released=True)]),
    ClaimCase("a paused host waits", [("a", HOST, "")], ("wait", "delay"),
              hosts={HOST: (0, 8)}, paused={HOST: 30}),
    ClaimCase("time spent: over", [("a", HOST, "")], ("over", "time"), deadline=0),
    ClaimCase("bytes spent: over", [("a", HOST, "")], ("over", "max_bytes"), kept=2,
              max_bytes=20),
    ClaimCase("pages spent: over", [("a", HOST, "")], ("over", "max_pages"), kept=2,
              max_pages=2),
    ClaimCase("the rest of the budget in flight: wait", [("a", HOST, "")], ("wait", "busy"),
              hosts={HOST: (0, 8)}, kept=1, flying=[Flying("x"), Flying("y")], max_pages=3),
    ClaimCase("a pattern that added nothing yet gets one request", [("a", HOST, "p/0")],
              ("wait", "busy"), hosts={HOST: (0, 8)}, flying=[Flying("x", pattern="p/0")]),
    ClaimCase("a pattern earns a request per page that added", [("a", HOST, "p/0")],
              ("entry", "a"), hosts={HOST: (0, 8)}, judged={"p/0": "1"},
              flying=[Flying("x", pattern="p/0")]),
    ClaimCase("and loses one per page that added nothing", [("a", HOST, "p/0"),
              ("b", HOST, "q")], ("entry", "b"), hosts={HOST: (0, 8)}, judged={"p/0": "10"},
              flying=[Flying("x", pattern="p/0")]),
    ClaimCase("a trap's entry is handed out to be ended, whatever its host",
              [("a", HOST, "p/0")], ("trapped", "a"), hosts={HOST: (0, 1)},
              judged={"p/0": "1000"}, flying=[Flying("x")], paused={HOST: 30}),
    ClaimCase("eleven alike among many good pages are no trap", [("a", HOST, "p/0")],
              ("entry", "a"), hosts={HOST: (0, 8)}, judged={"p/0": "1" * 20 + "0" * 11}),
    ClaimCase("twelve of the last sixteen after twenty good pages: most pages added, no trap",
              [("a", HOST, "p/0")], ("entry", "a"), hosts={HOST: (0, 8)},
              judged={"p/0": "1" * 20 + "0" * 12}),
    ClaimCase("three in four of the last sixteen, and half of all, adding nothing is a trap",
              [("a", HOST, "p/0")], ("trapped", "a"), hosts={HOST: (0, 8)},
              judged={"p/0": "1" * 20 + "0" * 20}),
    ClaimCase("a few pages alike at first are a trap", [("a", HOST, "p/0")],
              ("trapped", "a"), hosts={HOST: (0, 8)}, judged={"p/0": "0000"}),
    ClaimCase("but three are not enough to judge", [("a", HOST, "p/0")], ("entry", "a"),
              hosts={HOST: (0, 8)}, judged={"p/0": "000"}),
]  # fmt: skip


def _record(window: str, claimed: int) -> rules.Pattern:
    record = rules.Pattern()
    for page in window:
        record = rules.judged(record, page == "1")
    return replace(record, claimed=claimed)


def _pure_claim(case: ClaimCase) -> rules.ClaimDecision:
    """The state a store holds after the case's setup, as the rules are given it."""
    now = time.time()
    budget = rules.Budget(
        deadline=now + case.deadline,
        max_pages=case.max_pages,
        max_bytes=case.max_bytes,
        pages=case.kept,
        bytes=case.kept * case.page_bytes,
    )
    claimed = Counter(f.pattern for f in case.flying)
    candidates = []
    for key, host, pattern in case.pending:
        delay, slots = case.hosts.get(host, (0.0, rules.Host().concurrency))
        flying = [f for f in case.flying if f.host == host]
        next_at = now + delay if flying else 0.0  # a claim's and a request end's rest
        next_at = max(next_at, now + case.paused[host]) if host in case.paused else next_at
        busy = sum(1 for f in flying if not f.released)
        state = rules.Host(delay, slots, next_at, host in case.hosts, busy)
        record = _record(case.judged.get(pattern, ""), claimed[pattern]) if pattern else None
        entry = Entry(key, f"http://{host}/{key}", host, pattern=pattern)
        candidates.append(rules.Candidate(entry, state, record))
    return rules.claim(budget, len(case.flying), candidates, now)


async def _read(store: FrontierStore, crawl: str, entry: Entry, verdict: Verdict | None) -> None:
    """Claim `entry` (queued first) and end it, judged for its pattern as `verdict` says."""
    await store.add(crawl, [replace(entry, priority=-2)])
    got = await store.claim(crawl, "w", lease=30)
    assert got.entry is not None and got.entry.key == entry.key, f"setup: {got}"
    await store.done(crawl, entry.key, "w", verdict=verdict)


async def _store_claim(store: FrontierStore, crawl: str, case: ClaimCase) -> Claim:
    """The case's state built through the store's API, then its claim."""
    await store.start(
        crawl, max_pages=case.max_pages, max_bytes=case.max_bytes, deadline=case.deadline
    )
    for i in range(case.kept):
        admitted = await store.admit(
            crawl, keys=[f"kept{i}"], url=f"http://{HOST}/kept{i}", content_hash=f"h{i}",
            bands=[], sketch=None, size=case.page_bytes, page={"page": {}},
        )  # fmt: skip
        assert admitted.n is not None, "setup: a kept page was refused"
    for pattern, window in case.judged.items():
        for i, page in enumerate(window):
            entry = Entry(f"{pattern}-{i}", f"http://{SETUP}/{pattern}/{i}", SETUP, pattern=pattern)
            await _read(store, crawl, entry, Verdict(pattern, new_text=page == "1"))
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
    return await store.claim(crawl, "w", lease=30)


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
    sample: tuple[int, ...] = ()  # its text sample (dedupe.text_sample)
    pattern: str = "p/0"

    @property
    def url(self) -> str:
        return f"http://{HOST}/{self.keys[0]}"


@dataclass(frozen=True)
class AdmitCase:
    name: str
    kept: list[Page]
    offer: Page
    # (kept, new text|no new text), (held, None), (duplicate, url), (full, None)
    expect: tuple[str, str | None]
    max_pages: int = 10


READ = tuple(range(1, 9))  # a long page's sample: new ones are judged by NEW_TEXT_SAMPLES
AS_KEPT = Page(["a"], "t1", BASE, READ)  # new text: kept
FRESH = tuple(range(100, 100 + rules.NEW_TEXT_SAMPLES))  # just enough new samples
NEW, OLD, HELD = ("kept", "new text"), ("kept", "no new text"), ("held", None)
ADMISSIONS = [
    AdmitCase("a page with no text new to its pattern is held", [AS_KEPT],
              Page(["b"], "t2", ~BASE & (1 << 64) - 1), HELD),
    AdmitCase("a page of no pattern is kept, new text or not", [AS_KEPT],
              Page(["b"], "t2", ~BASE & (1 << 64) - 1, pattern=""), OLD),
    AdmitCase("the same URL is a duplicate", [AS_KEPT], Page(["a"], "t9"),
              ("duplicate", AS_KEPT.url)),
    AdmitCase("an alias of a kept URL is a duplicate", [Page(["a", "a-alias"], "t1")],
              Page(["c", "a-alias"], "t9"), ("duplicate", "http://a.test/a")),
    AdmitCase("the same text is a duplicate", [AS_KEPT], Page(["b"], "t1"),
              ("duplicate", AS_KEPT.url)),
    AdmitCase("a sketch 6 bits away is a near duplicate", [AS_KEPT],
              Page(["b"], "t2", BASE ^ 0b11_1111), ("duplicate", AS_KEPT.url)),
    AdmitCase("7 bits away shares bands but is a page of its own", [AS_KEPT],
              Page(["b"], "t2", BASE ^ 0b111_1111), HELD),
    AdmitCase("no sketch: only the exact hash judges", [AS_KEPT], Page(["b"], "t2"), HELD),
    AdmitCase("the page budget spent: full", [AS_KEPT], Page(["b"], "t2"), ("full", None),
              max_pages=1),
    AdmitCase("a duplicate is named before the budget", [AS_KEPT], Page(["b"], "t1"),
              ("duplicate", AS_KEPT.url), max_pages=1),
    AdmitCase("enough samples new to the pattern are new text", [AS_KEPT],
              Page(["b"], "t2", sample=(*READ, *FRESH)), NEW),
    AdmitCase("one fewer is not: held", [AS_KEPT],
              Page(["b"], "t2", sample=(*READ, *FRESH[1:])), HELD),
    AdmitCase("a held page's URL and text are seen", [AS_KEPT, Page(["b"], "t2")],
              Page(["c"], "t2"), ("duplicate", "http://a.test/b")),
    AdmitCase("a held page is not counted in the budget", [AS_KEPT, Page(["b"], "t2")],
              Page(["c"], "t3", sample=FRESH), NEW, max_pages=2),
    AdmitCase("text read before under another pattern is new to this one",
              [replace(AS_KEPT, sample=FRESH)], Page(["b"], "t2", sample=FRESH, pattern="q"),
              NEW),
    AdmitCase("a duplicate's text does not count as read", [AS_KEPT, Page(["a"], "t7",
              sample=FRESH)], Page(["b"], "t2", sample=FRESH), NEW),
]  # fmt: skip


def _marks(page: Page) -> set[str]:
    return {f"url:{key}" for key in page.keys} | {f"sha:{page.text}"}


def _pure_admission(case: AdmitCase) -> Admission:
    kept: list[Page] = []  # the case's pages the store admitted (kept or held)
    counted = 0  # of those, the pages kept
    for page in [*case.kept, case.offer]:
        seen = next((p.url for p in kept if _marks(p) & _marks(page)), None)
        mine = set(bands(page.sketch)) if page.sketch is not None else set()
        candidates = [
            (p.sketch, p.url) for p in kept if p.sketch is not None and mine & set(bands(p.sketch))
        ]
        refusal = rules.admission(
            seen=seen, candidates=candidates, sketch=page.sketch, pages=counted,
            max_pages=case.max_pages,
        )  # fmt: skip
        if refusal is not None:
            answer = refusal
            continue
        read = {value for p in kept if p.pattern == page.pattern for value in p.sample}
        new_text = rules.adds_text(len(set(page.sample) - read), len(set(page.sample)))
        kept.append(page)
        if rules.holds(page.pattern, new_text):
            answer = Admission(held=True)
            continue
        counted += 1
        answer = Admission(n=counted, new_text=new_text)
    return answer


async def _offer(store: FrontierStore, page: Page) -> Admission:
    return await store.admit(
        "crawl", keys=page.keys, url=page.url, content_hash=page.text,
        bands=bands(page.sketch) if page.sketch is not None else [], sketch=page.sketch,
        size=1, page={"page": {}}, pattern=page.pattern, sample=list(page.sample),
    )  # fmt: skip


def _verdict(answer: Admission) -> tuple[str, str | None]:
    if answer.held:
        return HELD
    if answer.n is not None:
        return NEW if answer.new_text else OLD
    if answer.duplicate_of is not None:
        return ("duplicate", answer.duplicate_of)
    assert answer.full
    return ("full", None)


@pytest.mark.parametrize("case", ADMISSIONS, ids=[case.name for case in ADMISSIONS])
def test_admission_rules(case: AdmitCase) -> None:
    assert _verdict(_pure_admission(case)) == case.expect


@pytest.mark.parametrize("case", ADMISSIONS, ids=[case.name for case in ADMISSIONS])
async def test_admission_in_each_store(store: FrontierStore, case: AdmitCase) -> None:
    await store.start("crawl", max_pages=case.max_pages, max_bytes=10**6, deadline=60)
    for page in case.kept:
        await _offer(store, page)
    assert _verdict(await _offer(store, case.offer)) == case.expect


@pytest.mark.parametrize(
    ("window", "vouches"),
    [("1" * 15, False), ("1" * 16, True), ("1" * 12 + "0000", True),
     ("1" * 11 + "00000", False), ("10" * 8, False)],
)  # fmt: skip
def test_a_pattern_is_vouched_for_by_pages_that_added(window: str, vouches: bool) -> None:
    assert rules.vouched(_record(window, 0)) is vouches


def test_a_trap_stays_one() -> None:
    record = _record("1000", 0)
    assert record.trap and rules.judged(record, True).trap


@pytest.mark.parametrize(("window", "allowance"), [("", 1), ("1", 2), ("1" * 7, 8), ("10", 1)])
def test_a_pattern_earns_a_request_per_page_that_added(window: str, allowance: int) -> None:
    record = _record(window, 0)
    assert rules.pattern_allowance(record.added, record.empty) == allowance


async def test_a_crawl_that_left_a_traps_urls_unread_ends_as_trap(store: FrontierStore) -> None:
    await store.start("crawl", max_pages=10, max_bytes=10**6, deadline=60)
    for i in range(4):  # four alike pages: a trap (TRAP_MIN_PAGES)
        entry = Entry(f"m{i}", f"http://{HOST}/cal/{i}", HOST, pattern="cal/0")
        await _read(store, "crawl", entry, Verdict("cal/0", new_text=False))
    assert not (await store.claim("crawl", "w", lease=30)).trapped
    assert (await store.status("crawl"))["stopped"] is None  # over, read whole
    await store.add("crawl", [Entry("m9", f"http://{HOST}/cal/9", HOST, pattern="cal/0")])
    trapped = await store.claim("crawl", "w", lease=30)
    assert trapped.trapped and trapped.entry is not None
    await store.done("crawl", "m9", "w", skipped={"url": trapped.entry.url, "code": "trap"})
    assert (await store.claim("crawl", "w", lease=30)).over
    status = await store.status("crawl")
    assert status["stopped"] == "trap" and status["traps"] == ["cal/0"]
    assert status["trapped"] == 1
    now = time.time()
    budget = rules.Budget(now + 60, 10, 10**6, trapped=status["trapped"])
    assert rules.claim(budget, 0, [], now).stop == "trap"


async def test_a_page_adds_when_its_links_queue_new_urls_of_another_pattern(
    store: FrontierStore,
) -> None:
    """A section's index holds no text of its own, but leads somewhere new: it adds."""
    await store.start("crawl", max_pages=100, max_bytes=10**6, deadline=60)
    for i in range(4):
        entry = Entry(f"s{i}", f"http://{HOST}/s/{i}/", HOST, pattern="s/0/")
        links = [Entry(f"s{i}p{j}", f"http://{HOST}/s/{i}/{j}", HOST, 1, 9, pattern="s/0/0")
                 for j in range(3)]  # fmt: skip
        await store.add("crawl", [replace(entry, priority=-2)])
        assert (await store.claim("crawl", "w", lease=30)).entry == replace(entry, priority=-2)
        await store.done("crawl", entry.key, "w", links=links, verdict=Verdict("s/0/", False))
    assert (await store.status("crawl"))["traps"] == []
    # the same links again are nothing new: four such pages make a trap
    for i in range(4):
        entry = Entry(f"t{i}", f"http://{HOST}/t/{i}", HOST, pattern="t/0")
        onward = Entry(f"t{i + 1}", f"http://{HOST}/t/{i + 1}", HOST, 1, -5, pattern="t/0")
        links = [Entry("s0p0", f"http://{HOST}/s/0/0", HOST, 1, 9, pattern="s/0/0"), onward]
        await store.add("crawl", [replace(entry, priority=-2)])
        got = await store.claim("crawl", "w", lease=30)
        assert got.entry is not None and got.entry.key == entry.key
        await store.done("crawl", entry.key, "w", links=links, verdict=Verdict("t/0", False))
    assert (await store.status("crawl"))["traps"] == ["t/0"]


@pytest.mark.parametrize(
    ("host", "after"),
    [
        (rules.Host(known=True), None),  # no delay, robots read: nothing to keep
        (rules.Host(delay=2.0, concurrency=1, known=True), 102.0),
        (rules.Host(), 100.0),  # robots not read: its delay will count from this request
        (rules.Host(delay=2.0, next_at=150.0, known=True), 150.0),  # a pause outlasts it
    ],
)
def test_a_request_rests_its_host_only_when_its_next_time_matters(
    host: rules.Host, after: float | None
) -> None:
    rest = rules.rested(host, 100.0)
    assert (rest.next_at if rest else None) == after
    policy = rules.with_policy(rest or host, delay=5.0, concurrency=1)
    if not host.known:  # the delay read from robots.txt counts from the first request
        assert policy.next_at == 105.0


async def test_claims_made_at_once_never_take_more_than_the_hosts_slots(
    store: FrontierStore,
) -> None:
    """Many tasks claiming together (Redis decides each in Python, then writes it if its
    bounds still have room): the host's two slots and the pattern's allowance hold."""
    import asyncio

    await store.start("crawl", max_pages=100, max_bytes=10**6, deadline=60)
    await store.host_policy("crawl", HOST, delay=0, concurrency=2)
    await store.add("crawl", [Entry(f"a{i}", f"http://{HOST}/a{i}", HOST) for i in range(12)])
    await store.add("crawl", [Entry(f"p{i}", f"http://{OTHER}/p/{i}", OTHER, pattern="p/0")
                              for i in range(12)])  # fmt: skip
    await store.host_policy("crawl", OTHER, delay=0, concurrency=8)
    claims = await asyncio.gather(*(store.claim("crawl", f"w{i}", lease=30) for i in range(16)))
    taken = [claim.entry for claim in claims if claim.entry is not None]
    assert len([e for e in taken if e.host == HOST]) == 2
    assert len([e for e in taken if e.pattern == "p/0"]) == 1  # it added nothing yet


@pytest.mark.parametrize(
    ("stopped", "pending", "trapped", "beyond", "reasons"),
    [
        (None, 0, 0, 0, ["done"]),
        ("done", 0, 0, 0, ["done"]),
        ("done", 0, 0, 3, ["max_depth"]),
        ("max_pages", 4, 0, 3, ["max_pages", "max_depth"]),
        ("max_pages", 0, 0, 0, ["done"]),  # the site's last page spent the budget
        ("trap", 0, 5, 0, ["trap"]),
        ("time", 2, 5, 1, ["time", "trap", "max_depth"]),
        ("cancelled", 0, 0, 0, ["cancelled"]),
    ],
)
def test_an_ending_names_every_reason_a_crawl_ended_short(
    stopped: str | None, pending: int, trapped: int, beyond: int, reasons: list[str]
) -> None:
    ending = rules.endings(stopped, pending=pending, trapped=trapped, beyond_depth=beyond)
    assert ending == reasons


def test_a_page_added_when_it_held_new_text_or_led_to_new_urls_elsewhere() -> None:
    links = [Entry("a", "http://h/a", "h", pattern="p"), Entry("b", "http://h/b", "h", pattern="q")]
    assert rules.other_patterns(links, "p") == links[1:]
    assert rules.other_patterns(links, None) == links
    assert rules.other_patterns(links, "p", traps={"q"}) == []  # more of a trap is no news
    facets = [Entry("c", "http://h/s?a=1&b=2", "h", pattern="h/s?a&b")]
    assert rules.other_patterns(facets, "h/s?a") == []  # the same path, another filter
    assert rules.page_added(Verdict("p", new_text=True), 0)
    assert rules.page_added(Verdict("p", new_text=False), 1)
    assert not rules.page_added(Verdict("p", new_text=False), 0)


async def test_links_past_the_depth_are_counted_until_a_shallower_page_queues_them(
    store: FrontierStore,
) -> None:
    """A page at max_depth notes its links (never queued); one that a page nearer a seed
    links is queued after all, and no longer counted as left beyond the depth."""
    await store.start("crawl", max_pages=100, max_bytes=10**6, deadline=60)
    await store.add(
        "crawl", [Entry("d", f"http://{HOST}/d", HOST), Entry("e", f"http://{HOST}/e", HOST)]
    )
    got = await store.claim("crawl", "w", lease=30)
    assert got.entry is not None and await store.in_flight("crawl") == 1
    await store.done("crawl", got.entry.key, "w", beyond=["x", "y", "y"])
    assert await store.in_flight("crawl") == 0
    status = await store.status("crawl")
    assert status["beyond_depth"] == 2 and status["seen"] == 2
    other = await store.claim("crawl", "w", lease=30)
    assert other.entry is not None
    queued = Entry("x", f"http://{HOST}/x", HOST, 1)
    await store.done("crawl", other.entry.key, "w", links=[queued])
    assert (await store.status("crawl"))["beyond_depth"] == 1


async def _hold(store: FrontierStore, crawl: str, key: str, pattern: str) -> None:
    """Offer a page with no text new to `pattern`: it is held, not kept."""
    url = f"http://{HOST}/{key}"
    admitted = await store.admit(
        crawl, keys=[key], url=url, content_hash=f"h-{key}", bands=[], sketch=None, size=10,
        page={"page": {"url": url}, "depth": 1}, pattern=pattern, sample=[],
    )  # fmt: skip
    assert admitted.held and admitted.n is None


async def _outcomes(store: FrontierStore, crawl: str) -> list[tuple[str, str]]:
    """The crawl's results as (kind or skipped code, URL), in order."""
    rows = await store.results(crawl, limit=100)
    return [
        (kind if kind == "page" else str(data["code"]), str(data.get("url") or data["page"]["url"]))
        for _, kind, data in rows
    ]


async def test_held_pages_are_kept_once_their_patterns_pages_vouch_for_it(
    store: FrontierStore,
) -> None:
    await store.start("crawl", max_pages=10, max_bytes=10**6, deadline=60)
    await _hold(store, "crawl", "post/1", "post/0")
    await _hold(store, "crawl", "post/2", "post/0")
    await _hold(store, "crawl", "other/1", "other/0")
    assert await _outcomes(store, "crawl") == []
    assert (await store.status("crawl"))["pages"] == 0
    for i in range(3, 3 + rules.TRAP_WINDOW):  # pages that added: judged, one by one
        assert await _outcomes(store, "crawl") == []  # too few to vouch for the pattern yet
        entry = Entry(f"post/{i}", f"http://{HOST}/post/{i}", HOST, pattern="post/0")
        await _read(store, "crawl", entry, Verdict("post/0", new_text=True))
    assert await _outcomes(store, "crawl") == [
        ("page", f"http://{HOST}/post/1"),
        ("page", f"http://{HOST}/post/2"),
    ]
    status = await store.status("crawl")
    assert status["pages"] == 2 and status["bytes"] == 20


async def test_at_the_end_a_traps_held_pages_are_dropped_and_the_rest_kept(
    store: FrontierStore,
) -> None:
    await store.start("crawl", max_pages=10, max_bytes=10**6, deadline=60)
    for i in range(rules.TRAP_MIN_PAGES):  # read, held, each judged as adding nothing
        await _hold(store, "crawl", f"cal/{i}", "cal/0")
        entry = Entry(f"cal/{i}", f"http://{HOST}/cal/{i}", HOST, pattern="cal/0")
        await _read(store, "crawl", entry, Verdict("cal/0", new_text=False))
    await _hold(store, "crawl", "note/1", "note/0")  # one page of its pattern: no trap
    assert (await store.status("crawl"))["traps"] == ["cal/0"]
    await store.settle("crawl")
    outcomes = await _outcomes(store, "crawl")
    assert [o for o in outcomes if o[0] == "page"] == [("page", f"http://{HOST}/note/1")]
    dropped = sorted(url for code, url in outcomes if code == "trap")
    assert dropped == [f"http://{HOST}/cal/{i}" for i in range(rules.TRAP_MIN_PAGES)]
    assert (await store.status("crawl"))["pages"] == 1
    await store.settle("crawl")  # settled once: nothing held is left
    assert len(await _outcomes(store, "crawl")) == len(outcomes)


async def test_held_pages_kept_at_the_end_stay_within_the_page_budget(
    store: FrontierStore,
) -> None:
    await store.start("crawl", max_pages=1, max_bytes=10**6, deadline=60)
    await _hold(store, "crawl", "q/1", "q/0")
    await _hold(store, "crawl", "q/2", "q/0")
    await store.settle("crawl")
    assert await _outcomes(store, "crawl") == [("page", f"http://{HOST}/q/1")]
    assert (await store.status("crawl"))["pages"] == 1


@pytest.mark.parametrize(
    ("trap", "pages", "fate"), [(True, 0, "drop"), (False, 0, "keep"), (False, 5, "full")]
)
def test_a_held_pages_fate(trap: bool, pages: int, fate: str) -> None:
    assert rules.held_fate(trap=trap, pages=pages, max_pages=5) == fate


@pytest.mark.parametrize(
    ("new", "samples", "adds"),
    [
        (rules.NEW_TEXT_SAMPLES, 40, True),  # a sentence of a long page
        (rules.NEW_TEXT_SAMPLES - 1, 40, False),
        (2, 3, True),  # a short post: half its few windows are new
        (1, 3, False),
        (1, 1, True),
        (0, 0, False),  # no text of its own: nothing new, however short
    ],
)
def test_new_text_is_a_sentence_or_half_of_a_short_text(new: int, samples: int, adds: bool) -> None:
    assert rules.adds_text(new, samples) is adds


async def test_a_held_page_whose_links_added_is_kept_at_once(store: FrontierStore) -> None:
    """A catalogue page with no text of its own, whose links led to new pages: it added."""
    await store.start("crawl", max_pages=10, max_bytes=10**6, deadline=60)
    await _hold(store, "crawl", "list/1", "list/0")
    await _hold(store, "crawl", "list/2", "list/0")
    entry = Entry("list/2", f"http://{HOST}/list/2", HOST, pattern="list/0")
    item = Entry("item/1", f"http://{HOST}/item/1", HOST, 1, pattern="item/0")
    await store.add("crawl", [replace(entry, priority=-2)])
    assert (await store.claim("crawl", "w", lease=30)).entry is not None
    verdict = Verdict("list/0", new_text=False, held=f"http://{HOST}/list/2")
    await store.done("crawl", entry.key, "w", links=[item], verdict=verdict)
    assert await _outcomes(store, "crawl") == [("page", f"http://{HOST}/list/2")]


def test_a_view_must_add_a_sentence_to_the_resource_it_shows():
    assert rules.resource_scope("s.test/guide/*?print", "http://s.test/guide/vat?print=1") == (
        "s.test/**/vat"  # the pattern of /guide/vat itself (order.path_pattern)
    )
    assert rules.resource_scope("s.test/notes/0", "http://s.test/notes/3") is None
    # at its own path, text new to its pattern is new
    assert rules.holds_new_text("s.test/notes/0", 4, 8)
    # a view (a print copy) shows text read at its resource's own URL
    assert not rules.holds_new_text("s.test/guide/*?print", 8, 8, 0)
    # and a short echo (a count, a sort's name) is not a sentence
    assert not rules.holds_new_text("s.test/*?sort", 1, 2, 1)
    assert rules.holds_new_text("s.test/*?page", 6, 8, rules.NEW_TEXT_SAMPLES)


def test_a_page_under_another_path_is_judged_against_the_page_at_its_tail():
    # a relative link's loop copy (/about/services/contact/) shows the page read at /contact/
    assert rules.resource_scope("s.test/**/contact/", "http://s.test/a/b/contact/") == (
        "s.test/contact/"
    )
    # most of its text read there and less than a sentence new: a copy, its links not followed
    assert rules.is_copy(2, 8)
    assert not rules.is_copy(rules.NEW_TEXT_SAMPLES, 8)  # a sentence of its own
    assert not rules.is_copy(0, 0)  # a page of links only (a class's index) copies nothing
    assert not rules.is_copy(None, 8)  # it shows no resource
    copy = Admission(held=True, copy=True)
    assert not rules.follows_links("s.test/**/contact/", copy)
    assert rules.follows_links("s.test/guide/*?print", copy)  # a view's links are followed
    assert rules.follows_links("s.test/**/contact/", Admission(held=True))


def test_a_page_that_may_copy_its_resource_waits_while_that_page_is_read():
    now = time.time()
    budget = rules.Budget(deadline=now + 60, max_pages=10, max_bytes=10**6)
    entry = Entry("k", "http://s.test/a/contact/", "s.test", 2, pattern="s.test/**/contact/")
    host = rules.Host(known=True)
    waiting = rules.Candidate(entry, host, rules.Pattern(), resource_claimed=1)
    assert rules.claim(budget, 1, [waiting], now).claim == Claim(wait=HOST_BUSY_WAIT)
    free = rules.Candidate(entry, host, rules.Pattern())
    assert rules.claim(budget, 1, [free], now).claim == Claim(entry=entry)


def test_a_view_is_new_against_the_views_of_its_own_resource():
    # a session's view of a product is judged with the other views of that product only
    scope = rules.text_scope("s.test/item/*?sid", "http://s.test/item/6?sid=00f778")
    assert scope == rules.text_scope("s.test/item/*?sid", "http://s.test/item/6?sid=015445")
    assert scope != rules.text_scope("s.test/item/*?sid", "http://s.test/item/7?sid=00f778")
    assert rules.text_scope("s.test/notes/0", "http://s.test/notes/3") == "s.test/notes/0"
