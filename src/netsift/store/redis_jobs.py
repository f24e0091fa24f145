"""Jobs in Redis, for many API replicas and research workers sharing one store.

Layout: `netsift:job:<id>` (JSON of the Job), `netsift:jobs` (sorted set by creation time),
`netsift:job:<id>:events` (list of event JSON; RPUSH's returned length is the event's seq, so
sequence numbers stay gap-free and ordered even with several writers).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from redis.asyncio import Redis

from ..errors import NotFound
from ..models import Event, EventType
from .jobs import STALE_AFTER, Job, JobStatus, is_abandoned, new_job_id, updated

__all__ = ["RedisJobStore"]

PREFIX = "netsift:job:"
INDEX = "netsift:jobs"
RETENTION = 7 * 24 * 3600  # finished jobs and their events expire after a week


def _now() -> datetime:
    return datetime.now(UTC)


class RedisJobStore:
    def __init__(self, url: str) -> None:
        self._redis: Redis = Redis.from_url(url, decode_responses=True)

    async def _save(self, job: Job) -> None:
        ttl = RETENTION if job.finished else None
        await self._redis.set(PREFIX + job.id, job.model_dump_json(), ex=ttl)

    async def create(self, kind: str, params: dict[str, Any]) -> Job:
        job = Job(id=new_job_id(), kind=kind, params=params)
        await self._save(job)
        await self._redis.zadd(INDEX, {job.id: job.created_at.timestamp()})
        return job

    async def get(self, job_id: str) -> Job:
        raw = await self._redis.get(PREFIX + job_id)
        if raw is None:
            raise NotFound(f"no job {job_id!r}", details={"job_id": job_id})
        job = Job.model_validate_json(raw)
        last = await self._redis.llen(PREFIX + job_id + ":events")
        return job.model_copy(update={"last_seq": int(last)})

    async def list_jobs(self, *, limit: int = 50, status: str | None = None) -> list[Job]:
        ids = await self._redis.zrevrange(INDEX, 0, -1 if status else limit - 1)
        jobs: list[Job] = []
        for job_id in map(str, ids):
            try:
                job = await self.get(job_id)
            except NotFound:
                await self._redis.zrem(INDEX, job_id)  # expired
                continue
            if status is None or job.status == status:
                jobs.append(job)
            if len(jobs) >= limit:
                break
        return jobs

    async def update(
        self,
        job_id: str,
        *,
        status: JobStatus,
        result: dict[str, Any] | None = None,
        error: dict[str, Any] | None = None,
        owner: str | None = None,
    ) -> Job:
        job = updated(
            await self.get(job_id), status=status, result=result, error=error, owner=owner
        )
        await self._save(job)
        if job.finished:
            await self._redis.expire(PREFIX + job_id + ":events", RETENTION)
        return job

    async def append_event(self, job_id: str, type: EventType, data: dict[str, Any]) -> Event:
        await self.get(job_id)
        at = _now()
        body = {"type": type, "at": at.isoformat(), "data": data}
        seq = await self._redis.rpush(PREFIX + job_id + ":events", json.dumps(body, default=str))
        await self.heartbeat(job_id)
        return Event(type=type, job_id=job_id, seq=int(seq), at=at, data=data)

    async def events(self, job_id: str, *, since: int = 0) -> list[Event]:
        await self.get(job_id)
        rows = await self._redis.lrange(PREFIX + job_id + ":events", since, -1)
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

    async def heartbeat(self, job_id: str) -> None:
        job = await self.get(job_id)
        await self._save(job.model_copy(update={"heartbeat_at": _now()}))

    async def mark_interrupted(self, *, stale_after: float = STALE_AFTER) -> list[str]:
        marked: list[str] = []
        for job_id in map(str, await self._redis.zrange(INDEX, 0, -1)):
            try:
                job = await self.get(job_id)
            except NotFound:
                continue
            if is_abandoned(job, stale_after=stale_after):
                await self.update(job_id, status="interrupted")
                marked.append(job_id)
        return marked

    async def aclose(self) -> None:
        await self._redis.aclose()
