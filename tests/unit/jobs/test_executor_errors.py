"""A job whose run raises from inside a task group (parallel searches, parallel page reads)
ends as the error the group stands for, not as "failed unexpectedly (ExceptionGroup)"."""

from __future__ import annotations

import anyio
import pytest
from pydantic import BaseModel

from netsift.errors import ProviderUnavailable
from netsift.jobs import JobContext, Jobs, Kind, Outcome
from netsift.jobs.executor import real_cause
from netsift.jobs.model import LeaseLost
from netsift.jobs.sqlite import MemoryJobStore


class Raise(BaseModel):
    what: str


class Nothing(BaseModel):
    pass


def _error(what: str) -> Exception:
    if what == "netsift":
        return ProviderUnavailable("the provider hung up")
    if what == "lease":
        return LeaseLost("another worker holds the lease")
    return KeyError("sources")


async def _raise_in_a_group(context: JobContext[Raise, Nothing]) -> Outcome[Nothing]:
    async def fails() -> None:
        raise _error(context.params.what)

    async def waits() -> None:
        await anyio.sleep(10)

    async with anyio.create_task_group() as group:
        group.start_soon(waits)
        group.start_soon(fails)
    return Outcome(Nothing())


RAISE = Kind("raise", Raise, Nothing, _raise_in_a_group)


@pytest.mark.parametrize(
    ("what", "status", "code", "message"),
    [
        ("netsift", "failed", "provider_unavailable", "the provider hung up"),
        ("other", "failed", "internal", "failed unexpectedly (KeyError)"),
    ],
)
async def test_an_error_inside_a_task_group_is_named_by_the_job(what, status, code, message):
    store = MemoryJobStore()
    async with Jobs(store, {RAISE.name: RAISE}, lease=60) as jobs:
        job = await jobs.start(RAISE, Raise(what=what))
        ended = await jobs.wait(job.id, timeout=10)
    assert ended.status == status
    assert ended.error is not None and ended.error["code"] == code
    assert message in ended.error["message"] and "ExceptionGroup" not in ended.error["message"]
    await store.aclose()


def test_a_lost_lease_inside_a_group_is_the_cause_before_any_other_error():
    group = ExceptionGroup("tasks", [KeyError("x"), ExceptionGroup("inner", [LeaseLost("gone")])])
    assert isinstance(real_cause(group), LeaseLost)
    provider = ProviderUnavailable("down")
    assert real_cause(ExceptionGroup("tasks", [ValueError("v"), provider])) is provider
    plain = ValueError("plain")
    assert real_cause(plain) is plain
