"""Where netsift keeps state: one URL names the backend of every store.

`memory://` (this process only), `sqlite:///path` (embedded, shared by the processes of one
machine) or `redis://…` (shared by every replica and worker). Each store (the search cache,
jobs, the crawl frontier, sleeps, the usage ledger) picks its backend with `parse_store_url`,
so what a URL means is written here once; `sqlite.py` and `redis.py` hold what the backends of
every store share.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..errors import InvalidInput

__all__ = ["REDIS_SCHEMES", "StoreKind", "StoreURL", "parse_store_url"]

StoreKind = Literal["memory", "sqlite", "redis"]
REDIS_SCHEMES = ("redis://", "rediss://", "unix://")
MEMORY_PATH = ":memory:"


@dataclass(frozen=True)
class StoreURL:
    """A store URL read once: its backend, and for SQLite the file (or `:memory:`)."""

    kind: StoreKind
    url: str
    path: str = MEMORY_PATH


def parse_store_url(url: str, *, what: str) -> StoreURL:
    """The backend `url` names; `what` ("NETSIFT_CACHE_URL", "the job store") names the
    setting in the error. SQLite paths follow SQLAlchemy's rule: `sqlite:///rel.db` is
    relative, `sqlite:////abs.db` absolute."""
    if url.startswith("memory://"):
        return StoreURL("memory", url)
    if url.startswith("sqlite://"):
        rest = url.removeprefix("sqlite://")
        if rest in ("", "/", "/:memory:"):
            return StoreURL("sqlite", url, MEMORY_PATH)
        return StoreURL("sqlite", url, rest.removeprefix("/"))
    if url.startswith(REDIS_SCHEMES):
        return StoreURL("redis", url)
    raise InvalidInput(f"{what} must be memory://, sqlite:///path or redis://…, not {url!r}")
