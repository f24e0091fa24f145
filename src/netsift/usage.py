"""Usage meters: what a request or a job spent (searches by provider, pages, tokens).

Counting happens once, in the library: SearchService charges a search, the Fetcher a page,
the LLM its tokens, each to the meters bound in the current context (`metering`). A job
binds its own meter (saved with its checkpoints, so a resumed job keeps counting); the
server binds the caller's (its quota and per-request cap are checked on every charge). Work
done by any door — search, batch, research, chat — is therefore counted the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Usage", "admit_search", "charge_page", "charge_search", "charge_tokens", "metering"]


@dataclass
class Usage:
    """Counts for one scope. `on_search` may refuse a search (raise a NetsiftError) before
    it is sent: that is how quotas and per-request caps apply to every caller."""

    searches: dict[str, int] = field(default_factory=dict)
    pages: int = 0
    tokens: int = 0
    on_search: Callable[[Usage], None] | None = None

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
    def from_dict(cls, data: dict[str, Any]) -> Usage:
        return cls(
            searches={str(k): int(v) for k, v in data.get("searches_by_provider", {}).items()},
            pages=int(data.get("pages", 0)),
            tokens=int(data.get("tokens", 0)),
        )


_meters: ContextVar[tuple[Usage, ...]] = ContextVar("netsift_usage", default=())


@contextmanager
def metering(usage: Usage) -> Iterator[Usage]:
    """Charge everything done in this context (and tasks started from it) to `usage` too."""
    token = _meters.set((*_meters.get(), usage))
    try:
        yield usage
    finally:
        _meters.reset(token)


def admit_search() -> None:
    """Before a search is sent: every bound meter's limit may refuse it."""
    for usage in _meters.get():
        if usage.on_search is not None:
            usage.on_search(usage)


def charge_search(provider: str) -> None:
    """A request sent to a search provider (cached answers cost nothing)."""
    for usage in _meters.get():
        usage.searches[provider] = usage.searches.get(provider, 0) + 1


def charge_page() -> None:
    """A page fetched from the network on the client's behalf."""
    for usage in _meters.get():
        usage.pages += 1


def charge_tokens(tokens: int) -> None:
    for usage in _meters.get():
        usage.tokens += tokens
