"""A request body read whole under a size cap, then handed on: for the ASGI middlewares that
must see a body before the app does (the REST server's size cap, the MCP HTTP door's screen)."""

from __future__ import annotations

from starlette.types import Message, Receive

__all__ = ["read_capped", "replay"]


async def read_capped(receive: Receive, max_body: int) -> bytes | None:
    """The whole body, or None as soon as it passes `max_body` bytes (chunked bodies too); what
    arrived when the client went away, if it did."""
    chunks = bytearray()
    while True:
        message = await receive()
        if message["type"] != "http.request":  # the client went away
            return bytes(chunks)
        chunks += message.get("body", b"")
        if len(chunks) > max_body:
            return None
        if not message.get("more_body", False):
            return bytes(chunks)


def replay(body: bytes, receive: Receive) -> Receive:
    """A receive that gives the app `body` as if it came now, then the client's messages."""
    sent = False

    async def replayed() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replayed
