"""`/v1/ws`: one WebSocket, many requests in flight, each answered with events by request_id.

A client sends `{"type": "search", "request_id": "...", ...}`: the type is an operation's
(`by_ws` in operations.py: search, batch, fetch, meta, map, context, extract, extract_data and
the toolbelt's), the rest the same fields as its REST body (extract's `html` included)
and receives `started`, the provider attempts, `result` and `done`, or `error`, each carrying
its `request_id`; `research` and `crawl` start or follow a job and receive its events.
Requests run concurrently and their events interleave. A bad message gets an `error` for its
request_id and the socket stays open. The handshake needs the same bearer key as REST: in
`Authorization`, or, from a browser (which cannot set that header), as the subprotocols
`["netsift.bearer", "<key>"]`; the server then answers with the `netsift.bearer` subprotocol.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from pydantic import BaseModel, ValidationError

from ...errors import InvalidInput, NetsiftError, RateLimited, Unauthorized
from ...operations import Operation, by_ws
from ..auth import BEARER_SUBPROTOCOL
from ..body_bounds import check_depth
from ..deps import ServerState, authenticate, state_of
from ..events import EventChannel, encode_ws
from ..operations import Operations
from ..responses import REQUEST_ID_PATTERN, describe_validation, request_model
from . import crawl, research

__all__ = ["router"]

router = APIRouter(tags=["stream"])
log = logging.getLogger(__name__)

MAX_IN_FLIGHT = 16
POLICY_VIOLATION = 1008
UNSUPPORTED_DATA = 1003  # a binary frame: messages are JSON text
INTERNAL_ERROR = 1011
JobMessage = Callable[
    [ServerState, dict[str, Any], Callable[[dict[str, Any]], Awaitable[None]]], Awaitable[None]
]
# Messages that start or follow a job: each event of the job is sent with the request_id.
JOB_MESSAGES: dict[Any, JobMessage] = {"research": research.ws_research, "crawl": crawl.ws_crawl}
# The others answer at once: each message type's operation, and the body it is read with.
OPERATIONS: dict[str, Operation] = {
    kind: op for kind, op in by_ws().items() if kind not in JOB_MESSAGES
}
MODELS: dict[str, type[BaseModel]] = {
    kind: request_model(op.params) for kind, op in OPERATIONS.items() if op.params is not None
}


class _Socket:
    """Serializes sends: many requests' events share one connection."""

    def __init__(self, websocket: WebSocket) -> None:
        self.websocket = websocket
        self._lock = anyio.Lock()

    async def send(self, message: dict[str, Any]) -> None:
        async with self._lock:
            await self.websocket.send_json(message)

    async def fail(self, request_id: str | None, error: NetsiftError) -> None:
        await self.send(
            {
                "type": "error",
                "request_id": request_id,
                "seq": 0,
                "data": {"error": error.to_dict()},
            }
        )


def parse_message(text: str, max_bytes: int) -> dict[str, Any]:
    """The JSON object of one message; raises InvalidInput."""
    data = text.encode()
    if len(data) > max_bytes:
        raise InvalidInput(f"a message may be at most {max_bytes} bytes")
    check_depth(data, subject="the message")
    try:
        message = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"the message is not valid JSON: {exc.msg}") from exc
    if not isinstance(message, dict):
        raise InvalidInput("a message must be a JSON object with a type and a request_id")
    return message


def check_type(message: dict[str, Any]) -> str:
    kind = message.pop("type", None)
    if kind not in MODELS:
        raise InvalidInput(f"unknown message type {kind!r}; expected one of {', '.join(MODELS)}")
    return str(kind)


def build_request_id(value: Any, fallback: str) -> str:
    """The client's request_id when it is a usable one, else a generated one."""
    if isinstance(value, str) and re.fullmatch(REQUEST_ID_PATTERN, value):
        return value
    return fallback


def _call(ops: Operations, kind: str, params: BaseModel) -> Callable[[], Awaitable[BaseModel]]:
    """The Operations method that answers message type `kind` (its operation's name)."""
    return ops.call(OPERATIONS[kind], params)


@router.websocket("/v1/ws")
async def ws(websocket: WebSocket) -> None:
    state: ServerState = state_of(websocket)
    try:
        caller = authenticate(state, websocket)
        await state.limits.hit_request(caller.key)
    except (Unauthorized, RateLimited) as error:
        await websocket.close(code=POLICY_VIOLATION, reason=error.message[:120])
        return
    # A client that offered netsift.bearer must get it back (browsers refuse a handshake that
    # answers none of the offered subprotocols); the key itself is never echoed.
    offered = websocket.scope.get("subprotocols", [])
    await websocket.accept(
        subprotocol=BEARER_SUBPROTOCOL if BEARER_SUBPROTOCOL in offered else None
    )
    socket = _Socket(websocket)
    in_flight = 0
    counter = 0

    async def run(request_id: str, kind: str, params: BaseModel) -> None:
        nonlocal in_flight
        try:
            ops = Operations(state, caller)
            channel = EventChannel(request_id)
            async with anyio.create_task_group() as group:
                group.start_soon(ops.stream, channel, _call(ops, kind, params))
                async for event in channel.receiver:
                    await socket.send(encode_ws(event))
        except (WebSocketDisconnect, OSError, RuntimeError):
            pass  # the client left while its answer was being sent
        finally:
            in_flight -= 1

    async def run_job(follow: JobMessage, fields: dict[str, Any]) -> None:
        nonlocal in_flight
        try:
            await follow(state, fields, socket.send)
        except (WebSocketDisconnect, OSError, RuntimeError):
            pass  # the client left; the job goes on and can be followed again
        finally:
            in_flight -= 1

    async with anyio.create_task_group() as group:
        try:
            while True:
                frame = await websocket.receive()
                if frame["type"] == "websocket.disconnect":
                    raise WebSocketDisconnect(frame.get("code", 1000))
                text = frame.get("text")
                if text is None:
                    await websocket.close(
                        code=UNSUPPORTED_DATA, reason="messages are JSON in text frames"
                    )
                    group.cancel_scope.cancel()
                    return
                counter += 1
                request_id: str | None = None
                try:
                    fields = parse_message(text, state.settings.server_max_body)
                    request_id = build_request_id(fields.get("request_id"), f"ws-{counter}")
                    fields["request_id"] = request_id
                    if in_flight >= MAX_IN_FLIGHT:  # research jobs count too
                        await state.limits.hit_request(caller.key)
                        raise RateLimited(
                            f"at most {MAX_IN_FLIGHT} requests may be in flight on one socket",
                            retry_after=1,
                        )
                    if (follow := JOB_MESSAGES.get(fields.get("type"))) is not None:
                        fields.pop("type")  # a job's events: see server/job_api.py
                        await state.limits.hit_request(caller.key)
                        in_flight += 1
                        group.start_soon(run_job, follow, fields)
                        continue
                    kind = check_type(fields)
                    await state.limits.hit_request(caller.key)
                    params = MODELS[kind].model_validate(fields)
                    await Operations(state, caller).admit(OPERATIONS[kind], params)
                except ValidationError as exc:
                    await socket.fail(request_id, InvalidInput(describe_validation(exc)))
                    continue
                except NetsiftError as error:
                    state.metrics.observe_error(error.code)
                    await socket.fail(request_id, error)
                    continue
                in_flight += 1
                group.start_soon(run, request_id, kind, params)
        except WebSocketDisconnect:
            group.cancel_scope.cancel()
        except Exception:  # never drop the socket without a close frame
            log.exception("websocket: closing after an unexpected error")
            group.cancel_scope.cancel()
            with contextlib.suppress(Exception):
                await websocket.close(code=INTERNAL_ERROR, reason="internal error")
