"""Firecrawl's account calls, answered from netsift's own records: what this key spent (the
usage ledger), and its jobs running and waiting (the job store, read by the key's jobs)."""

from __future__ import annotations

import re
from typing import Any

from ....jobs.model import Job, JobStatus
from ...deps import Caller, CallerDep, ServerState, StateDep
from .paths import new_router

__all__ = ["UNMETERED", "active_jobs", "router"]

# Firecrawl's self-hosted answer for a team without a credit plan (its clients want a number).
# netsift sells no credits: a host's limits are its rate limit and search quota (429 past them).
UNMETERED = 99_999_999
JOBS_PAGE = 200  # a key's jobs read from the store per call while collecting them

router = new_router()


async def _jobs_of(state: ServerState, caller: Caller, status: JobStatus) -> list[Job]:
    """The caller's jobs in `status`, newest first (the store reads that key's only)."""
    client = state.require_client()
    jobs: list[Job] = []
    before: str | None = None
    while True:
        page = await client.list_jobs(
            limit=JOBS_PAGE, status=status, before=before, client=caller.key
        )
        jobs += page
        if len(page) < JOBS_PAGE:
            return jobs
        before = page[-1].id


async def active_jobs(state: ServerState, caller: Caller) -> tuple[list[Job], list[Job]]:
    """The caller's running and queued jobs (crawls, batches and research alike)."""
    return await _jobs_of(state, caller, "running"), await _jobs_of(state, caller, "queued")


def _account(version: str, **fields: int) -> dict[str, Any]:
    """An account answer: v1 spells its fields in snake_case (firecrawl-py's v1 types require
    it), v2 in camelCase."""
    if version == "v2":
        fields = {re.sub(r"_(\w)", lambda m: m[1].upper(), name): n for name, n in fields.items()}
    return {"success": True, "data": fields}


async def _credit_usage(state: ServerState, caller: Caller, version: str) -> dict[str, Any]:
    """Credits in Firecrawl's reckoning (a page read or a search, one each) from the usage
    ledger; netsift sells no credits, so what remains is Firecrawl's unmetered answer."""
    usage = await state.require_client().usage(caller.key)
    used = int(usage["pages"]) + int(usage["searches"])
    return _account(version, remaining_credits=UNMETERED, plan_credits=UNMETERED, credits_used=used)


async def _token_usage(state: ServerState, caller: Caller, version: str) -> dict[str, Any]:
    """Model tokens this key spent (research, chat, answers), from the usage ledger."""
    usage = await state.require_client().usage(caller.key)
    used = int(usage["tokens"])
    return _account(version, remaining_tokens=UNMETERED, plan_tokens=UNMETERED, tokens_used=used)


@router.get("/v2/team/credit-usage", summary="Firecrawl v2 credit usage")
async def credit_usage_v2(state: StateDep, caller: CallerDep) -> dict[str, Any]:
    return await _credit_usage(state, caller, "v2")


@router.get("/v1/team/credit-usage", summary="Firecrawl v1 credit usage")
async def credit_usage_v1(state: StateDep, caller: CallerDep) -> dict[str, Any]:
    return await _credit_usage(state, caller, "v1")


@router.get("/v2/team/token-usage", summary="Firecrawl v2 token usage")
async def token_usage_v2(state: StateDep, caller: CallerDep) -> dict[str, Any]:
    return await _token_usage(state, caller, "v2")


@router.get("/v1/team/token-usage", summary="Firecrawl v1 token usage")
async def token_usage_v1(state: StateDep, caller: CallerDep) -> dict[str, Any]:
    return await _token_usage(state, caller, "v1")


@router.get("/v2/concurrency-check", summary="Firecrawl concurrency check")
@router.get("/v1/concurrency-check", summary="Firecrawl concurrency check")
async def concurrency_check(state: StateDep, caller: CallerDep) -> dict[str, Any]:
    """Jobs of this key running now, against the jobs one worker runs at once."""
    running = await _jobs_of(state, caller, "running")
    return {
        "success": True,
        "concurrency": len(running),
        "maxConcurrency": state.settings.worker_concurrency,
    }


@router.get("/v2/team/queue-status", summary="Firecrawl queue status")
@router.get("/v1/team/queue-status", summary="Firecrawl queue status")
async def queue_status(state: StateDep, caller: CallerDep) -> dict[str, Any]:
    """This key's jobs running and waiting, and when its latest one finished well."""
    running, queued = await active_jobs(state, caller)
    client = state.require_client()
    latest = await client.list_jobs(limit=1, status="done", client=caller.key)
    return {
        "success": True,
        "jobsInQueue": len(running) + len(queued),
        "activeJobsInQueue": len(running),
        "waitingJobsInQueue": len(queued),
        "maxConcurrency": state.settings.worker_concurrency,
        "mostRecentSuccess": latest[0].updated_at.isoformat() if latest else None,
    }
