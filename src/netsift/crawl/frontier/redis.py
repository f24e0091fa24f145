"""The crawl frontier in Redis, for workers on many machines sharing one crawl.

The same contract as store/frontier.py's SQLite frontier, each multi-step change one Lua
script (atomic on the server): a claim picks the best pending URL whose host is free and
sets the host's next time; an admission checks the seen content and the page budget and
keeps the page. Layout, all under `netsift:crawl:<id>:` — `state` a hash (budgets, counts,
stopped), `seen` a hash key → entry JSON (the seen-set), `pending` a sorted set by priority
(members `seq|key`, so equal priorities keep discovery order), `claimed` a sorted set by
lease end with `owner` a hash, `hosts` a hash host → politeness JSON, `inflight` a hash host
→ count of requests under way, `released` the set of claimed keys whose request has ended
(they hold their claim but no host slot), `marks` and `bands` (content seen), `results` a
list and `pages` the list of the page results' numbers, `traps` a hash pattern → duplicates,
`kept` a hash pattern → pages kept, `patterns` a hash pattern → entries claimed. Everything
expires with the job's retention.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from redis.asyncio import Redis

from ...jobs.model import owner_is_dead
from ...jobs.redis import RETENTION
from .model import CLAIM_WINDOW, Admission, Claim, Entry, ResultKind

__all__ = ["RedisFrontier"]

PREFIX = "netsift:crawl:"
PARTS = (
    "state", "seen", "pending", "claimed", "owner", "hosts", "inflight", "marks", "bands",
    "results", "pages", "traps", "released", "kept", "patterns",
)  # fmt: skip

# A claim ended (or lapsed): its pattern's count of entries claimed goes down.
_UNPATTERN = """
local function unpattern(e)
  if e.pattern and e.pattern ~= '' then redis.call('HINCRBY', KEYS[15], e.pattern, -1) end
end
"""
# KEYS: the PARTS in order; ARGV: worker, now, lease, window, trap limit ('' none). Returns
# the entry JSON (prefixed "trap|" when its pattern is a trap), or "wait:<seconds>", or ""
# when the crawl is over.
_CLAIM = (
    _UNPATTERN
    + """
local st = redis.call('HMGET', KEYS[1], 'deadline', 'max_pages', 'pages', 'stopped',
  'max_bytes', 'bytes')
if not st[1] or st[4] then return '' end
local now = tonumber(ARGV[2])
local function stop(reason) redis.call('HSETNX', KEYS[1], 'stopped', reason) return '' end
if now >= tonumber(st[1]) then return stop('time') end
if tonumber(st[6] or '0') >= tonumber(st[5]) then return stop('max_bytes') end
local pages = tonumber(st[3] or '0')
if pages >= tonumber(st[2]) then return stop('max_pages') end
for _, key in ipairs(redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', '(' .. ARGV[2])) do
  local e = cjson.decode(redis.call('HGET', KEYS[2], key))
  redis.call('ZREM', KEYS[4], key)
  redis.call('HDEL', KEYS[5], key)
  if redis.call('SREM', KEYS[13], key) == 0 then redis.call('HINCRBY', KEYS[7], e.host, -1) end
  unpattern(e)
  redis.call('ZADD', KEYS[3], e.priority, string.format('%012d|', e.seq) .. key)
end
local flying = redis.call('ZCARD', KEYS[4])
if pages + flying >= tonumber(st[2]) then return 'wait:0.05' end  -- HOST_BUSY_WAIT
local soonest = nil
local trap_limit = tonumber(ARGV[5])
local function hold(member, key, e)
  redis.call('ZREM', KEYS[3], member)
  redis.call('ZADD', KEYS[4], now + tonumber(ARGV[3]), key)
  redis.call('HSET', KEYS[5], key, ARGV[1])
  if e.pattern and e.pattern ~= '' then redis.call('HINCRBY', KEYS[15], e.pattern, 1) end
end
local members = redis.call('ZRANGE', KEYS[3], 0, tonumber(ARGV[4]) - 1)
for _, member in ipairs(members) do
  local key = string.sub(member, 14)
  local e = cjson.decode(redis.call('HGET', KEYS[2], key))
  local raw = redis.call('HGET', KEYS[6], e.host)
  local h = raw and cjson.decode(raw) or {delay = 0, concurrency = 1, next_at = 0, known = 0}
  local busy = tonumber(redis.call('HGET', KEYS[7], e.host) or '0')
  local limit = (h.known == 1) and h.concurrency or 1
  local patterned = e.pattern and e.pattern ~= ''
  local dups, allowance, claimed = 0, 1, 0
  if patterned then
    dups = tonumber(redis.call('HGET', KEYS[12], e.pattern) or '0')
    local kept = tonumber(redis.call('HGET', KEYS[14], e.pattern) or '0')
    allowance = math.max(1, 1 + kept - dups)  -- pattern_allowance
    claimed = tonumber(redis.call('HGET', KEYS[15], e.pattern) or '0')
  end
  if patterned and trap_limit and dups >= trap_limit then
    hold(member, key, e)  -- no request: held without a host slot until it is ended
    redis.call('SADD', KEYS[13], key)
    return 'trap|' .. cjson.encode(e)
  elseif patterned and claimed >= allowance then  -- HOST_BUSY_WAIT
    soonest = math.min(soonest or 0.05, 0.05)
  elseif busy >= limit then  -- HOST_BUSY_WAIT
    soonest = math.min(soonest or 0.05, 0.05)
  elseif h.next_at > now then
    soonest = math.min(soonest or (h.next_at - now), h.next_at - now)
  else
    hold(member, key, e)
    redis.call('HINCRBY', KEYS[7], e.host, 1)
    h.next_at = now + h.delay
    redis.call('HSET', KEYS[6], e.host, cjson.encode(h))
    return cjson.encode(e)
  end
end
if soonest then return 'wait:' .. soonest end
if flying > 0 then return 'wait:0.1' end  -- IN_FLIGHT_WAIT
return ''
"""
)
# The host's slot given back and its delay counted from now (ARGV[3]): a request has ended.
_REST = """
local function rest(e)
  redis.call('HINCRBY', KEYS[7], e.host, -1)
  local raw = redis.call('HGET', KEYS[6], e.host)
  if raw then
    local h = cjson.decode(raw)
    h.next_at = math.max(h.next_at, tonumber(ARGV[3]) + h.delay)
    redis.call('HSET', KEYS[6], e.host, cjson.encode(h))
  end
end
"""
# KEYS: PARTS; ARGV: key, worker, now, retry (1: back to pending). Ends a claim.
_RELEASE = (
    _REST
    + _UNPATTERN
    + """
if redis.call('ZREM', KEYS[4], ARGV[1]) == 0 then return 0 end
redis.call('HDEL', KEYS[5], ARGV[1])
local e = cjson.decode(redis.call('HGET', KEYS[2], ARGV[1]))
if redis.call('SREM', KEYS[13], ARGV[1]) == 0 then rest(e) end
unpattern(e)
if ARGV[4] == '1' then
  e.tries = e.tries + 1
  redis.call('HSET', KEYS[2], ARGV[1], cjson.encode(e))
  redis.call('ZADD', KEYS[3], e.priority, string.format('%012d|', e.seq) .. ARGV[1])
end
return 1
"""
)
# KEYS: PARTS; ARGV: key, worker, now. The claim's request ended: its host's slot is free.
_RELEASE_HOST = (
    _REST
    + """
if redis.call('HGET', KEYS[5], ARGV[1]) ~= ARGV[2] then return 0 end
if redis.call('SADD', KEYS[13], ARGV[1]) == 0 then return 0 end
rest(cjson.decode(redis.call('HGET', KEYS[2], ARGV[1])))
return 1
"""
)
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
# KEYS: PARTS; ARGV: marks JSON, bands JSON, sketch ('' none), url, size, data JSON, '' or
# 'checked', the page's path pattern ('' none).
# Returns "dup:<url>", "full", or the page's number; near-duplicates are judged in Python
# (the candidates are returned as "near:<json>" for a second call with ARGV[7] = 'checked').
_ADMIT = """
for _, mark in ipairs(cjson.decode(ARGV[1])) do
  local url = redis.call('HGET', KEYS[8], mark)
  if url then return 'dup:' .. url end
end
if ARGV[3] ~= '' and ARGV[7] ~= 'checked' then
  local candidates = {}
  for _, band in ipairs(cjson.decode(ARGV[2])) do
    local raw = redis.call('HGET', KEYS[9], tostring(band))
    if raw then for _, c in ipairs(cjson.decode(raw)) do table.insert(candidates, c) end end
  end
  if #candidates > 0 then return 'near:' .. cjson.encode(candidates) end
end
local st = redis.call('HMGET', KEYS[1], 'pages', 'max_pages')
if tonumber(st[1] or '0') >= tonumber(st[2]) then return 'full' end
for _, mark in ipairs(cjson.decode(ARGV[1])) do redis.call('HSETNX', KEYS[8], mark, ARGV[4]) end
if ARGV[3] ~= '' then
  for _, band in ipairs(cjson.decode(ARGV[2])) do
    local raw = redis.call('HGET', KEYS[9], tostring(band))
    local list = raw and cjson.decode(raw) or {}
    table.insert(list, {ARGV[3], ARGV[4]})
    redis.call('HSET', KEYS[9], tostring(band), cjson.encode(list))
  end
end
local n = redis.call('HINCRBY', KEYS[1], 'results', 1)
local head = cjson.encode({n = n, kind = 'page', url = ARGV[4]})
redis.call('RPUSH', KEYS[10], head .. '\\n' .. ARGV[6])
redis.call('RPUSH', KEYS[11], n)
redis.call('HINCRBY', KEYS[1], 'pages', 1)
redis.call('HINCRBY', KEYS[1], 'bytes', tonumber(ARGV[5]))
if ARGV[8] ~= '' then redis.call('HINCRBY', KEYS[14], ARGV[8], 1) end
return tostring(n)
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


class RedisFrontier:
    def __init__(self, url: str) -> None:
        self._redis: Redis = Redis.from_url(url, decode_responses=True)
        self._claim = self._redis.register_script(_CLAIM)
        self._release = self._redis.register_script(_RELEASE)
        self._release_host = self._redis.register_script(_RELEASE_HOST)
        self._add = self._redis.register_script(_ADD)
        self._admit = self._redis.register_script(_ADMIT)
        self._record = self._redis.register_script(_RECORD)

    @staticmethod
    def _keys(crawl: str) -> list[str]:
        return [f"{PREFIX}{crawl}:{part}" for part in PARTS]

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

    async def claim(
        self, crawl: str, worker: str, *, lease: float, trap_limit: int | None = None
    ) -> Claim:
        await self._free_dead(crawl)
        limit = "" if trap_limit is None else trap_limit
        args: list[Any] = [worker, time.time(), lease, CLAIM_WINDOW, limit]
        answer = str(await self._claim(keys=self._keys(crawl), args=args))
        if not answer:
            return Claim()
        if answer.startswith("wait:"):
            return Claim(wait=float(answer.removeprefix("wait:")))
        trapped = answer.startswith("trap|")
        e = json.loads(answer.removeprefix("trap|"))
        entry = Entry(
            e["key"], e["url"], e["host"], int(e["depth"]), float(e["priority"]),
            e["parent"] or None, int(e["tries"]), str(e.get("pattern") or ""),
        )  # fmt: skip
        return Claim(entry=entry, trapped=trapped)

    async def host_policy(self, crawl: str, host: str, *, delay: float, concurrency: int) -> None:
        hosts = self._keys(crawl)[5]
        raw = await self._redis.hget(hosts, host)
        old = json.loads(raw) if raw else {"next_at": 0, "delay": 0}
        policy = {"delay": delay, "concurrency": concurrency, "known": 1}
        policy["next_at"] = float(old["next_at"]) - float(old["delay"]) + delay
        await self._redis.hset(hosts, host, json.dumps(policy))

    async def pause_host(self, crawl: str, host: str, seconds: float) -> None:
        hosts = self._keys(crawl)[5]
        raw = await self._redis.hget(hosts, host)
        policy = json.loads(raw) if raw else {"delay": 0, "concurrency": 1, "known": 0}
        policy["next_at"] = max(float(policy.get("next_at", 0)), time.time() + seconds)
        await self._redis.hset(hosts, host, json.dumps(policy))

    async def release_host(self, crawl: str, key: str, worker: str) -> None:
        await self._release_host(keys=self._keys(crawl), args=[key, worker, time.time()])

    async def retry(self, crawl: str, key: str, worker: str) -> None:
        await self._release(keys=self._keys(crawl), args=[key, worker, time.time(), "1"])

    async def done(
        self,
        crawl: str,
        key: str,
        worker: str,
        *,
        links: list[Entry] | None = None,
        refused: list[tuple[Entry, dict[str, Any]]] | None = None,
        skipped: dict[str, Any] | None = None,
    ) -> None:
        keys = self._keys(crawl)
        async with self._redis.pipeline(transaction=True) as pipe:  # MULTI/EXEC: one trip
            if skipped is not None:
                args: list[Any] = ["skipped", str(skipped["url"]), json.dumps(skipped, default=str)]
                await self._record(keys=keys, args=args, client=pipe)
            if links:
                await self._add(keys=keys, args=[_rows(links), "pending"], client=pipe)
            if refused:
                skips = json.dumps([json.dumps(data, default=str) for _, data in refused])
                entries = _rows([entry for entry, _ in refused])
                await self._add(keys=keys, args=[entries, "refused", skips], client=pipe)
            await self._release(keys=keys, args=[key, worker, time.time(), "0"], client=pipe)
            await pipe.execute()

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
        near: Callable[[int, int], bool],
        pattern: str = "",
    ) -> Admission:
        marks = json.dumps([f"url:{key}" for key in keys] + [f"sha:{content_hash}"])
        args: list[Any] = [marks, json.dumps(bands), "" if sketch is None else str(sketch)]
        args += [url, size]
        args += [json.dumps(page, default=str), "", pattern]
        answer = str(await self._admit(keys=self._keys(crawl), args=args))
        if answer.startswith("near:") and sketch is not None:
            for other, other_url in json.loads(answer.removeprefix("near:")):
                if near(int(other), sketch):
                    return Admission(duplicate_of=str(other_url))
            args[-2] = "checked"
            answer = str(await self._admit(keys=self._keys(crawl), args=args))
        if answer.startswith("dup:"):
            return Admission(duplicate_of=answer.removeprefix("dup:"))
        if answer == "full":
            return Admission(full=True)
        return Admission(n=int(answer))

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

    async def mark_trap(self, crawl: str, pattern: str) -> int:
        return int(await self._redis.hincrby(self._keys(crawl)[11], pattern, 1))

    async def traps(self, crawl: str, *, limit: int) -> set[str]:
        counts: dict[Any, Any] = await self._redis.hgetall(self._keys(crawl)[11])
        return {pattern for pattern, count in counts.items() if int(count) >= limit}

    async def stop(self, crawl: str, reason: str) -> None:
        await self._redis.hsetnx(self._keys(crawl)[0], "stopped", reason)
        # the keys made since `start` (all but `state`) get the retention now, from the end
        await self._expire(crawl)

    async def status(self, crawl: str) -> dict[str, Any]:
        keys = self._keys(crawl)
        state = await self._redis.hmget(keys[0], ["pages", "bytes", "stopped"])
        pending = await self._redis.zcard(keys[2])
        flying = await self._redis.zcard(keys[3])
        seen = await self._redis.hlen(keys[1])
        return {
            "pages": int(state[0] or 0),
            "bytes": int(state[1] or 0),
            "stopped": state[2],
            "pending": int(pending),
            "in_flight": int(flying),
            "seen": int(seen),
        }

    async def aclose(self) -> None:
        await self._redis.aclose()
