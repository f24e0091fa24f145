"""Jobs in Redis, for many API replicas and workers sharing one store.

The queue is a Redis Stream read by one consumer group (`workers`): a new job is an entry,
`XREADGROUP` hands each entry to one worker, and the entry stays in the group's pending list
until the job ends (`XACK`). The pending entry's idle time is the lease: a worker renews it
by heartbeat (`XCLAIM … JUSTID` of its own entry), and any worker takes over an entry idle
longer than the lease with `XAUTOCLAIM`, on every poll, so a dead worker's job is resumed
within a lease plus a poll, without anyone looking it up. Ownership lives in the job's state
hash and every write a worker makes is a Lua script that checks it first (fencing).

Layout (all under `netsift:`): `job:<id>` the immutable part (JSON: kind, params, created_at),
`job:<id>:state` a hash (status, owner, lease_until, attempts, cancel, result, error, usage,
checkpoint, entry), `job:<id>:events` a list (RPUSH's length is the seq), `job:<id>:keys`
the event keys already stored, `job:<id>:texts` a hash of checkpointed texts by SHA-256,
`jobs` a sorted set by creation time, `jobs:status:<status>` one such set per status (moved
inside the same Lua script that changes the status, so listing by status is a range read of
one page, never a scan), `jobs:stream`.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

from redis.asyncio import Redis
from redis.exceptions import ResponseError

from ..errors import NotFound
from ..models import Event, EventType
from .model import Beat, Job, JobStatus, LeaseLost, event_key, new_job_id

__all__ = ["RedisJobStore"]

PREFIX = "netsift:job:"
INDEX = "netsift:jobs"
STREAM = "netsift:jobs:stream"
GROUP = "workers"
RETENTION = 7 * 24 * 3600  # finished jobs and their events expire after a week
FINISHED_CHANNEL = "netsift:jobs:finished"  # each job's end is announced (sleeps wake on it)
BLOCK_MS = 500  # how long one XREADGROUP waits for a new job: bounds a stop's reaction time
BY_STATUS = "netsift:jobs:status:"  # + status: that status's jobs, scored by creation time
INDEXED = "netsift:jobs:status-indexed"  # set once the per-status sets cover every job
LIST_SLACK = 8  # extra index entries read per page: ties and expired jobs are skipped
# What a Job is read from: never the checkpoint, which can be large and only a resumed run
# reads (`checkpoint`), so a lookup or a listing stays small whatever the jobs carry.
JOB_FIELDS = (
    "status",
    "updated_at",
    "result",
    "error",
    "heartbeat_at",
    "owner",
    "lease_until",
    "attempts",
    "cancel",
    "usage",
)

# Moves a job between the per-status sets; every script that changes a status calls it. The
# sets are named inside the scripts, not passed as KEYS: the store runs on one Redis (its
# scripts already touch several jobs' keys), not on Redis Cluster.
_MOVE = f"""
local function move(index, id, old, new)
  if old == new then return end
  if old then redis.call('ZREM', '{BY_STATUS}' .. old, id) end
  local score = redis.call('ZSCORE', index, id)
  if score then redis.call('ZADD', '{BY_STATUS}' .. new, score, id) end
end
"""

# KEYS[1] state, KEYS[2] events, KEYS[3] keys; ARGV: worker ('' = none), type, at, data, key.
# Returns the seq, 0 if the event is already stored, -1 if the worker lost the job.
_APPEND = """
if ARGV[1] ~= '' then
  local s = redis.call('HMGET', KEYS[1], 'status', 'owner')
  if s[1] ~= 'running' or s[2] ~= ARGV[1] then return -1 end
end
if redis.call('SADD', KEYS[3], ARGV[5]) == 0 then return 0 end
return redis.call('RPUSH', KEYS[2], '{"type":' .. cjson.encode(ARGV[2]) .. ',"at":'
  .. cjson.encode(ARGV[3]) .. ',"data":' .. ARGV[4] .. '}')
"""
# KEYS[1] state, KEYS[2] index; ARGV: worker, entry, lease_until, now, job id. Take over an
# entry read or auto-claimed from the stream. Returns 1 when taken, 0 when the job had ended.
_TAKE = (
    _MOVE
    + """
local status = redis.call('HGET', KEYS[1], 'status')
if not status or status == 'done' or status == 'failed' or status == 'cancelled'
   or status == 'interrupted' then return 0 end
if status == 'running' and tonumber(redis.call('HGET', KEYS[1], 'lease_until') or '0')
   >= tonumber(ARGV[4]) then return 0 end
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then
  redis.call('HINCRBY', KEYS[1], 'attempts', 1)
end
redis.call('HSET', KEYS[1], 'status', 'running', 'owner', ARGV[1], 'entry', ARGV[2],
  'lease_until', ARGV[3], 'heartbeat_at', ARGV[4])
move(KEYS[2], ARGV[5], status, 'running')
return 1
"""
)
# KEYS[1] state, KEYS[2] stream; ARGV: worker, lease_until, now, group.
_BEAT = """
local s = redis.call('HMGET', KEYS[1], 'status', 'owner', 'entry', 'cancel')
if s[1] ~= 'running' or s[2] ~= ARGV[1] then return 'lost' end
redis.call('HSET', KEYS[1], 'lease_until', ARGV[2], 'heartbeat_at', ARGV[3])
redis.call('XCLAIM', KEYS[2], ARGV[4], ARGV[1], 0, s[3], 'JUSTID')
if s[4] == '1' then return 'cancel' end
return 'ok'
"""
# KEYS[1] state, KEYS[2] texts; ARGV: worker, then sha256, text pairs. Each text once.
_SAVE_TEXTS = """
local s = redis.call('HMGET', KEYS[1], 'status', 'owner')
if s[1] ~= 'running' or s[2] ~= ARGV[1] then return 0 end
for i = 2, #ARGV, 2 do redis.call('HSETNX', KEYS[2], ARGV[i], ARGV[i + 1]) end
return 1
"""
# KEYS[1] state; ARGV: worker, checkpoint, usage, now.
_SAVE = """
local s = redis.call('HMGET', KEYS[1], 'status', 'owner')
if s[1] ~= 'running' or s[2] ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'checkpoint', ARGV[2], 'usage', ARGV[3], 'heartbeat_at', ARGV[4])
return 1
"""
# KEYS[1] state; ARGV: worker, usage.
_SAVE_USAGE = """
local s = redis.call('HMGET', KEYS[1], 'status', 'owner')
if s[1] ~= 'running' or s[2] ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'usage', ARGV[2])
return 1
"""
# KEYS: state, events, keys, stream, job, index, texts; ARGV: worker ('' = none), status,
# type, at, data, key, result, error, usage, now, retention, group, job id, channel. The final
# event and the status change happen together, once, and the end is announced.
_FINISH = (
    _MOVE
    + """
local s = redis.call('HMGET', KEYS[1], 'status', 'owner', 'lease_until', 'entry')
if not s[1] then return 0 end
if s[1] == 'done' or s[1] == 'failed' or s[1] == 'cancelled' or s[1] == 'interrupted'
  then return 0 end
if ARGV[1] ~= '' then
  if s[1] ~= 'running' or s[2] ~= ARGV[1] then return 0 end
elseif s[1] == 'running' and tonumber(s[3] or '0') >= tonumber(ARGV[10]) then return 0 end
if redis.call('SADD', KEYS[3], ARGV[6]) == 1 then
  redis.call('RPUSH', KEYS[2], '{"type":' .. cjson.encode(ARGV[3]) .. ',"at":'
    .. cjson.encode(ARGV[4]) .. ',"data":' .. ARGV[5] .. '}')
end
redis.call('HSET', KEYS[1], 'status', ARGV[2], 'updated_at', ARGV[4], 'lease_until', 0,
  'heartbeat_at', ARGV[10])
move(KEYS[6], ARGV[13], s[1], ARGV[2])
redis.call('DEL', KEYS[7])
if ARGV[7] ~= '' then redis.call('HSET', KEYS[1], 'result', ARGV[7]) end
if ARGV[8] ~= '' then redis.call('HSET', KEYS[1], 'error', ARGV[8]) end
if ARGV[9] ~= '' then redis.call('HSET', KEYS[1], 'usage', ARGV[9]) end
if s[4] then
  redis.call('XACK', KEYS[4], ARGV[12], s[4])
  redis.call('XDEL', KEYS[4], s[4])
end
for i = 1, 3 do redis.call('EXPIRE', KEYS[i], ARGV[11]) end
redis.call('EXPIRE', KEYS[5], ARGV[11])
redis.call('PUBLISH', ARGV[14], ARGV[13])
return 1
"""
)
# KEYS: state, stream, index; ARGV: worker, job id, group. Hand the job back: a fresh entry.
_RELEASE = (
    _MOVE
    + """
local s = redis.call('HMGET', KEYS[1], 'status', 'owner', 'entry')
if s[1] ~= 'running' or s[2] ~= ARGV[1] then return 0 end
if s[3] then
  redis.call('XACK', KEYS[2], ARGV[3], s[3])
  redis.call('XDEL', KEYS[2], s[3])
end
local entry = redis.call('XADD', KEYS[2], '*', 'job', ARGV[2])
redis.call('HSET', KEYS[1], 'status', 'queued', 'owner', '', 'lease_until', 0, 'entry', entry)
move(KEYS[3], ARGV[2], 'running', 'queued')
return 1
"""
)
# ARGV: job id, score pairs. Files each job under its status as it is now, atomically, for
# a store written before the per-status sets existed.
_BACKFILL = f"""
for i = 1, #ARGV, 2 do
  local status = redis.call('HGET', '{PREFIX}' .. ARGV[i] .. ':state', 'status')
  if status then redis.call('ZADD', '{BY_STATUS}' .. status, ARGV[i + 1], ARGV[i]) end
end
return 1
"""
# KEYS[1] state; asks for a cancel; returns the status.
_CANCEL = """
local status = redis.call('HGET', KEYS[1], 'status')
if status == 'queued' or status == 'running' then redis.call('HSET', KEYS[1], 'cancel', '1') end
return status
"""


def _stamp() -> str:
    return datetime.now(UTC).isoformat()


class RedisJobStore:
    def __init__(self, url: str) -> None:
        self._redis: Redis = Redis.from_url(url, decode_responses=True)
        self._group_ready = False
        self._sweep_from = "0-0"  # where the next sweep of stale pending entries starts
        self._append = self._redis.register_script(_APPEND)
        self._take = self._redis.register_script(_TAKE)
        self._beat = self._redis.register_script(_BEAT)
        self._save = self._redis.register_script(_SAVE)
        self._save_usage = self._redis.register_script(_SAVE_USAGE)
        self._save_texts = self._redis.register_script(_SAVE_TEXTS)
        self._finish = self._redis.register_script(_FINISH)
        self._release = self._redis.register_script(_RELEASE)
        self._cancel = self._redis.register_script(_CANCEL)

    @staticmethod
    def _keys(job_id: str) -> tuple[str, str, str]:
        base = PREFIX + job_id
        return base + ":state", base + ":events", base + ":keys"

    async def _ensure_group(self) -> None:
        if self._group_ready:
            return
        try:
            await self._redis.xgroup_create(STREAM, GROUP, id="0", mkstream=True)
        except ResponseError as exc:
            if "BUSYGROUP" not in str(exc):
                raise
        if await self._redis.set(INDEXED, "1", nx=True):
            await self._index_statuses()
        self._group_ready = True

    async def _index_statuses(self) -> None:
        """Fill the per-status sets from the jobs of a store written before they existed
        (once per store; scripts keep them from then on)."""
        backfill = self._redis.register_script(_BACKFILL)
        async for batch in self._index_pages():
            await backfill(args=[part for pair in batch for part in pair])

    async def _index_pages(self) -> AsyncIterator[list[tuple[str, float]]]:
        cursor = 0
        while True:
            cursor, batch = await self._redis.zscan(INDEX, cursor, count=1000)
            if batch:
                yield [(str(job_id), float(score)) for job_id, score in batch]
            if not cursor:
                return

    async def create(self, kind: str, params: dict[str, Any], *, client: str | None = None) -> Job:
        await self._ensure_group()
        job = Job(id=new_job_id(), kind=kind, params=params, client=client)
        fixed = {
            "kind": kind,
            "params": params,
            "created_at": job.created_at.isoformat(),
            "client": client,
        }
        state, _, _ = self._keys(job.id)
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.set(PREFIX + job.id, json.dumps(fixed))
            pipe.hset(
                state,
                mapping={"status": "queued", "updated_at": job.updated_at.isoformat()},
            )
            pipe.zadd(INDEX, {job.id: job.created_at.timestamp()})
            pipe.zadd(BY_STATUS + "queued", {job.id: job.created_at.timestamp()})
            pipe.xadd(STREAM, {"job": job.id})
            *_, entry = await pipe.execute()
        await self._redis.hset(state, "entry", entry)
        return job

    async def get(self, job_id: str) -> Job:
        (job,) = await self._get_many([job_id])
        if job is None:
            raise NotFound(f"no job {job_id!r}", details={"job_id": job_id})
        return job

    async def _get_many(self, ids: list[str]) -> list[Job | None]:
        """Jobs by id in one round trip (None for a job that has expired)."""
        async with self._redis.pipeline(transaction=False) as pipe:
            for job_id in ids:
                state, events, _ = self._keys(job_id)
                pipe.get(PREFIX + job_id)
                pipe.hmget(state, JOB_FIELDS)
                pipe.llen(events)
            rows = await pipe.execute()
        return [
            None
            if rows[i] is None
            else self._job(
                job_id, rows[i], dict(zip(JOB_FIELDS, rows[i + 1], strict=True)), rows[i + 2]
            )
            for job_id, i in zip(ids, range(0, len(rows), 3), strict=True)
        ]

    @staticmethod
    def _job(job_id: str, raw: str, fields: dict[str, str | None], last: int) -> Job:
        fixed = json.loads(raw)
        created = datetime.fromisoformat(fixed["created_at"])
        return Job(
            id=job_id,
            kind=fixed["kind"],
            params=fixed["params"],
            created_at=created,
            status=fields.get("status") or "queued",
            updated_at=datetime.fromisoformat(fields.get("updated_at") or fixed["created_at"]),
            result=json.loads(result) if (result := fields.get("result")) else None,
            error=json.loads(error) if (error := fields.get("error")) else None,
            last_seq=int(last),
            heartbeat_at=datetime.fromtimestamp(float(fields.get("heartbeat_at") or 0), UTC)
            if fields.get("heartbeat_at")
            else created,
            owner=fields.get("owner") or None,
            lease_until=float(fields.get("lease_until") or 0),
            attempts=int(fields.get("attempts") or 0),
            cancel_requested=fields.get("cancel") == "1",
            usage=json.loads(usage) if (usage := fields.get("usage")) else {},
            client=fixed.get("client"),
        )

    async def list_jobs(
        self,
        *,
        limit: int = 50,
        status: str | None = None,
        before: str | None = None,
        client: str | None = None,
    ) -> list[Job]:
        await self._ensure_group()
        key = INDEX if status is None else BY_STATUS + status
        top: float | str = "+inf"
        if before is not None:
            score = await self._redis.zscore(INDEX, before)
            if score is None:
                raise NotFound(f"no job {before!r}", details={"job_id": before})
            top = score
        jobs: list[Job] = []
        offset = 0
        while len(jobs) < limit:
            want = limit - len(jobs) + LIST_SLACK
            rows: Any = await self._redis.zrevrangebyscore(
                key, top, "-inf", start=offset, num=want, withscores=True
            )
            offset += len(rows)
            # Jobs created in the same microsecond as the cursor: only those after it.
            ids = [i for i, s in rows if not (before is not None and s == top and i >= before)]
            for job_id, job in zip(ids, await self._get_many(ids), strict=True):
                if job is None:  # expired with its retention: forget it
                    await self._redis.zrem(INDEX, job_id)
                    await self._redis.zrem(key, job_id)
                elif (status is None or job.status == status) and (
                    client is None or job.client == client
                ):
                    jobs.append(job)
            if len(rows) < want:
                break
        return jobs[:limit]

    async def events(self, job_id: str, *, since: int = 0) -> list[Event]:
        if not await self._redis.exists(PREFIX + job_id):
            raise NotFound(f"no job {job_id!r}", details={"job_id": job_id})
        rows = await self._redis.lrange(self._keys(job_id)[1], since, -1)
        events = []
        for offset, raw in enumerate(rows, start=since + 1):
            body = json.loads(raw)
            events.append(
                Event(
                    type=body["type"],
                    job_id=job_id,
                    seq=offset,
                    at=datetime.fromisoformat(body["at"]),
                    data=body["data"],
                )
            )
        return events

    async def _take_entry(self, worker: str, entry: str, job_id: str, lease: float) -> Job | None:
        now = time.time()
        taken = await self._take(
            keys=[self._keys(job_id)[0], INDEX], args=[worker, entry, now + lease, now, job_id]
        )
        if not taken:  # it ended meanwhile (or someone holds it): the entry is spent
            if (await self._redis.hget(self._keys(job_id)[0], "entry")) != entry:
                await self._redis.xack(STREAM, GROUP, entry)
                await self._redis.xdel(STREAM, entry)
            return None
        return await self.get(job_id)

    async def claim(self, worker: str, *, lease: float, job_id: str | None = None) -> Job | None:
        await self._ensure_group()
        if job_id is not None:
            return await self._claim_one(worker, job_id, lease)
        # A dead worker's entries first: idle longer than a lease. XAUTOCLAIM looks at a
        # few pending entries per call (10 x count): each call goes on from where the last
        # stopped, so the sweep covers the whole pending list, not only its live head.
        claimed: Any = await self._redis.xautoclaim(
            STREAM,
            GROUP,
            worker,
            min_idle_time=int(lease * 1000),
            start_id=self._sweep_from,
            count=1,
        )
        self._sweep_from = str(claimed[0])
        for entry, fields in claimed[1]:
            if fields and (job := await self._take_entry(worker, entry, fields["job"], lease)):
                return job
        read: Any = await self._redis.xreadgroup(
            GROUP, worker, {STREAM: ">"}, count=1, block=BLOCK_MS
        )
        for _, entries in read or []:
            for entry, fields in entries:
                if job := await self._take_entry(worker, entry, fields["job"], lease):
                    return job
        return None

    async def _claim_one(self, worker: str, job_id: str, lease: float) -> Job | None:
        """Claim a given job (the process that started it runs it): its entry moves to this
        worker's pending list, so if this process dies another worker takes it over."""
        entry: Any = await self._redis.hget(self._keys(job_id)[0], "entry")
        if not entry:
            return None
        # Delivered to a worker already: move it to this one. Not yet delivered: whoever
        # reads it later finds it held, and this worker's heartbeat moves it here.
        await self._redis.xclaim(STREAM, GROUP, worker, 0, [entry], justid=True)
        return await self._take_entry(worker, entry, job_id, lease)

    async def beat(self, job_id: str, worker: str, *, lease: float) -> Beat:
        now = time.time()
        answer = await self._beat(
            keys=[self._keys(job_id)[0], STREAM], args=[worker, now + lease, now, GROUP]
        )
        return "cancel" if answer == "cancel" else "lost" if answer == "lost" else "ok"

    async def append_event(
        self, job_id: str, type: EventType, data: dict[str, Any], *, worker: str | None = None
    ) -> Event | None:
        if not await self._redis.exists(PREFIX + job_id):
            raise NotFound(f"no job {job_id!r}", details={"job_id": job_id})
        at = _stamp()
        seq = int(
            await self._append(
                keys=list(self._keys(job_id)),
                args=[worker or "", type, at, json.dumps(data, default=str), event_key(type, data)],
            )
        )
        if seq < 0:
            raise LeaseLost(job_id)
        if seq == 0:
            return None
        return Event(type=type, job_id=job_id, seq=seq, at=datetime.fromisoformat(at), data=data)

    async def save_checkpoint(
        self, job_id: str, worker: str, checkpoint: dict[str, Any], usage: dict[str, Any]
    ) -> None:
        saved = await self._save(
            keys=[self._keys(job_id)[0]],
            args=[worker, json.dumps(checkpoint), json.dumps(usage), time.time()],
        )
        if not saved:
            raise LeaseLost(job_id)

    async def save_usage(self, job_id: str, worker: str, usage: dict[str, Any]) -> None:
        saved = await self._save_usage(
            keys=[self._keys(job_id)[0]], args=[worker, json.dumps(usage)]
        )
        if not saved:
            raise LeaseLost(job_id)

    async def checkpoint(self, job_id: str) -> dict[str, Any] | None:
        raw = await self._redis.hget(self._keys(job_id)[0], "checkpoint")
        return json.loads(raw) if raw else None

    async def save_texts(self, job_id: str, worker: str, texts: dict[str, str]) -> None:
        if not texts:
            return
        pairs = [part for item in texts.items() for part in item]
        saved = await self._save_texts(
            keys=[self._keys(job_id)[0], PREFIX + job_id + ":texts"], args=[worker, *pairs]
        )
        if not saved:
            raise LeaseLost(job_id)

    async def texts(self, job_id: str) -> dict[str, str]:
        found: Any = await self._redis.hgetall(PREFIX + job_id + ":texts")
        return {str(sha): str(text) for sha, text in found.items()}

    async def finish(
        self,
        job_id: str,
        *,
        worker: str | None,
        status: JobStatus,
        event: tuple[EventType, dict[str, Any]],
        result: dict[str, Any] | None = None,
        error: dict[str, Any] | None = None,
        usage: dict[str, Any] | None = None,
    ) -> bool:
        type, data = event
        done = await self._finish(
            keys=[*self._keys(job_id), STREAM, PREFIX + job_id, INDEX, PREFIX + job_id + ":texts"],
            args=[
                worker or "",
                status,
                type,
                _stamp(),
                json.dumps(data, default=str),
                event_key(type, data),
                json.dumps(result) if result is not None else "",
                json.dumps(error) if error is not None else "",
                json.dumps(usage) if usage is not None else "",
                time.time(),
                RETENTION,
                GROUP,
                job_id,
                FINISHED_CHANNEL,
            ],
        )
        return bool(done)

    async def release(self, job_id: str, worker: str) -> None:
        await self._release(
            keys=[self._keys(job_id)[0], STREAM, INDEX], args=[worker, job_id, GROUP]
        )

    async def request_cancel(self, job_id: str) -> Job:
        await self._cancel(keys=[self._keys(job_id)[0]])
        return await self.get(job_id)

    async def aclose(self) -> None:
        await self._redis.aclose()
