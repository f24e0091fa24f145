"""Usage meters: what a request or a job spent (searches by provider, pages, tokens).

Counting happens once, in the library: SearchService admits and charges each search sent to
a provider, the Fetcher each page downloaded, the LLM its tokens — to every meter bound in
the current context (`metering`). A job binds its own meter (saved with its checkpoints, so
a resumed job keeps counting) and its client's; the HTTP server binds the caller's. A meter's
`limit` runs before each search and may refuse it (a quota, a per-request cap), and its
`record` after each charge (a ledger per API key, metrics). So work done through any door —
search, batch, research, chat — is limited and counted the same way.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..errors import BudgetExhausted

__all__ = [
    "Billing",
    "Usage",
    "admit_search",
    "bind",
    "caller_key",
    "charge_page",
    "charge_search",
    "charge_tokens",
    "metering",
    "prepay",
    "reserve_search",
]

Limit = Callable[["Usage"], Awaitable[None]]
Release = Callable[["Usage"], Awaitable[None]]  # a search admitted by `limit` never went out
Record = Callable[[str, int], Awaitable[None]]  # (field, amount): "search:<provider>", "pages"…


@dataclass
class Usage:
    """Counts for one scope (a request, a job), with its optional limit and record hooks.

    `key` names the client it is charged to (an API key's fingerprint), if any; `prepaid`
    searches were already taken from a quota (a batch admits all its queries at once)."""

    searches: dict[str, int] = field(default_factory=dict)
    pages: int = 0
    tokens: int = 0
    key: str | None = None
    limit: Limit | None = None
    record: Record | None = None
    release: Release | None = None
    prepaid: int = 0
    admitted: int = 0  # searches let through `limit` (some may still be on their way)

    @property
    def total_searches(self) -> int:
        return sum(self.searches.values())

    def to_dict(self) -> dict[str, Any]:
        return {
            "searches": self.total_searches,
            "searches_by_provider": dict(sorted(self.searches.items())),
            "pages": self.pages,
            "tokens": self.tokens,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any], **hooks: Any) -> Usage:
        searches = {str(k): int(v) for k, v in data.get("searches_by_provider", {}).items()}
        return cls(
            searches=searches,
            pages=int(data.get("pages", 0)),
            tokens=int(data.get("tokens", 0)),
            admitted=sum(searches.values()),
            **hooks,
        )


_meters: ContextVar[tuple[Usage, ...]] = ContextVar("netsift_usage", default=())


@contextmanager
def metering(usage: Usage, *, alone: bool = False) -> Iterator[Usage]:
    """Charge everything done in this context (and tasks started from it) to `usage` too;
    `alone`: to `usage` only (a job started by a request is charged by its own meter, not
    also by the request's, which its task inherited)."""
    token = _meters.set((usage,) if alone else (*_meters.get(), usage))
    try:
        yield usage
    finally:
        _meters.reset(token)


def bind(usage: Usage) -> None:
    """`metering` for the rest of the current context (a request's dependency binds the
    caller's meter for the endpoint that follows it)."""
    _meters.set((*_meters.get(), usage))


def caller_key() -> str | None:
    """The client the current work is charged to (the innermost meter with a key)."""
    for usage in reversed(_meters.get()):
        if usage.key is not None:
            return usage.key
    return None


def prepay(searches: int) -> None:
    """The current client's quota already paid for these searches (a batch is admitted
    whole, before it starts): their admission does not take from it again."""
    for usage in reversed(_meters.get()):
        if usage.key is not None:
            usage.prepaid += searches
            return


async def admit_search() -> None:
    """Before a search is sent to a provider: every bound meter's limit may refuse it."""
    for usage in _meters.get():
        if usage.limit is not None:
            await usage.limit(usage)


# The reservations of the searches under way in this context: how many requests each sent.
_sent: ContextVar[list[int] | None] = ContextVar("netsift_search_sent", default=None)


@asynccontextmanager
async def reserve_search() -> AsyncIterator[None]:
    """Admit a search (`admit_search`) for the work inside; if no request went out to a
    provider within it (every provider skipped by its breaker or rate limit, no time left,
    cancelled while waiting), the admission is released: the quota and the per-request cap
    get the search back, as nothing was spent."""
    meters = _meters.get()
    await admit_search()
    sent = [0]
    token = _sent.set(sent)
    try:
        yield
    finally:
        _sent.reset(token)
        if not sent[0]:
            for usage in meters:
                if usage.release is not None:
                    await usage.release(usage)


async def _charge(field_name: str, amount: int) -> None:
    for usage in _meters.get():
        if usage.record is not None:
            await usage.record(field_name, amount)


async def charge_search(provider: str) -> None:
    """A request sent to a search provider (a cached answer costs nothing)."""
    if (sent := _sent.get()) is not None:
        sent[0] += 1
    for usage in _meters.get():
        usage.searches[provider] = usage.searches.get(provider, 0) + 1
    await _charge(f"search:{provider}", 1)


async def charge_page() -> None:
    """A page downloaded on the client's behalf (robots.txt and cached pages are free)."""
    for usage in _meters.get():
        usage.pages += 1
    await _charge("pages", 1)


async def charge_tokens(tokens: int) -> None:
    if tokens <= 0:
        return
    for usage in _meters.get():
        usage.tokens += tokens
    await _charge("tokens", tokens)


class _Ledger(Protocol):
    async def add(self, key: str, field: str, amount: int) -> None: ...


Observer = Callable[[str, str, int], None]  # (client label, field, amount): metrics


@dataclass
class Billing:
    """How a host limits and records what its clients spend; `meter` makes one meter.

    `quota(key, n)` takes n searches from a client's quota (or raises QuotaExceeded),
    `unquota(key, n)` gives back n that were never sent; `search_cap` is the most searches
    one request or one job may send; `ledger` keeps the per-client totals; `observers` see
    every charge (the server's metrics)."""

    ledger: Callable[[], _Ledger] | None = None
    quota: Callable[[str, int], Awaitable[None]] | None = None
    unquota: Callable[[str, int], Awaitable[None]] | None = None
    search_cap: int | None = None
    observers: list[Observer] = field(default_factory=list)

    def meter(
        self,
        key: str | None,
        *,
        label: str | None = None,
        prepaid: int = 0,
        spent: dict[str, Any] | None = None,
        persist: Callable[[dict[str, Any]], Awaitable[None]] | None = None,
    ) -> Usage:
        """`persist` keeps the meter's counts before each charge is recorded (a job saves
        them in its store, before the request it pays for is sent)."""
        cap, quota, ledger, observers = self.search_cap, self.quota, self.ledger, self.observers
        unquota = self.unquota

        async def limit(usage: Usage) -> None:
            # Counted at admission, not at sending: parallel searches cannot all slip past.
            if cap is not None and usage.admitted >= cap:
                raise BudgetExhausted(
                    f"one request may send at most {cap} searches (NETSIFT_MAX_SEARCHES_PER_"
                    "REQUEST); this one has sent them all",
                    details={"limit": cap, "used": usage.admitted},
                )
            if usage.prepaid > 0:
                usage.prepaid -= 1
            elif key is not None and quota is not None:
                await quota(key, 1)
            usage.admitted += 1

        async def release(usage: Usage) -> None:
            usage.admitted -= 1
            if key is not None and unquota is not None:
                await unquota(key, 1)

        async def record(field_name: str, amount: int) -> None:
            if persist is not None:
                await persist(made.to_dict())
            if key is not None and ledger is not None:
                await ledger().add(key, field_name, amount)
            for observe in observers:
                observe(label or key or "anonymous", field_name, amount)

        hooks: dict[str, Any] = {
            "key": key,
            "limit": limit,
            "release": release,
            "record": record,
            "prepaid": prepaid,
        }
        made = Usage.from_dict(spent or {}, **hooks)
        return made
