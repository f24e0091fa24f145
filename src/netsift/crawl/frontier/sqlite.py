"""The crawl frontier, durable and shared: the URLs a crawl knows, who reads which, and what
it found — keyed by the crawl's job id.

Every URL a crawl meets is one row, keyed by its canonical form, so the row *is* the seen-set:
a link met twice is inserted once. A worker *claims* the best pending row whose host it may
ask now (the host's next allowed time and in-flight count are rows too, so politeness holds
across every worker of the crawl), under a lease: a worker that dies leaves its rows to be
claimed again when the lease runs out (at once when it was a process of this machine), so an
in-flight page is read at least once and a page is never lost. What a page yields is
*admitted* in one transaction that checks the seen content (exact hash, simhash bands) and
the page budget, so two workers can never both keep a duplicate or overshoot `max_pages`.
Each transaction loads the rows a decision needs and writes back what rules.py decides.

The design is Frontera's and crawlee's RequestQueue reduced to one table: a priority queue
with per-request locks (crawlee's `lockExpiresAt`) and a per-host "next time" (Frontera's
host-aware queue), both as conditional writes in the store every worker already shares.

SQLite here (the job store's file, so a crawl lives where its job does), `memory://` for one
process, Redis (redis.py) when the jobs are in Redis.
"""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any

from ...backends.sqlite import SerialConnection, open_sqlite
from ...jobs.model import owner_is_dead
from ..dedupe import scoped
from . import rules
from .model import Admission, Claim, Entry, ResultKind, Verdict
from .rules import CLAIM_WINDOW

__all__ = ["SQLiteFrontier"]

# The states of a claimed entry: `claimed` (its request under way: it holds one of its host's
# slots) and `released` (its body in, being extracted and kept: no slot, the claim held).
_HELD = "('claimed', 'released')"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS crawl_frontier (
    crawl TEXT NOT NULL, key TEXT NOT NULL, url TEXT NOT NULL, host TEXT NOT NULL,
    depth INTEGER NOT NULL, priority REAL NOT NULL, parent TEXT, seq INTEGER NOT NULL,
    state TEXT NOT NULL, owner TEXT, lease_until REAL NOT NULL DEFAULT 0,
    tries INTEGER NOT NULL DEFAULT 0, pattern TEXT NOT NULL DEFAULT '', PRIMARY KEY (crawl, key)
);
CREATE INDEX IF NOT EXISTS crawl_frontier_next ON crawl_frontier (crawl, state, priority, seq);
CREATE TABLE IF NOT EXISTS crawl_hosts (
    crawl TEXT NOT NULL, host TEXT NOT NULL, delay REAL NOT NULL DEFAULT 0,
    concurrency INTEGER NOT NULL DEFAULT 8, next_at REAL NOT NULL DEFAULT 0,
    known INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (crawl, host)
);
CREATE TABLE IF NOT EXISTS crawl_results (
    crawl TEXT NOT NULL, n INTEGER NOT NULL, kind TEXT NOT NULL, url TEXT NOT NULL,
    data TEXT NOT NULL, PRIMARY KEY (crawl, n)
);
CREATE TABLE IF NOT EXISTS crawl_marks (
    crawl TEXT NOT NULL, mark TEXT NOT NULL, url TEXT NOT NULL, sketch INTEGER,
    PRIMARY KEY (crawl, mark)
);
CREATE TABLE IF NOT EXISTS crawl_bands (
    crawl TEXT NOT NULL, band INTEGER NOT NULL, sketch INTEGER NOT NULL, url TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS crawl_bands_band ON crawl_bands (crawl, band);
CREATE TABLE IF NOT EXISTS crawl_state (
    crawl TEXT PRIMARY KEY, started REAL NOT NULL, deadline REAL NOT NULL,
    max_pages INTEGER NOT NULL, max_bytes INTEGER NOT NULL, pages INTEGER NOT NULL DEFAULT 0,
    bytes INTEGER NOT NULL DEFAULT 0, results INTEGER NOT NULL DEFAULT 0, seq INTEGER NOT NULL
    DEFAULT 0, stopped TEXT
);
CREATE TABLE IF NOT EXISTS crawl_patterns (
    crawl TEXT NOT NULL, pattern TEXT NOT NULL, added INTEGER NOT NULL DEFAULT 0,
    empty INTEGER NOT NULL DEFAULT 0, window TEXT NOT NULL DEFAULT '',
    trap INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (crawl, pattern)
);
CREATE TABLE IF NOT EXISTS crawl_beyond (
    crawl TEXT NOT NULL, key TEXT NOT NULL, PRIMARY KEY (crawl, key)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS crawl_held (
    crawl TEXT NOT NULL, pattern TEXT NOT NULL, url TEXT NOT NULL, size INTEGER NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS crawl_held_pattern ON crawl_held (crawl, pattern);
CREATE TABLE IF NOT EXISTS crawl_text (
    crawl TEXT NOT NULL, sample INTEGER NOT NULL, PRIMARY KEY (crawl, sample)
) WITHOUT ROWID;
"""


_ADDED_COLUMNS = (
    ("crawl_frontier", "pattern TEXT NOT NULL DEFAULT ''"),
    ("crawl_state", "trapped INTEGER NOT NULL DEFAULT 0"),
)


def _signed(value: int) -> int:
    """A 64-bit sketch as SQLite's signed INTEGER."""
    return value - (1 << 64) if value >= 1 << 63 else value


def _unsigned(value: int) -> int:
    return value + (1 << 64) if value < 0 else value


# Keys looked up in one `IN (...)` query: well under SQLite's bound on a statement's
# parameters (32,766 since 3.32, 999 before), so a start's thousands of seeds take a few.
IN_BATCH = 500


def _marks(values: list[Any]) -> str:
    """The placeholders of an `IN (...)` list of `values`."""
    return ", ".join("?" * len(values))


def _candidate(
    row: tuple[Any, ...], busy: dict[str, int], claimed: dict[str, int]
) -> rules.Candidate:
    """A row of the claim's window (entry, host, pattern record) as the rules read it."""
    entry = Entry(*row[:8])
    record = None
    if entry.pattern:
        added, empty, window, trap = row[12:16]
        claims = claimed.get(entry.pattern, 0)
        record = rules.Pattern(added or 0, empty or 0, claims, window or "", bool(trap))
    resource = rules.resource_scope(entry.pattern, entry.url) if entry.pattern else None
    shown = claimed.get(resource, 0) if resource is not None else 0
    return rules.Candidate(entry, _host(row[8:12], busy.get(entry.host, 0)), record, shown)


def _host(row: tuple[Any, ...], busy: int) -> rules.Host:
    """A host's row (delay, concurrency, next_at, known; all None: no row yet) as the rules
    read it, with its requests under way."""
    delay, concurrency, next_at, known = row
    if delay is None:
        return rules.Host(busy=busy)
    return rules.Host(float(delay), int(concurrency), float(next_at), bool(known), busy)


class SQLiteFrontier:
    """The frontier in one SQLite file (WAL), shared by the processes of one machine."""

    def __init__(self, path: str | Path) -> None:
        db = open_sqlite(path)
        db.executescript(_SCHEMA)
        # Files made before path patterns were kept with entries and their pages counted.
        for table, column in _ADDED_COLUMNS:
            names = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
            if column.split()[0] not in names:
                db.execute(f"ALTER TABLE {table} ADD COLUMN {column}")
        self._db = SerialConnection(db)

    async def start(self, crawl: str, *, max_pages: int, max_bytes: int, deadline: float) -> float:
        def work(db: sqlite3.Connection) -> float:
            now = time.time()
            db.execute(
                "INSERT OR IGNORE INTO crawl_state (crawl, started, deadline, max_pages, "
                "max_bytes) VALUES (?, ?, ?, ?, ?)",
                (crawl, now, now + deadline, max_pages, max_bytes),
            )
            row = db.execute("SELECT started FROM crawl_state WHERE crawl = ?", (crawl,)).fetchone()
            return float(row[0])

        return await self._db.transaction(work)

    async def add(self, crawl: str, entries: list[Entry], *, state: str = "pending") -> int:
        if not entries:
            return 0
        # A start's seeds (a map, a sitemap) can be thousands of rows: not on the event loop.
        return await self._db.transaction(
            lambda db: len(self._insert(db, crawl, entries, state)), bulk=True
        )

    @staticmethod
    def _insert(db: sqlite3.Connection, crawl: str, entries: list[Entry], state: str) -> list[int]:
        """Insert the entries not seen before; the positions of those that were new. One
        query finds the keys seen and one batch inserts the rest: a page's 30 links cost two
        statements, not 30 (the transaction holds the file, so no other writer comes between)."""
        seen: set[str] = set()
        keys = list(dict.fromkeys(entry.key for entry in entries))
        for start in range(0, len(keys), IN_BATCH):
            chunk = keys[start : start + IN_BATCH]
            seen.update(
                str(key)
                for (key,) in db.execute(
                    f"SELECT key FROM crawl_frontier WHERE crawl = ? AND key IN ({_marks(chunk)})",
                    (crawl, *chunk),
                )
            )
        row = db.execute("SELECT seq FROM crawl_state WHERE crawl = ?", (crawl,)).fetchone()
        seq = int(row[0]) if row else 0
        added: list[int] = []
        rows: list[tuple[Any, ...]] = []
        for i, entry in enumerate(entries):
            if entry.key in seen:
                continue
            seen.add(entry.key)
            seq += 1
            added.append(i)
            rows.append(
                (crawl, entry.key, entry.url, entry.host, entry.depth, entry.priority,
                 entry.parent, seq, state, entry.pattern)
            )  # fmt: skip
        if rows:
            db.executemany(
                "INSERT OR IGNORE INTO crawl_frontier (crawl, key, url, host, depth, "
                "priority, parent, seq, state, pattern) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                rows,
            )
            db.execute("UPDATE crawl_state SET seq = ? WHERE crawl = ?", (seq, crawl))
        return added

    def _free_dead(self, db: sqlite3.Connection, crawl: str, now: float) -> None:
        owners = db.execute(
            "SELECT DISTINCT owner FROM crawl_frontier WHERE crawl = ? AND state IN "
            f"{_HELD} AND lease_until >= ?",
            (crawl, now),
        ).fetchall()
        for (owner,) in owners:
            if owner_is_dead(owner):
                db.execute(
                    "UPDATE crawl_frontier SET lease_until = 0 WHERE crawl = ? AND owner = ? "
                    f"AND state IN {_HELD}",
                    (crawl, owner),
                )

    async def claim(self, crawl: str, worker: str, *, lease: float) -> Claim:
        def work(db: sqlite3.Connection) -> Claim:
            now = time.time()
            budget = self._budget(db, crawl)
            if budget is not None and budget.stopped is None:
                self._free_dead(db, crawl, now)
                # An entry whose claim lapsed (its worker died) is pending again.
                db.execute(
                    "UPDATE crawl_frontier SET state = 'pending', owner = NULL WHERE crawl = ? "
                    f"AND state IN {_HELD} AND lease_until < ?",
                    (crawl, now),
                )
            flying = db.execute(
                "SELECT host, state, pattern, COUNT(*) FROM crawl_frontier WHERE crawl = ? "
                f"AND state IN {_HELD} GROUP BY host, state, pattern",
                (crawl,),
            ).fetchall()
            # A host's slots are its requests under way; a released claim holds none.
            busy: dict[str, int] = {}
            claimed: dict[str, int] = {}
            for host, state, pattern, n in flying:
                if state == "claimed":
                    busy[host] = busy.get(host, 0) + n
                claimed[pattern] = claimed.get(pattern, 0) + n
            rows = db.execute(
                "SELECT f.key, f.url, f.host, f.depth, f.priority, f.parent, f.tries, f.pattern, "
                "h.delay, h.concurrency, h.next_at, h.known, p.added, p.empty, p.window, p.trap "
                "FROM crawl_frontier f LEFT JOIN crawl_hosts h "
                "ON h.crawl = f.crawl AND h.host = f.host "
                "LEFT JOIN crawl_patterns p ON p.crawl = f.crawl AND p.pattern = f.pattern "
                "WHERE f.crawl = ? AND f.state = 'pending' ORDER BY f.priority, f.seq LIMIT ?",
                (crawl, CLAIM_WINDOW),
            ).fetchall()
            candidates = (_candidate(row, busy, claimed) for row in rows)
            held = sum(n for *_, n in flying)
            decision = rules.claim(budget, held, candidates, now)
            entry = decision.claim.entry
            if decision.stop is not None:
                self._stop(db, crawl, decision.stop)
            elif entry is not None and decision.claim.trapped:
                # no request: held without a host slot until the crawler ends it
                self._hold(db, crawl, entry.key, worker, now + lease, "released")
                db.execute("UPDATE crawl_state SET trapped = trapped + 1 WHERE crawl = ?", (crawl,))
            elif entry is not None:
                self._hold(db, crawl, entry.key, worker, now + lease, "claimed")
                if decision.host is not None:
                    self._save_host(db, crawl, entry.host, decision.host)
            return decision.claim

        return await self._db.transaction(work)

    @staticmethod
    def _budget(db: sqlite3.Connection, crawl: str) -> rules.Budget | None:
        row = db.execute(
            "SELECT deadline, max_pages, max_bytes, pages, bytes, stopped, trapped "
            "FROM crawl_state WHERE crawl = ?",
            (crawl,),
        ).fetchone()
        return None if row is None else rules.Budget(*row)

    @staticmethod
    def _host(db: sqlite3.Connection, crawl: str, host: str) -> rules.Host:
        row = db.execute(
            "SELECT delay, concurrency, next_at, known FROM crawl_hosts WHERE crawl = ? "
            "AND host = ?",
            (crawl, host),
        ).fetchone()
        return _host(row or (None, None, None, None), 0)

    @staticmethod
    def _save_host(db: sqlite3.Connection, crawl: str, name: str, host: rules.Host) -> None:
        db.execute(
            "INSERT OR REPLACE INTO crawl_hosts (crawl, host, delay, concurrency, next_at, "
            "known) VALUES (?, ?, ?, ?, ?, ?)",
            (crawl, name, host.delay, host.concurrency, host.next_at, int(host.known)),
        )

    @staticmethod
    def _hold(
        db: sqlite3.Connection, crawl: str, key: str, worker: str, until: float, state: str
    ) -> None:
        db.execute(
            "UPDATE crawl_frontier SET state = ?, owner = ?, lease_until = ? "
            "WHERE crawl = ? AND key = ?",
            (state, worker, until, crawl, key),
        )

    async def host_policy(self, crawl: str, host: str, *, delay: float, concurrency: int) -> None:
        def work(db: sqlite3.Connection) -> None:
            policy = rules.with_policy(self._host(db, crawl, host), delay, concurrency)
            self._save_host(db, crawl, host, policy)

        await self._db.transaction(work)

    async def pause_host(self, crawl: str, host: str, seconds: float) -> None:
        def work(db: sqlite3.Connection) -> None:
            until = time.time() + seconds
            self._save_host(db, crawl, host, rules.paused(self._host(db, crawl, host), until))

        await self._db.transaction(work)

    async def retry(self, crawl: str, key: str, worker: str) -> None:
        def work(db: sqlite3.Connection) -> None:
            requesting = self._state(db, crawl, key) == "claimed"
            cursor = db.execute(
                "UPDATE crawl_frontier SET state = 'pending', owner = NULL, tries = tries + 1 "
                f"WHERE crawl = ? AND key = ? AND owner = ? AND state IN {_HELD}",
                (crawl, key, worker),
            )
            if requesting and cursor.rowcount:
                self._rest(db, crawl, key)

        await self._db.transaction(work)

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
        def work(db: sqlite3.Connection) -> None:
            if skipped is not None:
                self._result(db, crawl, "skipped", str(skipped["url"]), skipped)
            new = [links[i] for i in self._insert(db, crawl, links, "pending")] if links else []
            if verdict is not None and verdict.pattern:
                traps = self._traps(db, crawl, {link.pattern for link in new})
                elsewhere = len(rules.other_patterns(new, verdict.pattern, traps))
                added = rules.page_added(verdict, elsewhere)
                record = self._judge(db, crawl, verdict.pattern, added)
                if added and rules.vouched(record):  # no trap: its held pages are kept
                    self._release(db, crawl, verdict.pattern, trap=False)
                elif added and verdict.held is not None:  # its links added: it is kept
                    self._release(db, crawl, verdict.pattern, trap=False, only=verdict.held)
            if beyond:
                db.executemany(
                    "INSERT OR IGNORE INTO crawl_beyond (crawl, key) VALUES (?, ?)",
                    [(crawl, key) for key in beyond],
                )
            if refused:
                entries = [entry for entry, _ in refused]
                for i in self._insert(db, crawl, entries, "refused"):
                    self._result(db, crawl, "skipped", entries[i].url, refused[i][1])
            requesting = self._state(db, crawl, key) == "claimed"
            db.execute(
                "UPDATE crawl_frontier SET state = 'done', owner = NULL "
                "WHERE crawl = ? AND key = ?",
                (crawl, key),
            )
            if requesting:  # a released claim rested its host when its request ended
                self._rest(db, crawl, key)

        await self._db.transaction(work)

    async def release_host(self, crawl: str, key: str, worker: str) -> None:
        def work(db: sqlite3.Connection) -> None:
            cursor = db.execute(
                "UPDATE crawl_frontier SET state = 'released' WHERE crawl = ? AND key = ? "
                "AND owner = ? AND state = 'claimed'",
                (crawl, key, worker),
            )
            if cursor.rowcount:
                self._rest(db, crawl, key)

        await self._db.transaction(work)

    @staticmethod
    def _state(db: sqlite3.Connection, crawl: str, key: str) -> str | None:
        row = db.execute(
            "SELECT state FROM crawl_frontier WHERE crawl = ? AND key = ?", (crawl, key)
        ).fetchone()
        return str(row[0]) if row else None

    @staticmethod
    def _rest(db: sqlite3.Connection, crawl: str, key: str) -> None:
        """The claimed entry's request has ended: its host rests from now (rules.rested)."""
        row = db.execute(
            "SELECT h.host, h.delay, h.concurrency, h.next_at, h.known FROM crawl_frontier f "
            "JOIN crawl_hosts h ON h.crawl = f.crawl AND h.host = f.host "
            "WHERE f.crawl = ? AND f.key = ?",
            (crawl, key),
        ).fetchone()
        rest = None if row is None else rules.rested(_host(row[1:], 0), time.time())
        if rest is not None:
            db.execute(
                "UPDATE crawl_hosts SET next_at = ? WHERE crawl = ? AND host = ?",
                (rest.next_at, crawl, row[0]),
            )

    @staticmethod
    def _next_result(db: sqlite3.Connection, crawl: str) -> int:
        row = db.execute(
            "UPDATE crawl_state SET results = results + 1 WHERE crawl = ? RETURNING results",
            (crawl,),
        ).fetchone()
        return int(row[0])

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
        def work(db: sqlite3.Connection) -> Admission:
            marks = [f"url:{key}" for key in keys] + [f"sha:{content_hash}"]
            seen = db.execute(
                f"SELECT url FROM crawl_marks WHERE crawl = ? AND mark IN ({_marks(marks)})",
                (crawl, *marks),
            ).fetchone()
            candidates = (
                (_unsigned(other), str(other_url))
                for other, other_url in db.execute(
                    f"SELECT sketch, url FROM crawl_bands WHERE crawl = ? AND band IN "
                    f"({_marks(bands)})",
                    (crawl, *bands),
                )
            )
            budget = self._budget(db, crawl)
            pages, max_pages = (budget.pages, budget.max_pages) if budget else (0, 0)
            refusal = rules.admission(
                seen=None if seen is None else str(seen[0]),
                candidates=candidates,
                sketch=sketch,
                pages=pages,
                max_pages=max_pages,
            )
            if refusal is not None:
                return refusal
            db.executemany(
                "INSERT OR IGNORE INTO crawl_marks (crawl, mark, url) VALUES (?, ?, ?)",
                [(crawl, mark, url) for mark in marks],
            )
            if sketch is not None:
                db.executemany(
                    "INSERT INTO crawl_bands (crawl, band, sketch, url) VALUES (?, ?, ?, ?)",
                    [(crawl, band, _signed(sketch), url) for band in bands],
                )
            resource = rules.resource_scope(pattern, url) if pattern else None
            in_resource = None
            if resource is not None:
                shown = scoped(sample or [], resource)
                in_resource = len(shown) - self._known(db, crawl, shown)
            cursor = db.executemany(
                "INSERT OR IGNORE INTO crawl_text (crawl, sample) VALUES (?, ?)",
                [(crawl, value) for value in scoped(sample or [], rules.text_scope(pattern, url))]
                if pattern
                else [],
            )
            new_text = bool(pattern) and rules.holds_new_text(
                pattern, max(cursor.rowcount, 0), len(sample or []), in_resource
            )
            data = json.dumps(page, default=str)
            if rules.holds(pattern, new_text):
                db.execute(
                    "INSERT INTO crawl_held (crawl, pattern, url, size, data) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (crawl, pattern, url, size, data),
                )
                return Admission(held=True, copy=rules.is_copy(in_resource, len(sample or [])))
            return Admission(n=self._keep(db, crawl, url, size, data), new_text=new_text)

        return await self._db.transaction(work)

    @staticmethod
    def _known(db: sqlite3.Connection, crawl: str, sample: list[int]) -> int:
        """How many of a scoped text sample's windows (at most dedupe.SAMPLE_MAX: one query)
        the crawl holds."""
        if not sample:
            return 0
        row = db.execute(
            f"SELECT COUNT(*) FROM crawl_text WHERE crawl = ? AND sample IN ({_marks(sample)})",
            (crawl, *sample),
        ).fetchone()
        return int(row[0])

    def _keep(self, db: sqlite3.Connection, crawl: str, url: str, size: int, data: str) -> int:
        """Keep a page: its `page` result, counted in the budget; its number."""
        n = self._next_result(db, crawl)
        db.execute(
            "INSERT INTO crawl_results (crawl, n, kind, url, data) VALUES (?, ?, 'page', ?, ?)",
            (crawl, n, url, data),
        )
        db.execute(
            "UPDATE crawl_state SET pages = pages + 1, bytes = bytes + ? WHERE crawl = ?",
            (size, crawl),
        )
        return n

    def _release(
        self, db: sqlite3.Connection, crawl: str, pattern: str, *, trap: bool, only: str = ""
    ) -> None:
        """Decide the pattern's held pages (rules.held_fate), in the order they were read;
        `only`: only the one held under that URL."""
        one = "AND url = ?" if only else ""
        held = db.execute(
            f"SELECT rowid, url, size, data FROM crawl_held WHERE crawl = ? AND pattern = ? {one} "
            "ORDER BY rowid",
            (crawl, pattern, only) if only else (crawl, pattern),
        ).fetchall()
        for rowid, url, size, data in held:
            budget = self._budget(db, crawl)
            pages, max_pages = (budget.pages, budget.max_pages) if budget else (0, 0)
            fate = rules.held_fate(trap=trap, pages=pages, max_pages=max_pages)
            if fate == "keep":
                self._keep(db, crawl, url, size, data)
            elif fate == "drop":
                skipped = rules.dropped(pattern, json.loads(data), url)
                self._result(db, crawl, "skipped", str(skipped["url"]), skipped)
            db.execute("DELETE FROM crawl_held WHERE rowid = ?", (rowid,))

    async def settle(self, crawl: str) -> None:
        def work(db: sqlite3.Connection) -> None:
            patterns = db.execute(
                "SELECT DISTINCT h.pattern, p.trap FROM crawl_held h LEFT JOIN crawl_patterns p "
                "ON p.crawl = h.crawl AND p.pattern = h.pattern WHERE h.crawl = ?",
                (crawl,),
            ).fetchall()
            for pattern, trap in patterns:
                self._release(db, crawl, pattern, trap=bool(trap))

        await self._db.transaction(work)

    async def record(self, crawl: str, kind: ResultKind, url: str, data: dict[str, Any]) -> int:
        return await self._db.transaction(lambda db: self._result(db, crawl, kind, url, data))

    def _result(
        self, db: sqlite3.Connection, crawl: str, kind: ResultKind, url: str, data: dict[str, Any]
    ) -> int:
        n = self._next_result(db, crawl)
        db.execute(
            "INSERT INTO crawl_results (crawl, n, kind, url, data) VALUES (?, ?, ?, ?, ?)",
            (crawl, n, kind, url, json.dumps(data, default=str)),
        )
        return n

    async def results(
        self, crawl: str, *, since: int = 0, limit: int = 100, kind: ResultKind | None = None
    ) -> list[tuple[int, ResultKind, dict[str, Any]]]:
        def work(db: sqlite3.Connection) -> list[tuple[int, ResultKind, dict[str, Any]]]:
            only = "AND kind = ?" if kind else ""
            args: tuple[Any, ...] = (crawl, since, kind, limit) if kind else (crawl, since, limit)
            rows = db.execute(
                f"SELECT n, kind, data FROM crawl_results WHERE crawl = ? AND n > ? {only} "
                "ORDER BY n LIMIT ?",
                args,
            ).fetchall()
            return [(int(n), k, json.loads(data)) for n, k, data in rows]

        return await self._db.call(work)

    @staticmethod
    def _judge(db: sqlite3.Connection, crawl: str, pattern: str, added: bool) -> rules.Pattern:
        """One more page of `pattern` judged: it added, or it added nothing (rules.judged);
        the pattern's record now."""
        row = db.execute(
            "SELECT added, empty, window, trap FROM crawl_patterns WHERE crawl = ? AND pattern = ?",
            (crawl, pattern),
        ).fetchone()
        record = (
            rules.Pattern()
            if row is None
            else rules.Pattern(row[0], row[1], 0, row[2], bool(row[3]))
        )
        record = rules.judged(record, added)
        db.execute(
            "INSERT OR REPLACE INTO crawl_patterns (crawl, pattern, added, empty, window, trap) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (crawl, pattern, record.added, record.empty, record.window, int(record.trap)),
        )
        return record

    @staticmethod
    def _traps(db: sqlite3.Connection, crawl: str, patterns: set[str]) -> set[str]:
        """Those of `patterns` found to be traps."""
        names = sorted(patterns)
        rows = db.execute(
            f"SELECT pattern FROM crawl_patterns WHERE crawl = ? AND trap AND pattern IN "
            f"({_marks(names)})",
            (crawl, *names),
        ).fetchall()
        return {str(pattern) for (pattern,) in rows}

    @staticmethod
    def _stop(db: sqlite3.Connection, crawl: str, reason: str) -> None:
        db.execute(
            "UPDATE crawl_state SET stopped = ? WHERE crawl = ? AND stopped IS NULL",
            (reason, crawl),
        )

    async def stop(self, crawl: str, reason: str) -> None:
        await self._db.transaction(lambda db: self._stop(db, crawl, reason))

    async def in_flight(self, crawl: str) -> int:
        def work(db: sqlite3.Connection) -> int:
            row = db.execute(
                f"SELECT COUNT(*) FROM crawl_frontier WHERE crawl = ? AND state IN {_HELD}",
                (crawl,),
            ).fetchone()
            return int(row[0])

        return await self._db.call(work)

    async def status(self, crawl: str) -> dict[str, Any]:
        def work(db: sqlite3.Connection) -> dict[str, Any]:
            row = db.execute(
                "SELECT pages, bytes, stopped, trapped FROM crawl_state WHERE crawl = ?", (crawl,)
            ).fetchone()
            traps = db.execute(
                "SELECT pattern FROM crawl_patterns WHERE crawl = ? AND trap ORDER BY pattern",
                (crawl,),
            ).fetchall()
            counts = dict(
                db.execute(
                    "SELECT state, COUNT(*) FROM crawl_frontier WHERE crawl = ? GROUP BY state",
                    (crawl,),
                ).fetchall()
            )
            (beyond,) = db.execute(
                "SELECT COUNT(*) FROM crawl_beyond b WHERE b.crawl = ? AND NOT EXISTS "
                "(SELECT 1 FROM crawl_frontier f WHERE f.crawl = b.crawl AND f.key = b.key)",
                (crawl,),
            ).fetchone()
            return {
                "pages": int(row[0]) if row else 0,
                "bytes": int(row[1]) if row else 0,
                "stopped": row[2] if row else None,
                "pending": int(counts.get("pending", 0)),
                "in_flight": int(counts.get("claimed", 0)) + int(counts.get("released", 0)),
                "seen": int(sum(counts.values())),
                "traps": [str(pattern) for (pattern,) in traps],
                "trapped": int(row[3]) if row else 0,
                "beyond_depth": int(beyond),
            }

        return await self._db.call(work)

    async def aclose(self) -> None:
        self._db.close()
