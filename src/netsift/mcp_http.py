"""The MCP streamable HTTP door's screen: every POST body read within a size and time limit and
checked as one JSON-RPC message before the SDK's transport sees it.

The SDK answers most unreadable bodies itself, but not all the way: a body past its size cap
got a plain-text 413, a JSON value that is no JSON-RPC message got "invalid params" (-32602)
with pydantic's whole report, and a body sent a byte a minute held its request open forever.
Here each gets JSON-RPC's own error with a null id (the request's id cannot be read), as the
specification asks: parse error (-32700) for what is not JSON, invalid request (-32600) for
JSON that is not a message, and the HTTP status that says why (400, 408, 413).
"""

from __future__ import annotations

from typing import Any

import anyio
import pydantic_core
from mcp import types
from mcp.types import jsonrpc_message_adapter
from pydantic import ValidationError
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from .asgi_body import read_capped, replay

__all__ = ["BODY_SECONDS", "ScreenedBodies"]

# A client has this long to send its whole body once the request has started: a tool call's
# arguments are a URL or a query, sent in one write; a drip is answered 408 instead of holding
# a connection (and its buffer) open for as long as the client likes.
BODY_SECONDS = 30.0


class ScreenedBodies:
    """ASGI middleware: POST bodies larger than `max_body` bytes, slower than `BODY_SECONDS`,
    not JSON, or not a JSON-RPC message are answered here (`body_seconds` is the
    time limit); the rest reach `app` unchanged."""

    def __init__(self, app: ASGIApp, *, max_body: int, body_seconds: float = BODY_SECONDS) -> None:
        self.app = app
        self.max_body = max_body
        self.body_seconds = body_seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        declared = Headers(scope=scope).get("content-length", "")
        if declared.isdigit() and int(declared) > self.max_body:
            await _reply(send, 413, types.INVALID_REQUEST, self._too_large())
            return
        body: bytes | None = None
        with anyio.move_on_after(self.body_seconds):
            body = await read_capped(receive, self.max_body)
            if body is None:
                await _reply(send, 413, types.INVALID_REQUEST, self._too_large())
                return
        if body is None:
            message = f"the request body did not arrive within {self.body_seconds:g} seconds"
            await _reply(send, 408, types.INVALID_REQUEST, message)
            return
        if problem := check_message(body):
            await _reply(send, 400, *problem)
            return
        await self.app(scope, replay(body, receive), send)

    def _too_large(self) -> str:
        return f"the request body is larger than this server accepts ({self.max_body} bytes)"


def check_message(body: bytes) -> tuple[int, str] | None:
    """JSON-RPC's error code and a message for a body that is not one readable message."""
    try:
        value = pydantic_core.from_json(body)
    except ValueError as exc:  # not UTF-8, not JSON, lone surrogates, nesting past the limit
        return types.PARSE_ERROR, f"the request body could not be read as JSON ({exc})"
    try:
        jsonrpc_message_adapter.validate_python(value, by_name=False)
    except ValidationError:
        return (
            types.INVALID_REQUEST,
            'the request body is JSON but not a JSON-RPC message (one object with "jsonrpc": '
            '"2.0" and a method, or a result or error for an id)',
        )
    return None


async def _reply(send: Send, status: int, code: int, message: str) -> None:
    error = types.JSONRPCError(
        jsonrpc="2.0", id=None, error=types.ErrorData(code=code, message=message)
    )
    body = error.model_dump_json(by_alias=True, exclude_unset=True).encode()
    headers: list[tuple[bytes, bytes]] = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
    ]
    start: dict[str, Any] = {"type": "http.response.start", "status": status, "headers": headers}
    await send(start)
    await send({"type": "http.response.body", "body": body})
