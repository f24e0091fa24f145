"""HEAD on every GET route: the GET's status and headers, no body (RFC 9110 §9.3.2).

FastAPI's routes answer only the methods they declare, so a HEAD got 405 while the 405's own
`Allow` (and HTTP) promise HEAD wherever GET is served. This plain ASGI layer runs such a HEAD
as the GET and drops the body; other requests pass through untouched.
"""

from __future__ import annotations

from starlette.routing import Match, Router
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["HeadAsGet"]


class HeadAsGet:
    """Answer HEAD as GET without the body, where a GET route matches the path."""

    def __init__(self, app: ASGIApp, *, router: Router) -> None:
        self.app = app
        self.router = router

    def _serves_get(self, scope: Scope) -> bool:
        get = {**scope, "method": "GET"}
        return any(route.matches(get)[0] is Match.FULL for route in self.router.routes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD" or not self._serves_get(scope):
            await self.app(scope, receive, send)
            return

        finished = False

        async def headers_only(message: Message) -> None:
            # The first body message ends the answer, so a HEAD on a stream (SSE) does not
            # wait for the stream to end; the server then reports the client gone to the app.
            nonlocal finished
            if message["type"] == "http.response.body":
                if finished:
                    return
                finished = True
                message = {"type": "http.response.body", "body": b"", "more_body": False}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, headers_only)
