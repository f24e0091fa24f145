"""The offline test web: one Starlette app, routed by the Host header (work in progress)."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from tests.offline_web.state import SiteState

HOSTS: tuple[str, ...] = (
    "news.test",
    "blog.test",
    "docs.test",
    "files.test",
    "redirect.test",
    "slow.test",
    "big.test",
    "status.test",
    "robots5xx.test",
    "robots4xx.test",
)


def build_app(state: SiteState) -> Starlette:
    async def dispatch(request: Request) -> Response:
        host = request.headers.get("host", "").split(":")[0].lower()
        state.record(host, request.url.path)
        return PlainTextResponse("not found", status_code=404)

    return Starlette(routes=[Route("/{path:path}", dispatch, methods=["GET", "HEAD"])])
