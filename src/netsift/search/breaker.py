"""Breaker: per-provider suspension after blocks and repeated failures (SearXNG's idea).

A provider that said "bad key", "too many requests" or showed a CAPTCHA will say it again on
the next query; asking anyway wastes the user's time and digs the block deeper. SearXNG keeps
`suspended_times` per error class; netsift does the same per provider instance:

- auth failure: a day (it will not heal until the configuration changes, and a new
  configuration means a new process or Client, which starts with a fresh breaker);
- rate limited: the provider's Retry-After, else a minute;
- CAPTCHA / anomaly page (`details["captcha"]` set by the parser): an hour;
- quota used up: the provider's Retry-After, else an hour;
- anything else (5xx, timeouts, unusable pages): after N consecutive failures, a short
  suspension that grows with each further failure, up to a cap.

A success clears the count. The clock is injectable so tests run suspensions in no time.
State is in-process; replicas behind a load balancer each learn a block on their own.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from ..errors import NetsiftError, ProviderAuth, QuotaExceeded, RateLimited

__all__ = ["Breaker", "BreakerPolicy", "Suspension"]

Clock = Callable[[], float]


@dataclass(frozen=True)
class BreakerPolicy:
    """How long each kind of failure suspends a provider, in seconds."""

    auth: float = 86_400.0
    captcha: float = 3_600.0
    rate_limited: float = 60.0
    quota: float = 3_600.0
    failure_threshold: int = 3
    failure: float = 30.0
    failure_max: float = 300.0


@dataclass(frozen=True)
class Suspension:
    """Why a provider is skipped now and for how much longer."""

    error_code: str
    reason: str
    remaining: float


@dataclass
class _Entry:
    failures: int = 0
    suspended_until: float | None = None
    error_code: str | None = None
    reason: str | None = None


class Breaker:
    """Remembers, per provider name, failures in a row and any suspension in force."""

    def __init__(self, *, clock: Clock = time.time, policy: BreakerPolicy | None = None) -> None:
        self._clock = clock
        self.policy = policy or BreakerPolicy()
        self._entries: dict[str, _Entry] = {}

    def check(self, name: str) -> Suspension | None:
        """The suspension in force for `name`, or None when it may be asked."""
        entry = self._entries.get(name)
        if entry is None or entry.suspended_until is None:
            return None
        remaining = entry.suspended_until - self._clock()
        if remaining <= 0:
            # Half-open: the next request is a probe; one more failure suspends again at
            # once because the failure count is kept until a success.
            entry.suspended_until = None
            return None
        return Suspension(
            error_code=entry.error_code or "provider_unavailable",
            reason=entry.reason or "",
            remaining=remaining,
        )

    def record_success(self, name: str) -> None:
        self._entries.pop(name, None)

    def record_failure(self, name: str, error: NetsiftError) -> float | None:
        """Count a failure; returns the suspension it caused in seconds, if any."""
        entry = self._entries.setdefault(name, _Entry())
        entry.failures += 1
        seconds = self._suspension_for(error, entry.failures)
        if seconds is None:
            return None
        entry.suspended_until = self._clock() + seconds
        entry.error_code = error.code
        entry.reason = error.message
        return seconds

    def _suspension_for(self, error: NetsiftError, failures: int) -> float | None:
        policy = self.policy
        if error.details.get("captcha"):
            return policy.captcha
        if isinstance(error, ProviderAuth):
            return policy.auth
        if isinstance(error, RateLimited):
            return error.retry_after if error.retry_after else policy.rate_limited
        if isinstance(error, QuotaExceeded):
            retry_after = error.details.get("retry_after")
            return float(retry_after) if retry_after else policy.quota
        if failures < policy.failure_threshold:
            return None
        steps = failures - policy.failure_threshold + 1
        return min(policy.failure_max, policy.failure * steps)

    def state(self, name: str) -> dict[str, Any]:
        """`{suspended_until, retry_after, error_code, reason, failures}` for status listings.

        `suspended_until` is an ISO 8601 UTC time (None when the provider may be asked).
        """
        entry = self._entries.get(name, _Entry())
        suspension = self.check(name)
        until = None
        if suspension is not None and entry.suspended_until is not None:
            until = datetime.fromtimestamp(entry.suspended_until, UTC).isoformat()
        return {
            "suspended_until": until,
            "retry_after": round(suspension.remaining, 3) if suspension else None,
            "error_code": suspension.error_code if suspension else None,
            "reason": suspension.reason if suspension else None,
            "failures": entry.failures,
        }

    def reset(self, name: str | None = None) -> None:
        """Forget one provider's history, or everyone's."""
        if name is None:
            self._entries.clear()
        else:
            self._entries.pop(name, None)
