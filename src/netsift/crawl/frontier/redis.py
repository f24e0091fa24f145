"""The crawl frontier in Redis, for workers on many machines sharing one crawl.

The same contract as sqlite.py's frontier, and the same decisions: rules.py's, made in
Python. A claim, an admission or a host's change reads what it is decided on, then writes
the decision with `_APPLY`, a generic script that first checks each value read is still
the same (an optimistic transaction: when another worker changed one in between, the
decision is made again). The other scripts only move rows: `_SELECT` gathers a claim's
window (after putting claims whose lease ran out back), `_HELD` a claim, `_ADD` queues
entries not seen before, `_RECORD` appends a result.

Layout, all under `netsift:crawl:<id>:` — `state` a hash (budgets, counts, stopped), `seen`
a hash key → entry JSON (the seen-set), `pending` a sorted set by priority (members
`seq|key`, so equal priorities keep discovery order), `claimed` a sorted set by lease end
with `owner` a hash, `hosts` a hash host → politeness JSON, `inflight` a hash host → count
of requests under way, `released` the set of claimed keys whose request has ended (they hold
their claim but no host slot), `marks` and `bands` (content seen), `results` a list and
`pages` the list of the page results' numbers, `traps` a hash pattern → its record (JSON:
pages that added and that did not, its window, whether a trap), `text` the set of the kept
pages' text samples (dedupe.scoped by pattern), `patterns` a hash pattern → entries claimed,
`beyond` the set of keys linked past the crawl's depth (those never seen are left unread),
`holding` a hash URL → a held page (JSON: its pattern, size, data, when it was read;
rules.holds).
Everything expires with the job's retention.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
from redis.asyncio import Redis

from ...jobs.model import owner_is_dead
from ...jobs.redis import RETENTION
from ..dedupe import scoped
from . import rules
from .model import Admission, Claim, Entry, ResultKind, Verdict
from .rules import CLAIM_WINDOW, HOST_BUSY_WAIT

__all__ = ["RedisFrontier"]

PREFIX = "netsift:crawl:"
PARTS = (
    "state", "seen", "pending", "claimed", "owner", "hosts", "inflight", "marks", "bands",
    "results", "pages", "traps", "released", "text", "patterns", "beyond", "holding",
)  # fmt: skip
# Each part's place in a script's KEYS (1-based, as Lua counts).
_STATE, _SEEN, _PENDING, _CLAIMED, _OWNER, _HOSTS, _INFLIGHT, _MARKS, _BANDS = range(1, 10)
_RESULTS, _PAGES, _TRAPS, _RELEASED, _TEXT, _PATTERNS, _BEYOND, _HOLDING = range(10, 18)
# Times a decision is made again when what it was made on changed before its write (another
# task of the crawl won the race); a claim that keeps losing says to wait and ask again. After
# the first tries each waits a random pause up to CONFLICT_PAUSE times its number, so tasks
# that keep colliding spread out (Ethernet's backoff).
CONFLICT_TRIES = 100
# Pending entries a claim reads first (each with its host's and pattern's rows): the best one
# is usually free; only when none of these is, the whole CLAIM_WINDOW is read.
CLAIM_PEEK = 8
CONFLICT_PAUSE = 0.001


async def _attempts() -> AsyncIterator[int]:
    for attempt in range(CONFLICT_TRIES):
        if attempt >= 2:
            await anyio.sleep(random.uniform(0, CONFLICT_PAUSE * attempt))
        yield attempt


# KEYS: the PARTS in order; ARGV: guards JSON, writes JSON, and optionally a result to
# append (kind, url, data JSON). The one write a decision made in Python needs, made only if
# what it was decided on still holds (an optimistic transaction checked value by value, so a
# change elsewhere in the crawl does not undo it): each guard is [command, part, args...,
# expected] ('*': any value, '': none, '<N': a count still below N — a slot or an allowance
# still free, however others moved it), each write [command, part, args...]. Returns 0 when a
# guard failed (the caller decides again), else the appended result's number, or 1.
_APPLY = """
for _, g in ipairs(cjson.decode(ARGV[1])) do
  local got = redis.call(g[1], KEYS[g[2]], unpack(g, 3, #g - 1))
  local want = g[#g]
  if want == '*' then
    if not got then return 0 end
  elseif string.sub(want, 1, 1) == '<' then
    if tonumber(got or '0') >= tonumber(string.sub(want, 2)) then return 0 end
  elseif tostring(got or '') ~= want then
    return 0
  end
end
for _, w in ipairs(cjson.decode(ARGV[2])) do redis.call(w[1], KEYS[w[2]], unpack(w, 3)) end
if not ARGV[3] then return 1 end
local n = redis.call('HINCRBY', KEYS[1], 'results', 1)
local head = cjson.encode({n = n, kind = ARGV[3], url = ARGV[4]})
redis.call('RPUSH', KEYS[10], head .. '\\n' .. ARGV[5])
if ARGV[3] == 'page' then redis.call('RPUSH', KEYS[11], n) end
return n
"""
# KEYS: PARTS; ARGV: now, window. What a claim is decided on, after the claims whose lease
# ran out are pending again: the budget, the claims held, and the best pending entries, each
# as [member, entry, host, host's requests under way, pattern's record, its entries claimed].
_SELECT = """
for _, key in ipairs(redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', '(' .. ARGV[1])) do
  local e = cjson.decode(redis.call('HGET', KEYS[2], key))
  redis.call('ZREM', KEYS[4], key)
  redis.call('HDEL', KEYS[5], key)
  if redis.call('SREM', KEYS[13], key) == 0 then redis.call('HINCRBY', KEYS[7], e.host, -1) end
  if e.pattern ~= '' then redis.call('HINCRBY', KEYS[15], e.pattern, -1) end
  redis.call('ZADD', KEYS[3], e.priority, string.format('%012d|', e.seq) .. key)
end
local out = redis.call('HMGET', KEYS[1], 'deadline', 'max_pages', 'max_bytes', 'pages',
  'bytes', 'stopped', 'trapped')
for i = 1, 7 do out[i] = out[i] or '' end
out[8] = redis.call('ZCARD', KEYS[4])
local function get(part, field) return redis.call('HGET', KEYS[part], field) or '' end
for _, member in ipairs(redis.call('ZRANGE', KEYS[3], 0, tonumber(ARGV[2]) - 1)) do
  local raw = redis.call('HGET', KEYS[2], string.sub(member, 14))
  local e = cjson.decode(raw)
  table.insert(out, {member, raw, get(6, e.host), get(7, e.host), get(12, e.pattern),
    get(15, e.pattern)})
end
return out
"""
# KEYS: PARTS; ARGV: key, a pattern ('' none). A claim as its ending is decided on: [lease
# end, owner, entry, released (1: its request ended), its host's politeness, the pattern's
# record].
_HELD = """
local e = redis.call('HGET', KEYS[2], ARGV[1])
local host = e and redis.call('HGET', KEYS[6], cjson.decode(e).host) or ''
return {redis.call('ZSCORE', KEYS[4], ARGV[1]) or '', redis.call('HGET', KEYS[5], ARGV[1])
  or '', e or '', redis.call('SISMEMBER', KEYS[13], ARGV[1]), host,
  redis.call('HGET', KEYS[12], ARGV[2]) or ''}
"""
# KEYS: PARTS; ARGV: entries JSON list, state ('pending' or 'refused'), and optionally a JSON
# list of each entry's `skipped` result data, recorded for the new ones. Returns how many new.
_ADD = """
local added = 0
local skips = ARGV[3] and cjson.decode(ARGV[3]) or nil
for i, e in ipairs(cjson.decode(ARGV[1])) do
  local seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
  e.seq = seq
  if redis.call('HSETNX', KEYS[2], e.key, cjson.encode(e)) == 1 then
    added = added + 1
    if ARGV[2] == 'pending' then
      redis.call('ZADD', KEYS[3], e.priority, string.format('%012d|', seq) .. e.key)
    end
    if skips then
      local n = redis.call('HINCRBY', KEYS[1], 'results', 1)
      local head = cjson.encode({n = n, kind = 'skipped', url = e.url})
      redis.call('RPUSH', KEYS[10], head .. '\\n' .. skips[i])
    end
  end
end
return added
"""
# KEYS: PARTS. The keys linked past the crawl's depth that were never seen (left unread).
_BEYOND_UNSEEN = """
local n = 0
for _, key in ipairs(redis.call('SMEMBERS', KEYS[16])) do
  if redis.call('HEXISTS', KEYS[2], key) == 0 then n = n + 1 end
end
return n
"""
# KEYS: PARTS; ARGV: kind, url, data JSON. A non-page result.
_RECORD = """
local n = redis.call('HINCRBY', KEYS[1], 'results', 1)
local head = cjson.encode({n = n, kind = ARGV[1], url = ARGV[2]})
redis.call('RPUSH', KEYS[10], head .. '\\n' .. ARGV[3])
return n
"""


def _rows(entries: list[Entry]) -> str:
    """Entries as the scripts read them (JSON objects; no parent is "")."""
    rows = [
        {
            "key": e.key,
            "url": e.url,
            "host": e.host,
            "depth": e.depth,
            "priority": e.priority,
            "parent": e.parent or "",
            "tries": e.tries,
            "pattern": e.pattern,
        }
        for e in entries
    ]
    return json.dumps(rows)


def _entry(raw: str) -> Entry:
    e = json.loads(raw)
    return Entry(
        e["key"], e["url"], e["host"], int(e["depth"]), float(e["priority"]),
        e["parent"] or None, int(e["tries"]), str(e.get("pattern") or ""),
    )  # fmt: skip


def _host(raw: str, busy: str | int = 0) -> rules.Host:
    """A host's politeness as stored (JSON; "" none yet) and its requests under way."""
    h = json.loads(raw) if raw else {}
    return rules.Host(
        float(h.get("delay", 0.0)), int(h.get("concurrency", rules.Host.concurrency)),
        float(h.get("next_at", 0.0)), bool(h.get("known", False)), int(busy or 0),
    )  # fmt: skip


def _resource(raw: str) -> str | None:
    """The pattern of the resource the entry (as `_SELECT` returns it) may show."""
    entry = _entry(raw)
    return rules.resource_scope(entry.pattern, entry.url) if entry.pattern else None


def _candidate(
    member: str,
    raw: str,
    host: str,
    busy: str,
    record: str,
    claimed: str,
    *,
    shown: dict[str, int] | None = None,
) -> rules.Candidate:
    """A row of `_SELECT`'s window as the rules read it (`shown`: entries claimed now of
    the resources' patterns)."""
    entry = _entry(raw)
    pattern = _pattern(record, claimed) if entry.pattern else None
    resource = rules.resource_scope(entry.pattern, entry.url) if entry.pattern else None
    resource_claimed = (shown or {}).get(resource, 0) if resource is not None else 0
    return rules.Candidate(entry, _host(host, busy), pattern, resource_claimed)


def _pattern(raw: str, claimed: str | int = 0) -> rules.Pattern:
    """A pattern's record as stored (JSON; "" none yet) and its entries claimed now."""
    p = json.loads(raw) if raw else {}
    return rules.Pattern(
        int(p.get("added", 0)), int(p.get("empty", 0)), int(claimed or 0),
        str(p.get("window", "")), bool(p.get("trap", False)),
    )  # fmt: skip


def _dump_pattern(record: rules.Pattern) -> str:
    fields = {"added": record.added, "empty": record.empty, "window": record.window}
    return json.dumps({**fields, "trap": record.trap})


def _ending(e: dict[str, Any], released: bool, host: str, ending: str) -> list[list[Any]]:
    """The writes that end claimed entry `e` (`release_host`, `done` or `retry`)."""
    key = e["key"]
    writes: list[list[Any]] = []
    if not released:  # a request under way: its host's slot back, and a rest
        writes.append(["HINCRBY", _INFLIGHT, e["host"], "-1"])
        rest = rules.rested(_host(host), time.time()) if host else None
        if rest is not None:
            writes.append(["HSET", _HOSTS, e["host"], _dump_host(rest)])
    if ending == "release_host":
        return [*writes, ["SADD", _RELEASED, key]]
    writes += [["ZREM", _CLAIMED, key], ["HDEL", _OWNER, key], ["SREM", _RELEASED, key]]
    if e.get("pattern"):
        writes.append(["HINCRBY", _PATTERNS, e["pattern"], "-1"])
    if ending == "retry":
        e = {**e, "tries": int(e["tries"]) + 1}
        writes.append(["HSET", _SEEN, key, json.dumps(e)])
        writes.append(["ZADD", _PENDING, str(e["priority"]), f"{int(e['seq']):012d}|{key}"])
    return writes


def _dump_host(host: rules.Host) -> str:
    fields = {"delay": host.delay, "concurrency": host.concurrency, "next_at": host.next_at}
    return json.dumps({**fields, "known": host.known})


class RedisFrontier:
    def __init__(self, url: str) -> None:
        self._redis: Redis = Redis.from_url(url, decode_responses=True)
        self._apply_script = self._redis.register_script(_APPLY)
        self._select = self._redis.register_script(_SELECT)
        self._held = self._redis.register_script(_HELD)
        self._add = self._redis.register_script(_ADD)
        self._record = self._redis.register_script(_RECORD)
        self._beyond_unseen = self._redis.register_script(_BEYOND_UNSEEN)

    @staticmethod
    def _keys(crawl: str) -> list[str]:
        return [f"{PREFIX}{crawl}:{part}" for part in PARTS]

    async def _apply(
        self,
        crawl: str,
        guards: list[list[Any]],
        writes: list[list[Any]],
        result: tuple[ResultKind, str, str] | None = None,
    ) -> int:
        """Make `writes` (and append `result`: its number) if every guard still reads as it
        did (_APPLY); 0 when one does not."""
        args = [json.dumps(guards), json.dumps(writes), *(result or ())]
        return int(await self._apply_script(keys=self._keys(crawl), args=args))

    async def _expire(self, crawl: str) -> None:
        async with self._redis.pipeline(transaction=False) as pipe:
            for key in self._keys(crawl):
                pipe.expire(key, RETENTION)
            await pipe.execute()

    async def start(self, crawl: str, *, max_pages: int, max_bytes: int, deadline: float) -> float:
        state = self._keys(crawl)[0]
        now = time.time()
        fields: dict[Any, Any] = {"started": now, "deadline": now + deadline}
        fields["max_pages"] = max_pages
        fields["max_bytes"] = max_bytes
        if await self._redis.hsetnx(state, "started", now):
            await self._redis.hset(state, mapping=fields)
            await self._expire(crawl)
        return float(await self._redis.hget(state, "started") or now)

    async def add(self, crawl: str, entries: list[Entry], *, state: str = "pending") -> int:
        if not entries:
            return 0
        return int(await self._add(keys=self._keys(crawl), args=[_rows(entries), state]))

    async def _free_dead(self, crawl: str) -> None:
        owners: dict[Any, Any] = await self._redis.hgetall(self._keys(crawl)[4])
        dead = {owner for owner in set(owners.values()) if owner_is_dead(owner)}
        for key, owner in owners.items():
            if owner in dead:
                await self._redis.zadd(self._keys(crawl)[3], {key: 0})  # lapsed: claimable

    async def claim(self, crawl: str, worker: str, *, lease: float) -> Claim:
        await self._free_dead(crawl)
        async for _ in _attempts():
            now = time.time()
            for window in (CLAIM_PEEK, CLAIM_WINDOW):
                got = await self._select(keys=self._keys(crawl), args=[now, window])
                deadline, max_pages, max_bytes, pages, size, stopped, trapped, held = got[:8]
                budget = None
                if deadline:
                    budget = rules.Budget(
                        float(deadline), int(max_pages), int(max_bytes), int(pages or 0),
                        int(size or 0), stopped or None, int(trapped or 0),
                    )  # fmt: skip
                shown = await self._resources_claimed(crawl, got[8:])
                candidates = (_candidate(*row, shown=shown) for row in got[8:])
                decision = rules.claim(budget, int(held), candidates, now)
                if decision.claim.entry is not None or len(got) - 8 < window:
                    break  # claimed, or the window held every pending entry
            rows = {member[13:]: (member, *rest) for member, *rest in got[8:]}
            entry = decision.claim.entry
            if decision.stop is not None:
                await self._redis.hsetnx(self._keys(crawl)[0], "stopped", decision.stop)
            if entry is None:
                return decision.claim
            member, _, host = rows[entry.key][:3]
            candidate = _candidate(*rows[entry.key], shown=shown)
            room = budget.max_pages - budget.pages if budget else 0
            # What the claim needs still true when it is written: its entry pending, the
            # crawl not stopped, and the budget, the host's slots and the pattern's allowance
            # still with room (rules.claim's bounds), however other claims moved them.
            guards: list[list[Any]] = [
                ["ZSCORE", _PENDING, member, "*"],
                ["HGET", _STATE, "stopped", ""],
                ["ZCARD", _CLAIMED, f"<{room}"],
                ["HGET", _HOSTS, entry.host, host],
            ]
            if not decision.claim.trapped:
                guards.append(
                    ["HGET", _INFLIGHT, entry.host, f"<{rules.host_slots(candidate.host)}"]
                )
            if candidate.pattern is not None and not decision.claim.trapped:
                allowance = rules.pattern_allowance(
                    candidate.pattern.added, candidate.pattern.empty
                )
                guards.append(["HGET", _PATTERNS, entry.pattern, f"<{allowance}"])
            writes: list[list[Any]] = [
                ["ZREM", _PENDING, member],
                ["ZADD", _CLAIMED, str(now + lease), entry.key],
                ["HSET", _OWNER, entry.key, worker],
            ]
            if entry.pattern:
                writes.append(["HINCRBY", _PATTERNS, entry.pattern, "1"])
            if decision.claim.trapped:  # no request: held without a host slot until ended
                writes.append(["SADD", _RELEASED, entry.key])
                writes.append(["HINCRBY", _STATE, "trapped", "1"])
            else:
                writes.append(["HINCRBY", _INFLIGHT, entry.host, "1"])
                if decision.host is not None:
                    writes.append(["HSET", _HOSTS, entry.host, _dump_host(decision.host)])
            if await self._apply(crawl, guards, writes):
                return decision.claim
        return Claim(wait=HOST_BUSY_WAIT)  # other claims kept winning: ask again shortly

    async def _resources_claimed(self, crawl: str, rows: list[Any]) -> dict[str, int]:
        """Entries claimed now of the patterns of the resources the window's entries may show
        (one read; it orders claims, so it needs no guard)."""
        resources = sorted({r for row in rows if (r := _resource(row[1])) is not None})
        if not resources:
            return {}
        counts = await self._redis.hmget(self._keys(crawl)[_PATTERNS - 1], resources)
        return {r: int(n or 0) for r, n in zip(resources, counts, strict=True)}

    async def _change_host(
        self, crawl: str, host: str, change: Callable[[rules.Host], rules.Host]
    ) -> None:
        hosts = self._keys(crawl)[_HOSTS - 1]
        async for _ in _attempts():
            raw = str(await self._redis.hget(hosts, host) or "")
            new = _dump_host(change(_host(raw)))
            if await self._apply(
                crawl, [["HGET", _HOSTS, host, raw]], [["HSET", _HOSTS, host, new]]
            ):
                return
        raise RuntimeError(f"the crawl's host {host} kept changing under its update")

    async def host_policy(self, crawl: str, host: str, *, delay: float, concurrency: int) -> None:
        await self._change_host(crawl, host, lambda h: rules.with_policy(h, delay, concurrency))

    async def pause_host(self, crawl: str, host: str, seconds: float) -> None:
        until = time.time() + seconds
        await self._change_host(crawl, host, lambda h: rules.paused(h, until))

    async def _end(
        self,
        crawl: str,
        key: str,
        worker: str | None,
        *,
        ending: str,
        judged: tuple[str, bool] | None = None,
    ) -> None:
        """End a claim's request (`release_host`), or the claim (`done`; `retry`: pending
        again); `worker`: only that worker's claim. `judged`: the pattern of the page read and
        whether it added (rules.judged), recorded in the same write."""
        pattern = judged[0] if judged else ""
        async for _ in _attempts():
            got = await self._held(keys=self._keys(crawl), args=[key, pattern])
            lease, owner, raw, released, host, record = got
            guards: list[list[Any]] = []
            writes: list[list[Any]] = []
            if judged is not None:  # the page is judged, whatever became of its claim
                guards.append(["HGET", _TRAPS, pattern, record])
                judgement = rules.judged(_pattern(record), judged[1])
                writes.append(["HSET", _TRAPS, pattern, _dump_pattern(judgement)])
            ended = ending == "release_host" and int(released)
            if lease and (worker is None or owner == worker) and not ended:
                guards += [
                    ["ZSCORE", _CLAIMED, key, "*"],
                    ["SISMEMBER", _RELEASED, key, str(released)],
                    ["HGET", _HOSTS, json.loads(raw)["host"], host],
                ]
                writes += _ending(json.loads(raw), int(released) == 1, host, ending)
            if not writes or await self._apply(crawl, guards, writes):
                return
        raise RuntimeError(f"the crawl's claim of {key} kept changing under its end")

    async def release_host(self, crawl: str, key: str, worker: str) -> None:
        await self._end(crawl, key, worker, ending="release_host")

    async def retry(self, crawl: str, key: str, worker: str) -> None:
        await self._end(crawl, key, worker, ending="retry")

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
        keys = self._keys(crawl)
        own = verdict.pattern if verdict is not None else None
        # Links to other patterns are queued first, alone, so their count of new ones judges
        # the page (rules.page_added: new URLs elsewhere are something a page added).
        traps: set[str] = set()
        if own is not None and (patterns := sorted({link.pattern for link in links or []})):
            records = await self._redis.hmget(keys[_TRAPS - 1], patterns)
            traps = {
                p for p, raw in zip(patterns, records, strict=True) if _pattern(str(raw or "")).trap
            }
        elsewhere = rules.other_patterns(links or [], own, traps)
        chosen = {id(link) for link in elsewhere}
        same = [link for link in links or [] if id(link) not in chosen]
        # The page's links are queued before its claim ends: the crawl never looks over
        # while they are not (queueing is idempotent, so a retried end adds nothing twice).
        async with self._redis.pipeline(transaction=True) as pipe:  # MULTI/EXEC: one trip
            for group in (elsewhere, same):
                if group:
                    await self._add(keys=keys, args=[_rows(group), "pending"], client=pipe)
            if skipped is not None:
                args: list[Any] = ["skipped", str(skipped["url"]), json.dumps(skipped, default=str)]
                await self._record(keys=keys, args=args, client=pipe)
            if refused:
                skips = json.dumps([json.dumps(data, default=str) for _, data in refused])
                entries = _rows([entry for entry, _ in refused])
                await self._add(keys=keys, args=[entries, "refused", skips], client=pipe)
            if beyond:
                pipe.sadd(keys[_BEYOND - 1], *beyond)
            answers = await pipe.execute() if len(pipe) else []
        judged = None
        if verdict is not None and verdict.pattern:
            new_elsewhere = int(answers[0]) if elsewhere else 0
            judged = (verdict.pattern, rules.page_added(verdict, new_elsewhere))
        await self._end(crawl, key, None, ending="done", judged=judged)
        if judged is not None and judged[1]:  # no trap: its held pages are kept
            record = await self._redis.hget(keys[_TRAPS - 1], judged[0])
            if rules.vouched(_pattern(str(record or ""))):
                await self._release(crawl, judged[0], trap=False)
            elif verdict is not None and verdict.held is not None:  # its links added
                await self._release(crawl, judged[0], trap=False, only=verdict.held)

    async def _holding(self, crawl: str) -> dict[str, list[tuple[str, str, dict[str, Any]]]]:
        """The held pages by pattern: (URL, stored value, value read), oldest first."""
        rows: dict[Any, Any] = await self._redis.hgetall(self._keys(crawl)[_HOLDING - 1])
        by_pattern: dict[str, list[tuple[str, str, dict[str, Any]]]] = {}
        for url, raw in rows.items():
            held = json.loads(raw)
            by_pattern.setdefault(held["pattern"], []).append((url, raw, held))
        for pages in by_pattern.values():
            pages.sort(key=lambda page: float(page[2]["at"]))
        return by_pattern

    async def _release(self, crawl: str, pattern: str, *, trap: bool, only: str = "") -> None:
        """Decide the pattern's held pages (rules.held_fate), in the order they were read;
        `only`: only the one held under that URL."""
        state = self._keys(crawl)[_STATE - 1]
        for url, raw, held in (await self._holding(crawl)).get(pattern, []):
            if only and url != only:
                continue
            async for _ in _attempts():
                pages, max_pages = await self._redis.hmget(state, ["pages", "max_pages"])
                fate = rules.held_fate(
                    trap=trap, pages=int(pages or 0), max_pages=int(max_pages or 0)
                )
                guards: list[list[Any]] = [
                    ["HGET", _HOLDING, url, raw],
                    ["HGET", _STATE, "pages", pages or ""],
                ]
                writes: list[list[Any]] = [["HDEL", _HOLDING, url]]
                result: tuple[ResultKind, str, str] | None = None
                if fate == "keep":
                    writes.append(["HINCRBY", _STATE, "pages", "1"])
                    writes.append(["HINCRBY", _STATE, "bytes", str(held["size"])])
                    result = ("page", url, str(held["data"]))
                elif fate == "drop":
                    skipped = rules.dropped(pattern, json.loads(held["data"]), url)
                    result = ("skipped", str(skipped["url"]), json.dumps(skipped, default=str))
                if await self._apply(crawl, guards, writes, result):
                    break
            else:
                raise RuntimeError(f"the crawl's held page {url} kept changing under its release")

    async def settle(self, crawl: str) -> None:
        records: dict[Any, Any] = await self._redis.hgetall(self._keys(crawl)[_TRAPS - 1])
        for pattern in await self._holding(crawl):
            await self._release(crawl, pattern, trap=_pattern(records.get(pattern, "")).trap)

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
        parts = self._keys(crawl)
        scope = rules.text_scope(pattern, url) if pattern else ""
        text = [str(value) for value in scoped(sample or [], scope)] if pattern else []
        resource = rules.resource_scope(pattern, url) if pattern else None
        shown = [str(value) for value in scoped(sample or [], resource)] if resource else []
        marks = [f"url:{key}" for key in keys] + [f"sha:{content_hash}"]
        banded = [str(band) for band in bands] if sketch is not None else []
        async for _ in _attempts():
            async with self._redis.pipeline(transaction=True) as pipe:
                pipe.hmget(parts[_MARKS - 1], marks)
                pipe.hmget(parts[_STATE - 1], ["pages", "max_pages"])
                pipe.smismember(parts[_TEXT - 1], [*text, *shown] or [""])
                if banded:
                    pipe.hmget(parts[_BANDS - 1], banded)
                seen, (pages, max_pages), known, *rest = await pipe.execute()
            lists = [json.loads(raw) if raw else [] for raw in (rest[0] if rest else [])]
            refusal = rules.admission(
                seen=next((found for found in seen if found), None),
                candidates=((int(other), str(at)) for found in lists for other, at in found),
                sketch=sketch,
                pages=int(pages or 0),
                max_pages=int(max_pages or 0),
            )
            if refusal is not None:
                return refusal
            guards: list[list[Any]] = [["HGET", _MARKS, mark, ""] for mark in marks]
            guards.append(["HGET", _STATE, "pages", pages or ""])
            writes: list[list[Any]] = [["HSETNX", _MARKS, mark, url] for mark in marks]
            for band, (raw, found) in zip(
                banded, zip(rest[0] if rest else [], lists, strict=True), strict=True
            ):
                guards.append(["HGET", _BANDS, band, raw or ""])
                writes.append(["HSET", _BANDS, band, json.dumps([*found, [str(sketch), url]])])
            if text:
                writes.append(["SADD", _TEXT, *text])
            in_pattern = sum(not found for found in known[: len(text)])
            in_resource = None
            if resource is not None:
                in_resource = sum(not found for found in known[len(text) : len(text) + len(shown)])
            new_text = bool(text) and rules.holds_new_text(
                pattern, in_pattern, len(text), in_resource
            )
            data = json.dumps(page, default=str)
            if rules.holds(pattern, new_text):
                held = {"pattern": pattern, "size": size, "data": data, "at": time.time()}
                writes.append(["HSET", _HOLDING, url, json.dumps(held)])
                if await self._apply(crawl, guards, writes):
                    return Admission(held=True, copy=rules.is_copy(in_resource, len(text)))
                continue
            writes += [["HINCRBY", _STATE, "pages", "1"], ["HINCRBY", _STATE, "bytes", str(size)]]
            if n := await self._apply(crawl, guards, writes, ("page", url, data)):
                return Admission(n=n, new_text=new_text)
        raise RuntimeError(f"the crawl's seen content kept changing under the admission of {url}")

    async def record(self, crawl: str, kind: ResultKind, url: str, data: dict[str, Any]) -> int:
        args: list[Any] = [kind, url, json.dumps(data, default=str)]
        return int(await self._record(keys=self._keys(crawl), args=args))

    async def results(
        self, crawl: str, *, since: int = 0, limit: int = 100, kind: ResultKind | None = None
    ) -> list[tuple[int, ResultKind, dict[str, Any]]]:
        keys = self._keys(crawl)
        if kind == "page":
            numbers = [int(n) for n in await self._redis.lrange(keys[10], 0, -1)]
            wanted = [n for n in numbers if n > since][:limit]
            raws: list[Any] = [await self._redis.lindex(keys[9], n - 1) for n in wanted]
        else:
            raws = await self._redis.lrange(keys[9], since, since + limit - 1)
        out: list[tuple[int, ResultKind, dict[str, Any]]] = []
        for raw in raws:
            if raw is None:
                continue
            head, _, body = raw.partition("\n")
            meta = json.loads(head)
            if kind is None or meta["kind"] == kind:
                out.append((int(meta["n"]), meta["kind"], json.loads(body)))
        return out

    async def stop(self, crawl: str, reason: str) -> None:
        await self._redis.hsetnx(self._keys(crawl)[0], "stopped", reason)
        # the keys made since `start` (all but `state`) get the retention now, from the end
        await self._expire(crawl)

    async def in_flight(self, crawl: str) -> int:
        return int(await self._redis.zcard(self._keys(crawl)[_CLAIMED - 1]))

    async def status(self, crawl: str) -> dict[str, Any]:
        keys = self._keys(crawl)
        state = await self._redis.hmget(keys[0], ["pages", "bytes", "stopped", "trapped"])
        pending = await self._redis.zcard(keys[2])
        flying = await self._redis.zcard(keys[3])
        seen = await self._redis.hlen(keys[1])
        records: dict[Any, Any] = await self._redis.hgetall(keys[_TRAPS - 1])
        return {
            "pages": int(state[0] or 0),
            "bytes": int(state[1] or 0),
            "stopped": state[2],
            "pending": int(pending),
            "in_flight": int(flying),
            "seen": int(seen),
            "traps": sorted(name for name, raw in records.items() if _pattern(raw).trap),
            "trapped": int(state[3] or 0),
            "beyond_depth": int(await self._beyond_unseen(keys=keys)),
        }

    async def aclose(self) -> None:
        await self._redis.aclose()
