"""Asking one provider, with every guard in front of it, and recording how it went.

`ProviderCaller.ask` is the only place a provider's request is sent. In order: is the
provider configured (else `provider_auth`, naming the variable to set), is it suspended by
the breaker (else the suspension's error and `retry_after`), is there a rate-limit slot (wait
briefly or give up with `rate_limited`), then send, parse, and judge the page: an off-topic
page is a failure, an empty list is an honest "no results". A failure tries the provider's
fallback endpoint once (DuckDuckGo html → lite). Whatever happens becomes one Attempt.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass

import httpx

from ..errors import NetsiftError, ProviderUnavailable, RateLimited, Timeout
from ..models import Attempt, Query, SearchResult
from ..net.http import HttpClient
from ..usage import charge_search
from .breaker import Breaker
from .provider import Provider
from .rank import is_off_topic
from .ratelimit import RateLimiter, patience

__all__ = ["CONFIG_CODES", "AttemptListener", "Outcome", "ProviderCaller", "attempt_listener"]

# Told of each provider attempt as it happens: (provider, query, None) before it is asked,
# (provider, query, attempt) after. Set by a caller that streams progress (SSE, WebSocket);
# a ContextVar so it follows the search into batch and merge tasks without new parameters.
AttemptListener = Callable[[str, Query, Attempt | None], Awaitable[None]]
attempt_listener: ContextVar[AttemptListener | None] = ContextVar(
    "netsift_attempt_listener", default=None
)

log = logging.getLogger(__name__)

# Attempt codes that mean "fix the configuration" (a missing or refused key, a provider the
# host switched off): when every provider failed this way, the search fails with
# `config_error` (exit 5, not retryable) instead of a retryable `all_providers_failed`.
CONFIG_CODES = frozenset({"provider_auth", "disabled", "config_error"})


@dataclass(frozen=True)
class Outcome:
    """What one provider gave: results (None when it failed) and the Attempt to report."""

    results: list[SearchResult] | None
    attempt: Attempt
    error: NetsiftError | None = None


class ProviderCaller:
    """Sends provider requests through the guarded HTTP client under breaker and limits."""

    def __init__(
        self,
        http: HttpClient,
        breaker: Breaker,
        limiter: RateLimiter,
        *,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._http = http
        self._breaker = breaker
        self._limiter = limiter
        self._monotonic = monotonic

    async def ask(self, provider: Provider, query: Query, deadline: float) -> Outcome:
        """One Attempt at `provider`; never raises a NetsiftError (it becomes the Attempt)."""
        listener = attempt_listener.get()
        if listener is None:
            return await self._ask(provider, query, deadline)
        await listener(provider.name, query, None)
        outcome = await self._ask(provider, query, deadline)
        await listener(provider.name, query, outcome.attempt)
        return outcome

    async def _ask(self, provider: Provider, query: Query, deadline: float) -> Outcome:
        name = provider.name
        if not provider.configured():
            return _skipped(
                name,
                "provider_auth",
                f"{name} is not configured: set {provider.missing()} to use it",
                retryable=False,  # configuration: asking again unchanged cannot help
            )
        suspension = self._breaker.check(name)
        if suspension is not None:
            return _skipped(
                name,
                suspension.error_code,
                f"{name} is suspended for {suspension.remaining:.0f}s after: {suspension.reason}",
                retry_after=round(suspension.remaining, 3),
                retryable=suspension.error_code not in CONFIG_CODES,
            )
        started = self._monotonic()
        try:
            if deadline <= started:
                raise Timeout(f"no time left in the search's deadline to ask {name}")
            # A caller that waits for slots (research) gives the wait its own bound: the
            # search's timeout starts when the slot is taken.
            waiting = patience.get() is not None
            waited = await self._limiter.acquire(
                name, provider.about.rate_limit, max_wait=None if waiting else deadline - started
            )
            if waiting:
                deadline += waited
            results = await self._exchange_with_fallback(provider, query, deadline)
        except NetsiftError as error:
            if not error.details.get("local"):  # our own limiter: the provider said nothing
                self._breaker.record_failure(name, error)
            return Outcome(None, self._failed(name, error, started), error)
        self._breaker.record_success(name)
        results = _normalized(results, name, query.count)
        attempt = Attempt(
            provider=name,
            ok=True,
            latency_ms=self._elapsed_ms(started),
            result_count=len(results),
            message=None if results else f"{name} found no results",
        )
        return Outcome(results, attempt)

    async def _exchange_with_fallback(
        self, provider: Provider, query: Query, deadline: float
    ) -> list[SearchResult]:
        try:
            return await self._exchange(provider, provider.build_request(query), query, deadline)
        except NetsiftError as first:
            fallback = provider.fallback_request(query, first)
            if fallback is None or (isinstance(first, RateLimited) and first.details.get("local")):
                raise
            log.info("%s failed (%s); trying its fallback endpoint", provider.name, first.code)
            try:
                return await self._exchange(provider, fallback, query, deadline)
            except NetsiftError as second:
                second.details.setdefault("primary_error", first.to_dict())
                raise second from first

    async def _exchange(
        self, provider: Provider, request: httpx.Request, query: Query, deadline: float
    ) -> list[SearchResult]:
        remaining = deadline - self._monotonic()
        if remaining <= 0:
            raise Timeout(f"no time left in the search's deadline to ask {provider.name}")
        await charge_search(provider.name)  # sent is spent: counted for the client's usage
        response = await self._http.send(
            request,
            kind="search",
            retries=0,  # failover is the retry: a second provider beats a second wait
            deadline=min(remaining, provider.settings.timeout),
        )
        try:
            results = provider.parse_response(response, query)
        except NetsiftError:
            raise
        except Exception as exc:  # a parser bug must not stop the failover
            log.exception(
                "%s's parser failed on a %s response", provider.name, response.status_code
            )
            raise ProviderUnavailable(
                f"{provider.name} sent a response netsift could not read ({type(exc).__name__})",
                details={"status": response.status_code},
            ) from exc
        if is_off_topic(query.text, results):
            raise ProviderUnavailable(
                f"{provider.name} returned off-topic results (none mentions the query's terms)",
                details={"off_topic": True, "result_count": len(results)},
            )
        return results

    def _failed(self, name: str, error: NetsiftError, started: float) -> Attempt:
        retry_after = error.details.get("retry_after")
        message = error.message
        primary = error.details.get("primary_error")
        if primary:
            message = f"{message} (fallback endpoint; the primary failed: {primary['message']})"
        return Attempt(
            provider=name,
            ok=False,
            error_code=error.code,
            message=message,
            latency_ms=self._elapsed_ms(started),
            retry_after=float(retry_after) if retry_after is not None else None,
            retryable=error.retryable,
        )

    def _elapsed_ms(self, started: float) -> float:
        return round((self._monotonic() - started) * 1000, 2)


def _skipped(
    name: str, code: str, message: str, *, retryable: bool, retry_after: float | None = None
) -> Outcome:
    attempt = Attempt(
        provider=name,
        ok=False,
        error_code=code,
        message=message,
        retry_after=retry_after,
        retryable=retryable,
    )
    return Outcome(None, attempt)


def _normalized(results: list[SearchResult], name: str, count: int) -> list[SearchResult]:
    """At most `count` results, ranked from 1, each naming the provider that returned it."""
    return [
        result.model_copy(
            update={
                "rank": rank,
                "source": result.source or name,
                "engines": result.engines or [name],
            }
        )
        for rank, result in enumerate(results[:count], start=1)
    ]
