"""Discoveries: notable findings an agent flags for a human, kept append-only as JSON lines.

One line per discovery, flushed as it is written, so a crash loses at most the line being
written; the reader skips a corrupt line and says which, rather than losing the rest.
"""

from __future__ import annotations

import json
import os
import threading
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from ..errors import InvalidInput

__all__ = ["Discovery", "DiscoveryLog", "DiscoveryRead"]


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


class DiscoveryLog:
    """Append-only JSON-lines file of discoveries; safe for threads and concurrent processes."""

    def __init__(self, path: Path) -> None:
        self.path = path
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
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._lock:
            # O_APPEND keeps each line whole even with several writer processes.
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, line.encode("utf-8"))
            finally:
                os.close(fd)
        return discovery

    def read(self, *, job_id: str | None = None, limit: int | None = None) -> DiscoveryRead:
        result = DiscoveryRead()
        if not self.path.exists():
            return result
        with self.path.open("rb") as handle:
            for number, raw in enumerate(handle, start=1):
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
