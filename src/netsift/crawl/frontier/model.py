"""The crawl frontier's contract: what a claim hands out, what an admission answers, and
the store protocol both backends (sqlite.py, redis.py) keep; what they decide is rules.py's."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol

__all__ = ["Admission", "Claim", "Entry", "FrontierStore", "ResultKind", "Verdict"]

ResultKind = Literal["page", "skipped"]


@dataclass(frozen=True)
class Entry:
    """A URL in the frontier: its canonical key, the URL to ask, how it was reached."""

    key: str
    url: str
    host: str
    depth: int = 0
    priority: float = 0.0
    parent: str | None = None
    tries: int = 0
    # The URL's path pattern (crawl/frontier.py): the frontier holds a pattern to the
    # requests its record earns and hands out a trap's URLs as `trapped`. "" for none.
    pattern: str = ""


@dataclass(frozen=True)
class Claim:
    """What a claim got: an entry, or how long to wait (hosts busy, others in flight), or
    neither: the crawl is over (nothing pending, nothing in flight, or stopped). `trapped`:
    the entry's pattern is a trap; it is not to be asked for, only ended (`done`)."""

    entry: Entry | None = None
    wait: float | None = None
    trapped: bool = False

    @property
    def over(self) -> bool:
        return self.entry is None and self.wait is None


@dataclass(frozen=True)
class Admission:
    """A page offered to the crawl: kept as result `n` (`new_text`: it holds text new to its
    path pattern), or `held` (it holds none: kept once its pattern is judged, rules.holds),
    or a duplicate of `duplicate_of`, or refused because the crawl's page budget is spent.
    `copy`: it adds no sentence to the page of the resource it may show (rules.is_copy)."""

    n: int | None = None
    duplicate_of: str | None = None
    full: bool = False
    new_text: bool = False
    held: bool = False
    copy: bool = False


@dataclass(frozen=True)
class Verdict:
    """What a page read gave its path pattern: new text or not (its new links to other
    patterns are counted where they are queued); rules.judged keeps the record. `held`: the
    URL the page was held under (rules.holds), kept at once when its links added."""

    pattern: str
    new_text: bool
    held: str | None = None


class FrontierStore(Protocol):
    async def start(self, crawl: str, *, max_pages: int, max_bytes: int, deadline: float) -> float:
        """Record the crawl's budgets once (a resumed crawl keeps its first); its start time."""
        ...

    async def add(self, crawl: str, entries: list[Entry], *, state: str = "pending") -> int:
        """Queue the entries not seen before; how many were new. `state="refused"` records
        URLs a crawl will not read, so each refusal is reported once."""
        ...

    async def claim(self, crawl: str, worker: str, *, lease: float) -> Claim:
        """What `rules.claim` answers over the best pending entries: an entry its host and
        its path pattern allow now, or one of a trap (`trapped`: no request to be made)."""
        ...

    async def host_policy(self, crawl: str, host: str, *, delay: float, concurrency: int) -> None:
        """Set a host's politeness (from its robots.txt), once for the crawl."""
        ...

    async def pause_host(self, crawl: str, host: str, seconds: float) -> None: ...
    async def release_host(self, crawl: str, key: str, worker: str) -> None:
        """The claimed entry's request has ended (its body is in): it no longer counts against
        its host's concurrency, and the host's delay counts from now. The claim itself holds
        (its lease, its place in `max_pages` in flight, its end by `done` or `retry`)."""
        ...

    async def retry(self, crawl: str, key: str, worker: str) -> None:
        """Hand a claimed entry back (429/503): it is claimed again after its host's pause."""
        ...

    async def done(
        self,
        crawl: str,
        key: str,
        worker: str,
        *,
        links: list[Entry] | None = None,
        refused: list[tuple[Entry, dict[str, Any]]] | None = None,
        skipped: dict[str, Any] | None = None,
        verdict: Verdict | None = None,
        beyond: list[str] | None = None,
    ) -> None:
        """End a claim; in the same transaction queue the page's `links`, record its
        `refused` ones (each as a `skipped` result with its data, the first time it is met)
        and note the keys of its links `beyond` the crawl's depth (counted, never read), so
        a page costs one round trip after its admission, and the crawl never looks over while
        the links of a page read are not queued yet. `skipped`: the entry was not kept, and
        this is its `skipped` result (its `url` names it). `verdict`: the page is judged for
        its pattern — it added when it held new text or its links queued new URLs of another
        pattern (rules.judged); when it added and the pattern is vouched for, the pattern's
        held pages are kept (its own too)."""
        ...

    async def admit(
        self,
        crawl: str,
        *,
        keys: list[str],
        url: str,
        content_hash: str,
        bands: list[int],
        sketch: int | None,
        size: int,
        page: dict[str, Any],
        pattern: str = "",
        sample: list[int] | None = None,
    ) -> Admission:
        """Keep the page unless its content or URL was seen or the page budget is spent; its
        text `sample` (dedupe.text_sample) is added to its `pattern`'s, and `new_text` says
        whether enough of it was new (rules.adds_text). A page of a pattern with no new text
        is held, not kept (rules.holds): `done` keeps the pattern's held pages once its pages
        show it is no trap (rules.vouched), `settle` decides the rest."""
        ...

    async def settle(self, crawl: str) -> None:
        """At the crawl's end (nothing in flight): each held page kept, or dropped as its
        trap's (a `skipped` result, code `trap`), as rules.held_fate says."""
        ...

    async def record(self, crawl: str, kind: ResultKind, url: str, data: dict[str, Any]) -> int:
        """Store a non-page outcome (a skipped URL) in the results stream; its number."""
        ...

    async def results(
        self, crawl: str, *, since: int = 0, limit: int = 100, kind: ResultKind | None = None
    ) -> list[tuple[int, ResultKind, dict[str, Any]]]: ...
    async def stop(self, crawl: str, reason: str) -> None:
        """No more claims (a budget ran out, or the crawl was cancelled); the first reason wins."""
        ...

    async def in_flight(self, crawl: str) -> int:
        """Entries claimed now (by any worker): what a crawl's end waits for."""
        ...

    async def status(self, crawl: str) -> dict[str, Any]:
        """pages, bytes, pending, in_flight, seen (entries, those refused too), stopped
        (reason or None), traps (the patterns found to be traps, sorted), trapped (their URLs
        ended unread), beyond_depth (links past the depth never queued at a lesser one)."""
        ...

    async def aclose(self) -> None: ...
