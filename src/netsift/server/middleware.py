"""The ASGI layer around every request: its id, its body bounds, and its line in the metrics.

Plain ASGI (not BaseHTTPMiddleware) so streamed answers pass through untouched. The request
id comes from `X-Request-ID` when the client sends a sane one, else is made up; it is set for
the audit log (`request_id_var`) and echoed in the answer. Every body is read here before any
route sees it: one over the size cap is refused with 413 (declared length or not), one nested
deeper than body_bounds allows with 400 `invalid_input`, in the error shape of its route.
"""

from __future__ import annotations

import ipaddress
import re
import time
import uuid
from collections.abc import Callable
from typing import Any

from starlette.datastructures import Headers
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..asgi_body import read_capped, replay
from ..errors import InvalidInput, NetsiftError, TooLarge
from ..net.audit import request_id_var
from .body_bounds import check_depth
from .metrics import Metrics
from .responses import REQUEST_ID_PATTERN

__all__ = ["RequestContext", "TrustedProxies", "build_request_id"]

REQUEST_ID_HEADER = "x-request-id"


def build_request_id(header: str | None) -> str:
    if header and re.fullmatch(REQUEST_ID_PATTERN, header):
        return header
    return uuid.uuid4().hex


class RequestContext:
    """Request id, body bounds and request metrics for every HTTP request.

    `render` answers a refused body in the shape of the route it was sent to (a compatible
    API's own, or netsift's), from the path the compatible routing has already settled."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        metrics: Metrics,
        max_body: int,
        render: Callable[[str, NetsiftError], Response],
    ) -> None:
        self.app = app
        self.metrics = metrics
        self.max_body = max_body
        self.render = render

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        request_id = build_request_id(headers.get(REQUEST_ID_HEADER))
        token = request_id_var.set(request_id)
        started = time.perf_counter()
        status = 500

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message.setdefault("headers", [])
                message["headers"] = [
                    *message["headers"],
                    (b"x-request-id", request_id.encode()),
                    (b"x-content-type-options", b"nosniff"),
                ]
            await send(message)

        try:
            try:
                body = await self._bounded_body(headers, receive)
            except NetsiftError as error:
                response = self.render(scope["path"], error)
                if isinstance(error, TooLarge):  # the rest of the body is left unread
                    response.headers["connection"] = "close"
                await response(scope, receive, send_with_id)
                return
            await self.app(scope, receive if body is None else replay(body, receive), send_with_id)
        finally:
            route = scope.get("route")
            name = getattr(route, "path", None) or "unmatched"
            self.metrics.observe_request(
                scope["method"], name, status, time.perf_counter() - started
            )
            request_id_var.reset(token)

    async def _bounded_body(self, headers: Headers, receive: Receive) -> bytes | None:
        """The body, read whole within the size cap and checked for depth before any route
        parses it; None when the request has none. Raises the refusal."""
        declared = headers.get("content-length")
        if declared is not None:
            if not declared.isdigit():
                raise InvalidInput("the Content-Length header is not a number")
            if int(declared) > self.max_body:
                raise self._too_large(int(declared))
        if not int(declared or 0) and "transfer-encoding" not in headers:
            return None  # HTTP/1.1: a request without either header has no body
        body = await read_capped(receive, self.max_body)
        if body is None:
            raise self._too_large(None)
        check_depth(body)
        return body

    def _too_large(self, declared: int | None) -> TooLarge:
        details: dict[str, Any] = {"limit": self.max_body}
        if declared is not None:
            details["size"] = declared
        return TooLarge(
            f"the request body is larger than this server accepts ({self.max_body} bytes)",
            details=details,
            retryable=False,
        )


class TrustedProxies:
    """The client address behind configured proxies (`NETSIFT_TRUSTED_PROXIES`), and only them.

    `X-Forwarded-For` is believed only when the peer that sent it is a listed proxy; then the
    client is the rightmost address in it that is not itself a listed proxy. From anyone else
    the header is ignored, so a client cannot choose the identity its rate limit is counted by.
    (`netsift serve` switches uvicorn's own proxy-header handling off, which trusts loopback.)
    """

    def __init__(self, app: ASGIApp, *, networks: list[str]) -> None:
        self.app = app
        self.networks = [ipaddress.ip_network(cidr, strict=False) for cidr in networks]

    def _trusted(self, host: str) -> bool:
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return False
        return any(address in network for network in self.networks)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        client = scope.get("client")
        if scope["type"] in ("http", "websocket") and client and self._trusted(client[0]):
            forwarded = Headers(scope=scope).get("x-forwarded-for", "")
            hops = [hop.strip() for hop in forwarded.split(",") if hop.strip()]
            for hop in reversed(hops):
                if not self._trusted(hop):
                    scope = {**scope, "client": (hop, 0)}
                    break
        await self.app(scope, receive, send)
