"""What every Redis-backed store shares: the errors a lost Redis raises, how long to wait
for it, and `RedisOutage`, the record of a replica standing in for it (the cache, the
per-client limits and the usage ledger each degrade rather than fail)."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

__all__ = [
    "COMMAND_TIMEOUT_SECONDS",
    "CONNECT_TIMEOUT_SECONDS",
    "RETRY_AFTER_SECONDS",
    "RedisOutage",
    "redis_errors",
]

log = logging.getLogger(__name__)
Clock = Callable[[], float]

# How long a lost Redis is served by the local stand-in before a command tries it again: long
# enough that a down Redis costs one failed connect per window, short enough to heal quickly.
RETRY_AFTER_SECONDS = 30.0
# A stopped Redis refuses at once; one behind a dead route must not hold a request for long.
CONNECT_TIMEOUT_SECONDS = 2.0
COMMAND_TIMEOUT_SECONDS = 5.0


def redis_errors() -> tuple[type[BaseException], ...]:
    """What a command raises when Redis is stopped, unreachable or failing."""
    import redis.exceptions

    return (redis.exceptions.RedisError, OSError)


class RedisOutage:
    """Whether Redis is being stood in for, since when and why (one warning per outage)."""

    def __init__(self, what: str, fallback: str, *, clock: Clock = time.monotonic) -> None:
        self.what = what
        self.fallback = fallback
        self._clock = clock
        self._since: float | None = None
        self.reason: str | None = None

    @property
    def active(self) -> bool:
        return self._since is not None and self._clock() - self._since < RETRY_AFTER_SECONDS

    def trip(self, exc: BaseException) -> None:
        if self._since is None:
            log.warning("Redis does not answer (%s); %s: %s", exc, self.what, self.fallback)
        self._since = self._clock()
        self.reason = type(exc).__name__

    def heal(self) -> None:
        if self._since is not None:
            log.warning("Redis answers again; %s is shared again", self.what)
        self._since, self.reason = None, None

    @property
    def degraded(self) -> str | None:
        """A line for `/readyz`, or None while Redis answers."""
        if self._since is None:
            return None
        return f"degraded (Redis down: {self.reason}; {self.fallback})"
