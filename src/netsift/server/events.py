"""Events of one API call as they happen, encoded for SSE and for the WebSocket.

One vocabulary (design.md §3): `started`, `search_started` and `search_done` per provider
attempt, `result`, `done`, `error`, each `{type, job_id, seq, at, data}` with the request id
as `job_id`. An `EventChannel` numbers them and carries them from the running call to the
connection; `EventStreamResponse` writes them as `text/event-stream`, with keep-alive
comments while a slow provider is thinking.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from fastapi.sse import KEEPALIVE_COMMENT, EventSourceResponse, format_sse_event
from starlette.types import Receive, Scope, Send

from ..errors import NetsiftError
from ..models import Attempt, Event, EventType, Query
from ..search.failover import attempt_listener

__all__ = ["EventChannel", "EventStreamResponse", "encode_sse", "encode_ws", "watch_attempts"]

KEEPALIVE_SECONDS = 15.0


class EventChannel:
    """Numbered events of one call, from the task running it to whoever relays them."""

    def __init__(self, request_id: str | None, *, buffer: int = 256) -> None:
        self.request_id = request_id
        self._seq = 0
        self._send: MemoryObjectSendStream[Event]
        self._receive: MemoryObjectReceiveStream[Event]
        self._send, self._receive = anyio.create_memory_object_stream[Event](buffer)

    async def emit(self, type: EventType, data: dict[str, Any] | None = None) -> None:
        self._seq += 1
        event = Event(
            type=type, job_id=self.request_id, seq=self._seq, at=datetime.now(UTC), data=data or {}
        )
        await self._send.send(event)

    async def fail(self, error: NetsiftError) -> None:
        await self.emit("error", {"error": error.to_dict()})

    async def close(self) -> None:
        await self._send.aclose()

    @property
    def receiver(self) -> MemoryObjectReceiveStream[Event]:
        return self._receive


@contextmanager
def watch_attempts(channel: EventChannel) -> Iterator[None]:
    """Report each provider attempt made inside the block as search_started / search_done."""

    async def on_attempt(provider: str, query: Query, attempt: Attempt | None) -> None:
        if attempt is None:
            await channel.emit("search_started", {"provider": provider, "query": query.text})
        else:
            await channel.emit("search_done", {"query": query.text, **attempt.model_dump()})

    token = attempt_listener.set(on_attempt)
    try:
        yield
    finally:
        attempt_listener.reset(token)


def encode_sse(event: Event) -> bytes:
    return format_sse_event(data_str=event.model_dump_json(), event=event.type, id=str(event.seq))


def encode_ws(event: Event) -> dict[str, Any]:
    """A WebSocket message: the event with its `request_id` at the top, for the client's map."""
    return {"request_id": event.job_id, **event.model_dump(mode="json")}


class EventStreamResponse(EventSourceResponse):
    """`text/event-stream` of one call: runs `work` (which emits into the channel and closes
    it) beside the stream, and cancels it when the client goes away.

    The work runs in the response's own task group rather than inside the body generator, so
    a disconnect cancels it cleanly and no task group ever spans a `yield`.
    """

    def __init__(
        self,
        channel: EventChannel,
        work: Callable[[EventChannel], Coroutine[Any, Any, None]],
        *,
        keepalive: float = KEEPALIVE_SECONDS,
        headers: dict[str, str] | None = None,
    ) -> None:
        self._channel = channel
        self._work = work
        self._keepalive = keepalive
        merged = {"Cache-Control": "no-store", "X-Accel-Buffering": "no", **(headers or {})}
        super().__init__(self._frames(), headers=merged)

    async def _frames(self) -> AsyncIterator[bytes]:
        receiver = self._channel.receiver
        while True:
            event: Event | None = None
            with anyio.move_on_after(self._keepalive):
                try:
                    event = await receiver.receive()
                except anyio.EndOfStream:
                    return
            yield KEEPALIVE_COMMENT if event is None else encode_sse(event)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async with anyio.create_task_group() as group:

            async def watch_disconnect() -> None:
                while (await receive())["type"] != "http.disconnect":
                    pass
                group.cancel_scope.cancel()

            group.start_soon(self._work, self._channel)
            group.start_soon(watch_disconnect)
            try:
                await self.stream_response(send)
            except OSError:  # the client went away mid-stream (ASGI 2.4 servers)
                pass
            group.cancel_scope.cancel()
