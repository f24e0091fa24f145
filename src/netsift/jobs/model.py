"""A durable job: its record (id, kind, status, params, result, lease) and the identities
a store needs (ids, event keys, whether a lease holder still lives)."""

from __future__ import annotations

import hashlib
import json
import os
import socket
import uuid
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from ..models import EventType

__all__ = [
    "FINISHED",
    "Beat",
    "Job",
    "JobStatus",
    "LeaseLost",
    "event_key",
    "new_job_id",
    "owner_is_dead",
    "this_host",
    "utc_now",
]

JobStatus = Literal["queued", "running", "done", "failed", "cancelled", "interrupted"]
FINISHED: frozenset[str] = frozenset({"done", "failed", "cancelled", "interrupted"})
Beat = Literal["ok", "cancel", "lost"]


class LeaseLost(Exception):
    """This worker no longer owns the job (its lease ran out and another took it, or the job
    ended): it must stop without writing anything more."""


def utc_now() -> datetime:
    return datetime.now(UTC)


class Job(BaseModel):
    id: str
    kind: str = "research"
    status: JobStatus = "queued"
    params: dict[str, Any] = Field(default_factory=dict)
    created_at: datetime = Field(default_factory=utc_now)
    updated_at: datetime = Field(default_factory=utc_now)
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    last_seq: int = 0
    heartbeat_at: datetime = Field(default_factory=utc_now)
    owner: str | None = None  # host:pid:tag of the worker holding the lease
    lease_until: float = 0.0  # epoch seconds; a running job past it is claimable
    attempts: int = 0  # workers that took it: 2+ means it was resumed after one stopped
    cancel_requested: bool = False
    usage: dict[str, Any] = Field(default_factory=dict)  # searches, pages, tokens charged
    client: str | None = None  # the API key (fingerprint) it is charged to

    @property
    def finished(self) -> bool:
        return self.status in FINISHED


def this_host() -> str:
    return socket.gethostname()


def new_job_id() -> str:
    return uuid.uuid4().hex[:16]


def event_key(type: EventType, data: dict[str, Any]) -> str:
    """An event's identity within its job: a step redone after a takeover emits the same
    events again, and the store keeps each once."""
    body = json.dumps([type, data], sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(body.encode()).hexdigest()[:32]


def owner_is_dead(owner: str | None) -> bool:
    """True when the owner was a process on this machine that no longer exists: a job left
    by a killed process need not wait for its lease to run out."""
    if not owner:
        return False
    host, _, rest = owner.partition(":")
    pid_text = rest.partition(":")[0]
    if host != this_host() or not pid_text.isdigit():
        return False
    pid = int(pid_text)
    if pid == os.getpid():
        return False  # this process: another worker of ours, alive or not, is not ours to judge
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False
