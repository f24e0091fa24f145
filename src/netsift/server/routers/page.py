"""The web page for people at `/`: search, read, research, map and crawl, discoveries and sleeps.

Plain files from `server/static/` (HTML, CSS and JavaScript modules): no build step, no CDN.
Every answer of the page and its files carries a Content-Security-Policy that lets it load and
call this server only: no inline script or style, no other origin (images of other sites
included), no plugins, no framing; Trusted Types forbid assigning strings as HTML, so a page
netsift reads can never become markup or script in it (the page builds DOM nodes instead).
"""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse
from starlette.staticfiles import StaticFiles
from starlette.types import Message, Receive, Scope, Send

__all__ = ["PAGE_HEADERS", "STATIC", "StaticAssets", "router"]

STATIC = Path(__file__).resolve().parent.parent / "static"

CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",  # data: for the browser's own form controls' images
        "connect-src 'self'",  # the API, and its event streams
        "manifest-src 'self'",
        "form-action 'self'",
        "base-uri 'none'",
        "frame-ancestors 'none'",
        "require-trusted-types-for 'script'",  # innerHTML = "..." throws: text is never markup
        "trusted-types 'none'",
    )
)
PAGE_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "Referrer-Policy": "no-referrer",  # a page opened from a result learns nothing of the search
    "Cross-Origin-Opener-Policy": "same-origin",
    "X-Frame-Options": "DENY",  # frame-ancestors, for browsers that predate it
    "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=(), usb=()",
    "Cache-Control": "no-cache",  # a new release's files are picked up at once (revalidated)
}

router = APIRouter(include_in_schema=False)


@router.get("/")
async def index() -> FileResponse:
    return FileResponse(STATIC / "index.html", media_type="text/html", headers=PAGE_HEADERS)


class StaticAssets(StaticFiles):
    """`/static`: the page's files, with the page's headers (index.html opened here directly
    is held to the same policy as at `/`)."""

    def __init__(self) -> None:
        super().__init__(directory=STATIC)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [
                    *message.get("headers", []),
                    *(
                        (name.lower().encode(), value.encode())
                        for name, value in PAGE_HEADERS.items()
                    ),
                ]
            await send(message)

        await super().__call__(scope, receive, with_headers)
