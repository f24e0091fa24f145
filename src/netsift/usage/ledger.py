"""The usage ledger: what each client (API key) has spent, for a host that bills.

One counter per (client, field): `search:<provider>`, `pages`, `tokens`. Kept beside the
jobs (SQLite embedded, Redis when scaled out), so every replica and worker adds to the same
record and `GET /v1/usage` answers from any of them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from ..backends import parse_store_url
from ..backends.redis import RedisOutage, redis_errors
from ..backends.sqlite import SerialConnection, open_sqlite

__all__ = ["SQLiteUsageLedger", "UsageLedger", "open_usage_ledger", "summarize"]

REDIS_PREFIX = "netsift:usage:"


class UsageLedger(Protocol):
    async def add(self, key: str, field: str, amount: int) -> None: ...
    async def totals(self, key: str) -> dict[str, int]: ...
    async def aclose(self) -> None: ...


def summarize(totals: dict[str, int]) -> dict[str, Any]:
    """A client's counters as the API shows them (the same shape as a job's usage)."""
    by_provider = {
        field.removeprefix("search:"): count
        for field, count in sorted(totals.items())
        if field.startswith("search:")
    }
    return {
        "searches": sum(by_provider.values()),
        "searches_by_provider": by_provider,
        "pages": totals.get("pages", 0),
        "tokens": totals.get("tokens", 0),
    }


class SQLiteUsageLedger:
    def __init__(self, path: str | Path) -> None:
        db = open_sqlite(path)
        db.execute(
            "CREATE TABLE IF NOT EXISTS usage (key TEXT NOT NULL, field TEXT NOT NULL, "
            "amount INTEGER NOT NULL, PRIMARY KEY (key, field))"
        )
        self._db = SerialConnection(db)

    async def add(self, key: str, field: str, amount: int) -> None:
        await self._db.call(
            lambda db: db.execute(
                "INSERT INTO usage VALUES (?, ?, ?) ON CONFLICT (key, field) "
                "DO UPDATE SET amount = amount + excluded.amount",
                (key, field, amount),
            )
        )

    async def totals(self, key: str) -> dict[str, int]:
        rows = await self._db.call(
            lambda db: db.execute(
                "SELECT field, amount FROM usage WHERE key = ?", (key,)
            ).fetchall()
        )
        return {str(field): int(amount) for field, amount in rows}

    async def aclose(self) -> None:
        self._db.close()


class RedisUsageLedger:
    def __init__(self, url: str) -> None:
        from redis.asyncio import Redis  # the redis extra, needed only when configured

        self._redis: Any = Redis.from_url(url, decode_responses=True)
        self._errors = redis_errors()
        self.outage = RedisOutage("the usage ledger", "usage goes unrecorded")

    async def add(self, key: str, field: str, amount: int) -> None:
        """Count `amount`; while Redis is down the count is logged as lost, never a failed
        search (the work was done; only its record is missing)."""
        try:
            await self._redis.hincrby(REDIS_PREFIX + key, field, amount)
        except self._errors as exc:
            self.outage.trip(exc)
            return
        self.outage.heal()

    async def totals(self, key: str) -> dict[str, int]:
        raw: dict[Any, Any] = await self._redis.hgetall(REDIS_PREFIX + key)
        return {str(field): int(amount) for field, amount in raw.items()}

    async def aclose(self) -> None:
        await self._redis.aclose()


def open_usage_ledger(url: str) -> UsageLedger:
    """Beside the jobs: `memory://`, `sqlite:///path` (a `usage` table) or `redis://…`."""
    store = parse_store_url(url, what="the usage ledger's store URL (NETSIFT_JOBS_URL)")
    if store.kind == "redis":
        return RedisUsageLedger(url)
    return SQLiteUsageLedger(store.path)
