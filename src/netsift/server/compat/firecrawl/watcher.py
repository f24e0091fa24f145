"""Firecrawl's watcher: a WebSocket that follows a crawl (or a batch) as it reads, served from
the job's own events (the job runtime's `follow_job`), as Firecrawl's server speaks it:

- `catchup`: on connect, the job's state (its status answer) with every document so far;
- `document`: each page kept after that, as it is kept;
- at the end, on v2, `catchup` again with the final state (`completed` or `cancelled`, no
  more documents: firecrawl-js and firecrawl-py both report that state, and end), or `error`
  with the reason of a failed job; then the socket closes (1000, `{"type":"done"}`, the close
  Firecrawl's server ends with, which v1's watchers read as the end; a second `catchup` would
  make them report every document again, so v1 gets none).

A job that has already ended answers `catchup` (its documents, its final status) and closes.
The paths are the status routes' (`/v2/crawl/{id}`; `/v2/batch/scrape/{id}`, where
firecrawl-py's watcher looks for a batch); firecrawl-js sends its key as the subprotocol,
which is answered back as Firecrawl's server does, so the handshake completes."""

from __future__ import annotations

import json
from typing import Any

import anyio
from fastapi import WebSocket, WebSocketDisconnect

from ....crawl.batch import BATCH
from ....errors import NetsiftError
from ....jobs.model import Job
from ...auth import BEARER_SUBPROTOCOL
from ...deps import Caller, ServerState, authenticate, state_of
from ...operations import Operations
from .paths import new_router
from .status import documents, snapshot

__all__ = ["router"]

NORMAL = 1000  # the job ended and everything was sent
POLICY_VIOLATION = 1008  # no key, a wrong one, over the rate limit, or no such job
MAX_REASON = 120  # a close frame's reason is at most 123 bytes
CUT_STEP = 8  # characters an error too long for the reason loses per try
CRAWL = "crawl"

router = new_router()


def _offered(websocket: WebSocket) -> list[str]:
    return list(websocket.scope.get("subprotocols", []))


def _caller(state: ServerState, websocket: WebSocket) -> Caller:
    """The caller: `Authorization` (firecrawl-py), netsift's own subprotocol pair, or the key
    offered as the one subprotocol (firecrawl-js). Raises Unauthorized."""
    offered = _offered(websocket)
    plain_key = offered and BEARER_SUBPROTOCOL not in offered
    if "authorization" not in websocket.headers and plain_key:
        fingerprint = state.auth.check(f"Bearer {offered[0]}")
        if fingerprint is not None:
            return Caller(key=fingerprint, label=fingerprint)
    return authenticate(state, websocket)


async def _close(websocket: WebSocket, code: int, message: dict[str, str]) -> None:
    """Close with `message` as the reason (JSON, ASCII), its `error` cut to fit the frame."""
    reason, error = json.dumps(message), message.get("error", "")
    while len(reason) > MAX_REASON and error:
        error = error[:-CUT_STEP]
        reason = json.dumps({**message, "error": error + "..."})
    await websocket.close(code=code, reason=reason)


async def _send(websocket: WebSocket, message: dict[str, Any]) -> None:
    await websocket.send_text(json.dumps(message, default=str))


async def _follow(websocket: WebSocket, ops: Operations, job: Job, version: str) -> None:
    """Catch up, then each document as it is kept, then the end."""
    client = ops.client
    last = 0
    caught_up: list[dict[str, Any]] = []
    async for n, fields in documents(ops, job):
        last = n
        caught_up.append(fields)
    await _send(
        websocket, {"type": "catchup", "data": {**await snapshot(client, job), "data": caught_up}}
    )
    if not job.finished:
        async for event in client.follow_job(job.id, since=job.last_seq):
            if event.type != "page":
                continue
            async for n, fields in documents(ops, job, since=last):
                last = n
                await _send(websocket, {"type": "document", "data": fields})
        job = await client.job(job.id)
        async for n, fields in documents(ops, job, since=last):
            last = n
            await _send(websocket, {"type": "document", "data": fields})
        final = {**await snapshot(client, job), "data": []}
        if final["status"] == "failed":
            await _send(websocket, {"type": "error", "error": final.get("error", job.status)})
        elif version == "v2":
            await _send(websocket, {"type": "catchup", "data": final})
    await _close(websocket, NORMAL, {"type": "done"})


async def _watch(websocket: WebSocket, job_id: str, kind: str, version: str) -> None:
    """Accept, then refuse with a reason (as Firecrawl's server does: its clients read the
    close frame), or follow the job."""
    state = state_of(websocket)
    offered = _offered(websocket)
    await websocket.accept(subprotocol=offered[0] if offered else None)
    try:
        caller = _caller(state, websocket)
        await state.limits.hit_request(caller.key)
        job = await state.require_client().job(job_id, kind=kind)
    except NetsiftError as error:
        await _close(websocket, POLICY_VIOLATION, {"type": "error", "error": error.message})
        return
    async with anyio.create_task_group() as group:

        async def until_closed() -> None:
            try:
                while (await websocket.receive())["type"] != "websocket.disconnect":
                    pass
            except (WebSocketDisconnect, RuntimeError):
                pass
            group.cancel_scope.cancel()

        group.start_soon(until_closed)
        try:
            await _follow(websocket, Operations(state, caller), job, version)
        except (WebSocketDisconnect, OSError, RuntimeError):
            pass  # the client left while its documents were being sent
        group.cancel_scope.cancel()


@router.websocket("/v2/crawl/{job_id}")
async def watch_crawl_v2(websocket: WebSocket, job_id: str) -> None:
    await _watch(websocket, job_id, CRAWL, "v2")


@router.websocket("/v1/crawl/{job_id}")
async def watch_crawl_v1(websocket: WebSocket, job_id: str) -> None:
    await _watch(websocket, job_id, CRAWL, "v1")


@router.websocket("/v2/batch/scrape/{job_id}")
async def watch_batch_v2(websocket: WebSocket, job_id: str) -> None:
    await _watch(websocket, job_id, BATCH, "v2")


@router.websocket("/v1/batch/scrape/{job_id}")
async def watch_batch_v1(websocket: WebSocket, job_id: str) -> None:
    await _watch(websocket, job_id, BATCH, "v1")
