"""SearchService: validate → cache → breaker and limits → providers (failover or merge) → attempts.

    service = SearchService(settings, http)
    found = await service.search("rust async runtimes", count=5)
    found.provider, [a.error_code for a in found.attempts]

Failover walks the providers in priority order and stops at the first with results; an
honest "no results" moves on too, in case the next one knows better. Merge mode asks them
all at once and fuses the lists (`rank.py`). Every response carries one Attempt per provider
tried, so a failure is never silent; when nobody answered, `AllProvidersFailed` carries them.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import anyio

from ..config import Settings
from ..errors import (
    AllProvidersFailed,
    BudgetExhausted,
    ConfigError,
    InvalidInput,
    NetsiftError,
)
from ..models import Attempt, Query, SafeSearch, SearchResponse, SearchResult, TimeRange
from ..net.request_id import request_id_var
from ..search.cache import Cache, cache_key, open_cache
from ..usage import reserve_search
from .batch import BatchItem
from .breaker import Breaker
from .provider import Provider
from .rank import merge_results
from .ratelimit import RateLimiter
from .validate import build_query, check_providers

if TYPE_CHECKING:  # the HTTP stack loads with the first provider asked, never on a cache hit
    from ..net.http import HttpClient
    from .failover import Outcome, ProviderCaller

__all__ = ["SearchService"]

log = logging.getLogger(__name__)
BATCH_CONCURRENCY = 16


class SearchService:
    """Searches across the configured providers; one instance per Client (one "session")."""

    def __init__(
        self,
        settings: Settings,
        http: HttpClient | Callable[[], HttpClient],
        *,
        providers: Mapping[str, Provider] | None = None,
        cache: Cache | None = None,
        breaker: Breaker | None = None,
        limiter: RateLimiter | None = None,
        clock: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.settings = settings
        if providers is None:
            from .registry import Providers

            providers = Providers(settings)  # each built at its first use
        self.providers: Mapping[str, Provider] = providers
        self.cache = cache or open_cache(
            settings.effective_cache_url(),
            ttl=settings.cache_ttl,
            max_entries=settings.cache_max_entries,
            clock=clock,
        )
        self.breaker = breaker or Breaker(clock=clock)
        self.limiter = limiter or RateLimiter.from_settings(settings)
        self._monotonic = monotonic
        self._http = http  # or what builds it (the Client's), called with the first provider
        self._provider_caller: ProviderCaller | None = None
        self.searches = 0  # searches started by this instance (the session budget)

    @property
    def _caller(self) -> ProviderCaller:
        if self._provider_caller is None:
            from .failover import ProviderCaller

            http = self._http if not callable(self._http) else self._http()
            self._provider_caller = ProviderCaller(
                http, self.breaker, self.limiter, monotonic=self._monotonic
            )
        return self._provider_caller

    async def search(
        self,
        query: str,
        *,
        count: int = 10,
        providers: list[str] | None = None,
        merge: bool = False,
        time_range: TimeRange | None = None,
        region: str | None = None,
        safesearch: SafeSearch = "moderate",
        no_cache: bool = False,
    ) -> SearchResponse:
        """Search with failover (or merged across providers with `merge=True`).

        `no_cache` skips reading the cache but still stores the fresh answer. Raises
        InvalidInput, BudgetExhausted, or AllProvidersFailed (with `details.attempts`).
        """
        q = build_query(
            query, count=count, time_range=time_range, region=region, safesearch=safesearch
        )
        names = self._provider_names(providers)
        self._spend(1)
        return await self._search(q, names, merge=merge, no_cache=no_cache)

    async def batch_search(
        self,
        queries: list[str],
        *,
        count: int = 10,
        providers: list[str] | None = None,
        merge: bool = False,
        time_range: TimeRange | None = None,
        region: str | None = None,
        safesearch: SafeSearch = "moderate",
        no_cache: bool = False,
    ) -> list[BatchItem]:
        """Run the queries concurrently; items in input order, each a response or an error.

        The whole batch is refused with BudgetExhausted, before any search starts, when it
        asks for more than `max_searches_per_request` or more than the session has left.
        """
        names = self._provider_names(providers)
        cap = self.settings.max_searches_per_request
        if len(queries) > cap:
            raise BudgetExhausted(
                f"a batch may hold at most {cap} searches; this one has {len(queries)}",
                details={"limit": cap, "requested": len(queries)},
            )
        self._spend(len(queries))
        items: list[BatchItem | None] = [None] * len(queries)
        gate = anyio.CapacityLimiter(BATCH_CONCURRENCY)

        async def one(index: int, text: str) -> None:
            async with gate:
                try:
                    q = build_query(
                        text,
                        count=count,
                        time_range=time_range,
                        region=region,
                        safesearch=safesearch,
                    )
                    response = await self._search(q, names, merge=merge, no_cache=no_cache)
                    items[index] = BatchItem(query=text, response=response)
                except NetsiftError as error:
                    items[index] = BatchItem.failed(text, error)

        async with anyio.create_task_group() as group:
            for index, text in enumerate(queries):
                group.start_soon(one, index, text)
        return [item for item in items if item is not None]

    def _provider_names(self, providers: list[str] | None) -> list[str]:
        names = check_providers(providers, self.providers)
        if names is None:
            try:
                names = check_providers(self.settings.providers, self.providers)
            except InvalidInput as exc:  # the operator's list, not the caller's input
                raise ConfigError(
                    f"NETSIFT_PROVIDERS: {exc.message}",
                    details={"key": "NETSIFT_PROVIDERS", **exc.details},
                ) from None
        assert names is not None
        return names

    def _spend(self, searches: int) -> None:
        cap = self.settings.max_searches_per_session
        if self.searches + searches > cap:
            raise BudgetExhausted(
                f"this session may run {cap} searches; {self.searches} are done and"
                f" {searches} more were asked",
                details={"limit": cap, "used": self.searches, "requested": searches},
            )
        self.searches += searches

    async def _search(
        self, q: Query, names: list[str], *, merge: bool, no_cache: bool
    ) -> SearchResponse:
        started = self._monotonic()
        key = cache_key(
            q.text,
            providers=names,
            count=q.count,
            merge=merge,
            time_range=q.time_range,
            region=q.region,
            safesearch=q.safesearch,
        )
        if not no_cache and (hit := await self._cache_get(key)) is not None:
            return hit.model_copy(
                update={
                    "cached": True,
                    "search_time_ms": self._elapsed_ms(started),
                    "request_id": request_id_var.get(),
                }
            )
        deadline = started + self.settings.timeout
        # The caller's quota and per-request cap, for every door; given back if no provider
        # was asked after all.
        async with reserve_search():
            if merge:
                response = await self._merged(q, names, deadline)
            else:
                response = await self._failover(q, names, deadline)
        response = response.model_copy(
            update={"search_time_ms": self._elapsed_ms(started), "request_id": request_id_var.get()}
        )
        if response.results or all(attempt.ok for attempt in response.attempts):
            await self._cache_set(key, response)
        return response

    async def _failover(self, q: Query, names: list[str], deadline: float) -> SearchResponse:
        attempts: list[Attempt] = []
        for index, name in enumerate(names):
            # A provider that hangs may use its share of the time left, not all of it: the
            # ones after it must still get their turn within the search's deadline.
            now = self._monotonic()
            share = now + (deadline - now) / (len(names) - index)
            outcome = await self._caller.ask(self.providers[name], q, min(deadline, share))
            attempts.append(outcome.attempt)
            if outcome.results:
                return _response(q, outcome.results, name, attempts)
        return _empty_or_failed(q, attempts)

    async def _merged(self, q: Query, names: list[str], deadline: float) -> SearchResponse:
        outcomes: dict[str, Outcome] = {}

        async def ask(name: str) -> None:
            outcomes[name] = await self._caller.ask(self.providers[name], q, deadline)

        async with anyio.create_task_group() as group:
            for name in names:
                group.start_soon(ask, name)
        attempts = [outcomes[name].attempt for name in names]
        by_provider = {name: outcomes[name].results or [] for name in names}
        contributors = [name for name in names if by_provider[name]]
        if not contributors:
            return _empty_or_failed(q, attempts)
        results = merge_results(q.text, by_provider, count=q.count)
        return _response(q, results, ",".join(contributors), attempts)

    async def _cache_get(self, key: str) -> SearchResponse | None:
        """A broken cache (Redis down, disk full) degrades to no cache, never to an error."""
        try:
            value = await self.cache.get(key)
            return None if value is None else SearchResponse.model_validate_json(value)
        except Exception:
            log.warning("search cache read failed; searching without it", exc_info=True)
            return None

    async def _cache_set(self, key: str, response: SearchResponse) -> None:
        try:
            await self.cache.set(key, response.model_dump_json())
        except Exception:
            log.warning("search cache write failed; the answer is not cached", exc_info=True)

    def _elapsed_ms(self, started: float) -> float:
        return round((self._monotonic() - started) * 1000, 3)

    def provider_status(self) -> list[dict[str, Any]]:
        """One row per known provider for `netsift providers` and `/v1/info`.

        Enabled providers first, in priority order; then the others by name.
        """
        enabled = [name for name in self.settings.providers if name in self.providers]
        rest = sorted(name for name in self.providers if name not in enabled)
        rows = []
        for name in [*enabled, *rest]:
            provider = self.providers[name]
            rows.append(
                {
                    "name": name,
                    "kind": provider.about.kind,
                    "configured": provider.configured(),
                    "needs": None if provider.configured() else provider.missing(),
                    "enabled": name in enabled,
                    "priority": enabled.index(name) + 1 if name in enabled else None,
                    "rate_limit": self.limiter.limit_for(name, provider.about.rate_limit),
                    "website": provider.about.website,
                    "breaker": self.breaker.state(name),
                }
            )
        return rows

    async def cache_stats(self) -> dict[str, Any]:
        """`{backend, hits, misses, entries, max_entries, ttl}`."""
        return (await self.cache.stats()).as_dict()

    async def aclose(self) -> None:
        await self.cache.aclose()
        await self.limiter.aclose()


def _response(
    q: Query, results: list[SearchResult], provider: str | None, attempts: list[Attempt]
) -> SearchResponse:
    return SearchResponse(
        query=q.text,
        results=results,
        provider=provider,
        result_count=len(results),
        attempts=attempts,
    )


def _empty_or_failed(q: Query, attempts: list[Attempt]) -> SearchResponse:
    """No results anywhere: honest emptiness if any provider answered, else a failure."""
    from .failover import CONFIG_CODES  # a provider was asked: the HTTP stack is loaded

    if any(attempt.ok for attempt in attempts):
        return _response(q, [], None, attempts)
    details: dict[str, Any] = {"attempts": [attempt.model_dump() for attempt in attempts]}
    if attempts and all(a.error_code in CONFIG_CODES for a in attempts):
        # Nothing was wrong with the network or the providers: only configuration is.
        said = "; ".join(a.message or f"{a.provider}: {a.error_code}" for a in attempts)
        raise ConfigError(f"no provider asked could search: {said}", details=details)
    summary = "; ".join(f"{a.provider}: {a.error_code} ({a.message})" for a in attempts)
    if _network_down(attempts):
        # One short line for the commonest first failure; the attempts stay in the details.
        codes = ", ".join(sorted({str(a.error_code) for a in attempts}))
        summary = (
            f"the network looks unreachable: {', '.join(a.provider for a in attempts)} could "
            f"not be reached ({codes}). Check the connection, or point netsift at a provider "
            "you can reach (NETSIFT_PROVIDERS; `netsift providers` lists them)"
        )
        details["network"] = "unreachable"
        raise AllProvidersFailed(summary, details=details, retryable=True)
    waits = [a.retry_after for a in attempts if a.retry_after is not None]
    if waits:
        details["retry_after"] = min(waits)  # the soonest any provider may be asked again
    # Worth retrying if any provider's failure may pass (a timeout, a rate limit); not when
    # every one failed for a reason that will hold (a refused key, a used-up quota).
    retryable = any(a.retryable is not False for a in attempts)
    raise AllProvidersFailed(
        f"every provider failed for {q.text!r}: {summary}", details=details, retryable=retryable
    )


# Attempt codes that mean "no answer came back at all". When every provider failed this way
# (and at least one could not even connect or resolve), the likely cause is the network.
_UNREACHABLE = frozenset({"dns_error", "connect_error"})
_NO_ANSWER = _UNREACHABLE | {"timeout"}


def _network_down(attempts: list[Attempt]) -> bool:
    codes = {a.error_code for a in attempts}
    return bool(codes) and codes <= _NO_ANSWER and bool(codes & _UNREACHABLE)
