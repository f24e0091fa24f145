"""The crawl's rules, written once; pure. Both frontier backends (sqlite.py, redis.py) load
the rows a decision needs, call these functions and write back what they answer, in one
transaction (SQLite) or one guarded write (Redis), so what a claim, an admission or a trap
means never depends on which backend runs.

- A **budget** (`Budget`) stops claims when its time, bytes or pages are spent, and holds
  claims back while the pages in flight could fill the rest of it.
- A **host slot** (`Host`) is free when fewer of the host's requests are under way than it
  allows (one until its robots.txt is read) and its delay since the last request has passed.
- A **path pattern** (`Pattern`) is judged by what its pages hold: a page *adds* when it
  holds new text (`adds_text`) or links to new URLs of other paths (`other_patterns`); it
  adds nothing when it is a duplicate, or empty, or its only news is links to more of its
  own pattern (a calendar's next month). A pattern earns requests in flight by the pages that add
  (`pattern_allowance`), and is a trap when most of its last pages added nothing, and as
  many of all its pages (`is_trap`): its entries are then handed out to be ended, never asked for.
- A crawl's **ending** (`endings`) names every reason it ended short of the whole site: the
  budget or cancellation that stopped it, `trap` when a trap's URLs were left unread,
  `max_depth` when links were left beyond the depth; `done` only when none did.
- An **admission** keeps a page unless one of its URLs or its exact text was kept before, its
  sketch is within a few bits of a kept page's (dedupe.py), or the page budget is spent; a
  page of a pattern that holds no new text is *held* (`holds`), not kept yet: it is kept once
  its pattern's pages show it is no trap (`vouched`), or at the crawl's end when its pattern
  is no trap, and dropped as the trap's when it is one (`held_fate`). So a trap's pages read
  while it was being judged are never among the pages a crawl returns.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable
from dataclasses import dataclass, replace
from typing import Any, Literal
from urllib.parse import urlsplit

from ..dedupe import is_near_duplicate
from ..politeness import DEFAULT_CONCURRENCY
from ..scope import canonical_url, site_host
from .model import Admission, Claim, Entry, Verdict
from .order import ANY_SEGMENTS, is_tail, is_view, path_pattern, pattern_path

__all__ = [
    "CLAIM_WINDOW",
    "HOST_BUSY_WAIT",
    "IN_FLIGHT_WAIT",
    "NEW_TEXT_SAMPLES",
    "TRAP_MIN_PAGES",
    "TRAP_SHARE",
    "TRAP_WINDOW",
    "Budget",
    "Candidate",
    "ClaimDecision",
    "HeldFate",
    "Host",
    "Pattern",
    "StopReason",
    "adds_text",
    "admission",
    "budget_stop",
    "claim",
    "claimed",
    "dropped",
    "endings",
    "follows_links",
    "held_fate",
    "holds",
    "holds_new_text",
    "host_slots",
    "host_wait",
    "is_copy",
    "is_trap",
    "judged",
    "other_patterns",
    "page_added",
    "pattern_allowance",
    "paused",
    "resource_scope",
    "rested",
    "text_scope",
    "vouched",
    "window_is_trap",
    "with_policy",
]

# How many of the best pending rows a claim looks at for one whose host is free: enough to
# skip past a busy host's queue, few enough to keep the claim one short transaction.
CLAIM_WINDOW = 64
# How long a claim that found every host's slots taken says to wait, and one that found
# nothing pending while pages are in flight: the longest a worker waits for a slot freed or
# links added *by another process* (its own tasks wake each other at once, crawl/crawler.py).
# Short: a 50 ms page frees a slot about every 6 ms when 8 are in flight.
HOST_BUSY_WAIT = 0.05
IN_FLIGHT_WAIT = 0.1
# A page holds new text when at least this many of its sampled windows (dedupe.py's text
# sample: six-word windows, one in four) are new to its pattern: about sixteen new windows, a
# sentence or more. A month's page that differs from the others in its heading's month name has
# seven or eight new windows (two sampled, on average).
NEW_TEXT_SAMPLES = 4
# A pattern is a trap when, of its last TRAP_WINDOW pages judged (at least TRAP_MIN_PAGES),
# TRAP_SHARE or more added nothing, and as many of all its pages added nothing as added
# (`is_trap`). Over a window, so a few duplicates among hundreds of good pages never make
# one; a share, so a calendar whose first pages were alike is found after four, and one whose
# months had events after a dozen empty ones; and over its whole history, so a blog of a
# hundred short posts, whose later posts more and more repeat phrases of the earlier ones
# (half of them add nothing), is read whole: a real pattern that turns into a trap (an
# endless tail of empty pages) costs at most as many pages again as it had real ones.
TRAP_WINDOW = 16
TRAP_MIN_PAGES = 4
TRAP_SHARE = 0.75

StopReason = Literal["time", "max_bytes", "max_pages", "trap"]


@dataclass(frozen=True)
class Budget:
    """A crawl's budgets and what it has spent of them."""

    deadline: float
    max_pages: int
    max_bytes: int
    pages: int = 0
    bytes: int = 0
    stopped: str | None = None
    trapped: int = 0  # URLs handed out as a trap's, to be ended unread


def budget_stop(budget: Budget, now: float) -> StopReason | None:
    """The budget that ran out (time first, then bytes, then pages), or None."""
    if now >= budget.deadline:
        return "time"
    if budget.bytes >= budget.max_bytes:
        return "max_bytes"
    if budget.pages >= budget.max_pages:
        return "max_pages"
    return None


@dataclass(frozen=True)
class Host:
    """A host's politeness (`known` once its robots.txt was read), its next allowed
    request time and its requests under way (`busy`)."""

    delay: float = 0.0
    concurrency: int = DEFAULT_CONCURRENCY  # until `known`, one (host_wait)
    next_at: float = 0.0
    known: bool = False
    busy: int = 0


def host_slots(host: Host) -> int:
    """Requests the host may have under way at once: one until its robots.txt is read."""
    return host.concurrency if host.known else 1


def host_wait(host: Host, now: float) -> float | None:
    """None when the host may be asked now, else how long to wait. A host whose robots.txt
    was not read yet gets one request (the one that reads it), so its Crawl-delay governs
    every later one."""
    if host.busy >= host_slots(host):
        return HOST_BUSY_WAIT
    if host.next_at > now:
        return host.next_at - now
    return None


def _waits(host: Host) -> bool:
    """Whether the host's next time matters: it has a delay, or its robots.txt (which may
    set one, counted from this request) is not read yet."""
    return host.delay > 0 or not host.known


def claimed(host: Host, now: float) -> Host | None:
    """The host after a request to it starts now (None: nothing of it changes)."""
    return replace(host, next_at=now + host.delay) if _waits(host) else None


def rested(host: Host, now: float) -> Host | None:
    """The host after a request to it ended now (None: nothing changes): its delay counts
    from the end too, so a download that took long (or waited out a Retry-After) does not
    let the next start at once."""
    return replace(host, next_at=max(host.next_at, now + host.delay)) if _waits(host) else None


def paused(host: Host, until: float) -> Host:
    """The host answered 429/503: no request before `until`."""
    return replace(host, next_at=max(host.next_at, until))


def with_policy(host: Host, delay: float, concurrency: int) -> Host:
    """The host's politeness from its robots.txt. Its first request was timed with no delay
    known yet: the next one waits the delay read since."""
    next_at = host.next_at if host.known else host.next_at - host.delay + delay
    return replace(host, delay=delay, concurrency=concurrency, known=True, next_at=next_at)


@dataclass(frozen=True)
class Pattern:
    """A path pattern's record: pages that added and that added nothing, entries claimed
    now, its last pages judged (`window`, oldest first: "1" added, "0" nothing), and
    whether it was found a trap (it stays one)."""

    added: int = 0
    empty: int = 0
    claimed: int = 0
    window: str = ""
    trap: bool = False


def adds_text(new_samples: int, samples: int) -> bool:
    """Whether a page whose text sample holds `samples` windows, `new_samples` of them new to
    its pattern, holds new text: NEW_TEXT_SAMPLES new ones (a sentence), or, for a short
    text with fewer than twice that, half of them (at least one). A short post of one new
    sentence among familiar phrases has three or four sampled windows, two of them new;
    a page of a template whose only change is a number or a name has none or one."""
    needed = max(1, min(NEW_TEXT_SAMPLES, math.ceil(samples / 2)))
    return new_samples >= needed


def resource_scope(pattern: str, url: str) -> str | None:
    """The pattern of the resource a page may only show, whose text sample it is judged
    against (`holds_new_text`): for a view (a URL with a query: order.is_view), its URL
    without the query (`/guide/vat` for `/guide/vat?print=1`); for a page of a path named by
    its last segment (order.is_tail), that segment alone (`/contact/` for
    `/about/services/contact/`: a relative link's copy of the page read there); None for any
    other page."""
    if is_view(pattern):
        return path_pattern(url.partition("?")[0])
    if is_tail(pattern):
        return pattern.replace(f"/{ANY_SEGMENTS}/", "/", 1)
    return None


def text_scope(pattern: str, url: str) -> str:
    """Where a page's text sample is kept and counted as new (`holds_new_text`): its path
    pattern, or, for a view, the views of its own resource (its URL without the query, not
    masked): a view of a resource no page showed yet holds that resource's text, however much
    of its template the views of sibling resources hold (a shop's product seen first under a
    session id, among products whose short texts share their phrases), while a second view of
    it (another session's, a print copy) adds nothing."""
    if not is_view(pattern):
        return pattern
    parts = urlsplit(canonical_url(url))
    return f"{site_host(url)}{parts.path}?"


def is_copy(new_in_resource: int | None, samples: int) -> bool:
    """Whether a page whose text sample holds `samples` windows shows the text read at the
    resource it may show (`resource_scope`; `new_in_resource` of its windows new to it, None:
    it shows none): some of its text was read there, and it adds less than a sentence
    (NEW_TEXT_SAMPLES windows). A page of links and no text of its own (a class's index of
    methods) is no copy of anything."""
    if new_in_resource is None:
        return False
    return samples > new_in_resource and new_in_resource < NEW_TEXT_SAMPLES


def follows_links(pattern: str, admission: Admission) -> bool:
    """Whether the links of an admitted page are followed: not those of a page of a path
    named by its tail (order.is_tail) that is a copy of the page at its tail (`is_copy`): a
    relative link's loop copy, whose links are the same relative links one level deeper —
    the loop itself. Its pattern, judged by these copies adding nothing, is a trap after a
    few of them, and the loop's queued URLs are ended unread."""
    return not (admission.copy and is_tail(pattern))


def holds_new_text(
    pattern: str, new_in_pattern: int, samples: int, new_in_resource: int | None = None
) -> bool:
    """Whether a page of `pattern` whose text sample holds `samples` windows, `new_in_pattern`
    of them new to its pattern, holds new text (`adds_text`). A view must also add a sentence
    (NEW_TEXT_SAMPLES) to the text of the resource it shows (`new_in_resource` windows new to
    its `resource_scope`): a print copy, a share page, a language's fallback to the original
    show the text read at the resource's own URL, and each is the first of its pattern for
    every resource. A sentence, not the short text's half: a view's own words are its
    template's, a count, a sort's name, an echoed query."""
    if not adds_text(new_in_pattern, samples):
        return False
    return new_in_resource is None or new_in_resource >= NEW_TEXT_SAMPLES


def pattern_allowance(added: int, empty: int) -> int:
    """Entries of one path pattern claimed at once: one until the pattern has yielded a
    page that added, then one more per such page, one fewer per page that added nothing
    (never less than one) — TCP's slow start for a pattern. A real section ramps up within a
    few pages; a calendar's months past the first are asked one at a time, so a trap is found
    after a few of them instead of after a burst."""
    return max(1, 1 + added - empty)


def other_patterns(
    links: Iterable[Entry], pattern: str | None, traps: Collection[str] = ()
) -> list[Entry]:
    """The links of a page of `pattern` (None: of none) that lead elsewhere (`page_added`
    counts the new ones): to another path, not the same path with other query keys (a
    faceted search's next filter: order.pattern_path), nor to a pattern found a trap (a
    session id's next copy of a page already read)."""
    own = pattern_path(pattern) if pattern is not None else None
    return [
        link for link in links if pattern_path(link.pattern) != own and link.pattern not in traps
    ]


def page_added(verdict: Verdict, new_elsewhere: int) -> bool:
    """Whether a page read added to its pattern: it held new text, or its links queued
    `new_elsewhere` URLs never seen of other patterns (a section's index). Links to more of
    its own pattern (a calendar's next month) are no news."""
    return verdict.new_text or new_elsewhere > 0


def window_is_trap(window: str) -> bool:
    return len(window) >= TRAP_MIN_PAGES and window.count("0") >= TRAP_SHARE * len(window)


def is_trap(window: str, added: int, empty: int) -> bool:
    """Whether a pattern whose last pages are `window`, `added` and `empty` of all its pages,
    is a trap: most of its last pages added nothing, and as many of all its pages."""
    return window_is_trap(window) and empty >= added


def vouched(record: Pattern) -> bool:
    """Whether a pattern's pages have shown it is no trap, so the pages of it held back are
    kept at once: TRAP_SHARE or more of a whole window of its last pages (TRAP_WINDOW) added.
    A pattern of mixed pages (a calendar with eight busy months among empty ones) holds its
    empty ones until the crawl's end, when `held_fate` decides."""
    window = record.window
    return (
        not record.trap
        and len(window) >= TRAP_WINDOW
        and window.count("1") >= TRAP_SHARE * len(window)
    )


def judged(record: Pattern, added: bool) -> Pattern:
    """The pattern's record after one more page judged (it added, or it added nothing)."""
    window = (record.window + ("1" if added else "0"))[-TRAP_WINDOW:]
    return replace(
        record,
        added=record.added + added,
        empty=record.empty + (not added),
        window=window,
        trap=record.trap or is_trap(window, record.added + added, record.empty + (not added)),
    )


@dataclass(frozen=True)
class Candidate:
    """A pending entry with its host and its pattern's record (None: it has no pattern), and
    the entries claimed now of the pattern of the resource it may show (`resource_scope`)."""

    entry: Entry
    host: Host
    pattern: Pattern | None = None
    resource_claimed: int = 0


@dataclass(frozen=True)
class ClaimDecision:
    """What a claim answers, and what the store writes for it: `stop` (a budget ran out),
    or the entry held — without a host slot when `claim.trapped`, else taking one, its host
    then `host` (None: unchanged)."""

    claim: Claim
    stop: StopReason | None = None
    host: Host | None = None


def claim(
    budget: Budget | None,
    held: int,
    candidates: Iterable[Candidate],
    now: float,
) -> ClaimDecision:
    """The claim over the best `candidates` (in queue order; read only as far as the one
    claimed) with `held` entries claimed."""
    if budget is None or budget.stopped is not None:
        return ClaimDecision(Claim())
    if (stop := budget_stop(budget, now)) is not None:
        return ClaimDecision(Claim(), stop=stop)
    if budget.pages + held >= budget.max_pages:
        return ClaimDecision(Claim(wait=HOST_BUSY_WAIT))  # the rest is being read
    soonest: float | None = None
    for candidate in candidates:
        record = candidate.pattern
        if record is not None and record.trap:
            return ClaimDecision(Claim(entry=candidate.entry, trapped=True))
        if record is not None and record.claimed >= pattern_allowance(record.added, record.empty):
            wait: float | None = HOST_BUSY_WAIT  # its pages in flight say if it earns more
        elif candidate.resource_claimed:
            # A page that may show its resource's is read after that page (`resource_scope`):
            # judged before it, a copy would be new text and the page itself its duplicate.
            wait = HOST_BUSY_WAIT
        else:
            wait = host_wait(candidate.host, now)
        if wait is None:
            return ClaimDecision(Claim(entry=candidate.entry), host=claimed(candidate.host, now))
        soonest = wait if soonest is None else min(soonest, wait)
    if soonest is not None:
        return ClaimDecision(Claim(wait=soonest))
    if held:
        return ClaimDecision(Claim(wait=IN_FLIGHT_WAIT))  # a page in flight may add links
    # Over: read whole, unless a trap's URLs were left unread.
    return ClaimDecision(Claim(), stop="trap" if budget.trapped else None)


def admission(
    *,
    seen: str | None,
    candidates: Iterable[tuple[int, str]],
    sketch: int | None,
    pages: int,
    max_pages: int,
) -> Admission | None:
    """Why a page is not kept, or None to keep it. `seen`: the page that holds one of its
    URLs or its exact text already; `candidates`: (sketch, url) of kept pages sharing a band
    with its sketch."""
    if seen is not None:
        return Admission(duplicate_of=seen)
    if sketch is not None:
        for other, url in candidates:
            if is_near_duplicate(other, sketch):
                return Admission(duplicate_of=url)
    if pages >= max_pages:
        return Admission(full=True)
    return None


def holds(pattern: str, new_text: bool) -> bool:
    """Whether an admitted page is held back rather than kept: it belongs to a path pattern
    and holds no text new to it. Such a page may be a trap's (a calendar's empty month, an
    archive's next page of the same list); it is kept only once its pattern shows it is none
    (`held_fate`), so that a trap's pages read while it was judged are never returned."""
    return bool(pattern) and not new_text


HeldFate = Literal["keep", "drop", "full"]


def held_fate(*, trap: bool, pages: int, max_pages: int) -> HeldFate:
    """What becomes of a held page once its pattern is judged — when it is `vouched`, or at
    the crawl's end: dropped when the pattern is a trap, else kept while the page budget
    has room (`full`: it has none; the page is not kept, as any page past the budget)."""
    if trap:
        return "drop"
    return "keep" if pages < max_pages else "full"


def dropped(pattern: str, held: dict[str, Any], url: str) -> dict[str, Any]:
    """The `skipped` result of a held page dropped as its trap's (`held`: the page's data as
    the crawler offered it; `url`: the URL it was kept under)."""
    page = held.get("page") or {}
    return {
        "url": page.get("url") or url,
        "code": "trap",
        "message": f"read and held back: it added no new text to its path pattern {pattern}, "
        "which is a trap",
        "depth": held.get("depth"),
    }


def endings(stopped: str | None, *, pending: int, trapped: int, beyond_depth: int) -> list[str]:
    """Why a crawl ended, every reason it ended short: `stopped` (the budget that ran out,
    `cancelled`, `trap`; None or `done`: nothing stopped it) — a budget only when it left
    `pending` URLs unread (one spent by the site's last page cut nothing short) — `trap` when
    `trapped` URLs of a trap were left unread, `max_depth` when `beyond_depth` URLs were;
    `["done"]` when the crawl read every URL it was allowed to."""
    budget = stopped in ("max_pages", "max_bytes", "time")
    reasons = [stopped] if stopped not in (None, "done") and (pending or not budget) else []
    if trapped and "trap" not in reasons:
        reasons.append("trap")
    if beyond_depth:
        reasons.append("max_depth")
    return [str(reason) for reason in reasons] or ["done"]
