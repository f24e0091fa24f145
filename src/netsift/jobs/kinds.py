"""Job kinds: what a worker can run, by name (research today, crawl next).

A kind is a `run` coroutine over a `JobContext` and a `partial` summary of what a job that
did not finish had found. The registry is passed to the workers that run it, never a module
global, so two Clients with different settings can share a process.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..models import Event, EventType
from .model import Job

__all__ = ["JobContext", "Keep", "Kind", "Kinds", "Outcome"]

Emit = Callable[[EventType, dict[str, Any]], Awaitable[None]]
Save = Callable[[dict[str, Any]], Awaitable[None]]
Keep = Callable[[dict[str, str]], Awaitable[None]]


@dataclass(frozen=True)
class Outcome:
    """A job that completed: its result and the data of its final `done` event."""

    result: dict[str, Any]
    event: dict[str, Any]


@dataclass
class JobContext:
    """What a kind's `run` gets: the job, the checkpoint a previous attempt saved (None on
    the first), and the ways to record progress.

    Large texts a checkpoint would repeat on every save (the pages a research run read) are
    given to `keep` once, by SHA-256, and the checkpoint refers to them by hash; a resumed
    attempt finds them in `texts`. `keep` is None where nothing stores texts apart (then
    a kind saves them inside its checkpoint)."""

    job: Job
    saved: dict[str, Any] | None
    emit: Emit
    save: Save
    usage: dict[str, Any] = field(default_factory=dict)
    texts: dict[str, str] = field(default_factory=dict)
    keep: Keep | None = None


@dataclass(frozen=True)
class Kind:
    run: Callable[[JobContext], Awaitable[Outcome]]
    partial: Callable[[list[Event]], dict[str, Any]]


Kinds = Mapping[str, Kind]
