"""Discoveries: notable findings an agent flags for a human, kept append-only as JSON lines.

One line per discovery, flushed as it is written, so a crash loses at most the line being
written; the reader skips a corrupt line and says which, rather than losing the rest. A line
torn by a crash (no newline at the end of the file) is repaired before the next append, under
an exclusive lock: its bytes are moved to `<file>.torn` (kept for a person, reported by the
reader and logged) and the file ends whole again, so the new line is not glued to it.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import threading
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from ..errors import InvalidInput

__all__ = ["Discovery", "DiscoveryLog", "DiscoveryRead", "repair_torn_tail"]

log = logging.getLogger(__name__)
REDIS_KEY = "netsift:discoveries"
TAIL_CHUNK = 64 * 1024  # bytes read back from the end at a time to find the last newline


def repair_torn_tail(fd: int, aside: Path) -> int:
    """If the file ends without a newline, move its last partial line to `aside` and cut it
    off; returns the bytes moved. The caller holds an exclusive lock on `fd`."""
    size = os.lseek(fd, 0, os.SEEK_END)
    if size == 0 or os.pread(fd, 1, size - 1) == b"\n":
        return 0
    start = size
    while start > 0:
        begin = max(0, start - TAIL_CHUNK)
        chunk = os.pread(fd, start - begin, begin)
        cut = chunk.rfind(b"\n")
        if cut >= 0:
            start = begin + cut + 1
            break
        start = begin
    torn = os.pread(fd, size - start, start)
    with aside.open("ab") as kept:
        kept.write(torn + b"\n")
    os.ftruncate(fd, start)
    log.warning("discoveries: a torn last line (%d bytes) was moved to %s", len(torn), aside)
    return len(torn)


class Discovery(BaseModel):
    id: str = Field(default_factory=lambda: uuid.uuid4().hex[:12])
    title: str = Field(min_length=1, max_length=300)
    description: str = Field(min_length=1, max_length=10_000)
    url: str | None = Field(default=None, max_length=8192)
    job_id: str | None = None
    at: datetime = Field(default_factory=lambda: datetime.now(UTC))


@dataclass
class DiscoveryRead:
    discoveries: list[Discovery] = field(default_factory=list)
    corrupt_lines: list[int] = field(default_factory=list)
    torn_kept: str | None = None  # where repaired torn lines were put aside, if any


class DiscoveryLog:
    """Append-only JSON-lines file of discoveries; safe for threads and concurrent processes.

    With `redis_url` (scaled out) the lines go to one Redis list instead, so the discoveries
    of every replica and worker land in one place. The Redis client is the blocking one: a
    flag is one RPUSH, and callers (the agent, the routes) use the log synchronously."""

    def __init__(self, path: Path, *, redis_url: str | None = None) -> None:
        self._redis = _sync_redis(redis_url) if redis_url else None
        self.path = path
        self.aside = path.with_name(path.name + ".torn")
        self._lock = threading.Lock()

    def flag(
        self, title: str, description: str, url: str | None = None, *, job_id: str | None = None
    ) -> Discovery:
        try:
            discovery = Discovery(title=title, description=description, url=url, job_id=job_id)
        except ValidationError as exc:
            problems = "; ".join(f"{e['loc'][0]}: {e['msg']}" for e in exc.errors())
            raise InvalidInput(f"bad discovery: {problems}") from exc
        line = discovery.model_dump_json() + "\n"
        if self._redis is not None:
            self._redis.rpush(REDIS_KEY, line.strip())
            return discovery
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._lock:
            # O_APPEND plus the lock keep each line whole with several writer processes.
            fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)  # writers of other processes wait here
                repair_torn_tail(fd, self.aside)
                os.write(fd, line.encode("utf-8"))
            finally:
                os.close(fd)  # releases the lock
        return discovery

    def read(self, *, job_id: str | None = None, limit: int | None = None) -> DiscoveryRead:
        result = DiscoveryRead(torn_kept=str(self.aside) if self.aside.exists() else None)
        if self._redis is not None:
            lines: list[bytes] = self._redis.lrange(REDIS_KEY, 0, -1)
        elif self.path.exists():
            lines = self.path.read_bytes().splitlines()
        else:
            return result
        for number, raw in enumerate(lines, start=1):
            if not raw.strip():
                continue
            try:
                item = Discovery.model_validate(json.loads(raw))
            except (ValueError, ValidationError):
                result.corrupt_lines.append(number)
                continue
            if job_id is None or item.job_id == job_id:
                result.discoveries.append(item)
        if limit is not None:
            result.discoveries = result.discoveries[-limit:]
        return result


def _sync_redis(url: str) -> Any:
    """The blocking Redis client (the redis extra, imported only when Redis is configured)."""
    from redis import Redis

    return Redis.from_url(url)
