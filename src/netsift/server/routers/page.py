"""The web page for people at `/`: search, read, research, map and crawl, discoveries and sleeps.

Plain files from `server/static/` (HTML, CSS and JavaScript modules): no build step, no CDN.
Every answer of the page and its files carries a Content-Security-Policy that lets it load and
call this server only: no inline script or style, no other origin, no plugins, no framing;
Trusted Types forbid assigning strings as HTML, so a page netsift reads can never become markup
or script in it (the page builds DOM nodes instead).

Other sites' images (favicons, thumbnails, a page's preview image) come through
`GET /v1/image?url=`: fetched by netsift's guarded HTTP client (the SSRF guard, the caps),
answered only when the bytes are a raster image, never SVG (which can carry script). The
browser never contacts those sites, so they learn nothing of who reads what.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import FileResponse, Response
from starlette.staticfiles import StaticFiles
from starlette.types import Message, Receive, Scope, Send

from ...errors import HTTPError, UnsupportedContentType
from ...fetch.sniff import sniff_mime
from ...params import MAX_URL_CHARS
from ..deps import CallerDep, StateDep

__all__ = ["PAGE_HEADERS", "STATIC", "StaticAssets", "router"]

STATIC = Path(__file__).resolve().parent.parent / "static"

CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data: blob:",  # blob: the images /v1/image relays (fetched with the key)
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

# The largest image relayed: favicons and previews are kilobytes; a bigger one is not a preview.
IMAGE_MAX_BYTES = 2 * 1024 * 1024
# Seconds an image may take: a preview that is slower than this is left out, not waited for.
IMAGE_DEADLINE = 10.0
# Raster formats only, recognised by their bytes (fetch/sniff.py), whatever the site declares.
IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp", "image/x-icon"})
IMAGE_ACCEPT = "image/webp,image/png,image/jpeg,image/*;q=0.8"
IMAGE_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; sandbox",  # opened alone: inert
    "Cache-Control": "private, max-age=86400",  # the browser keeps it for this person only
}

router = APIRouter(include_in_schema=False)


@router.get("/")
async def index() -> FileResponse:
    return FileResponse(STATIC / "index.html", media_type="text/html", headers=PAGE_HEADERS)


@router.get("/v1/image")
async def image(
    url: Annotated[str, Query(min_length=1, max_length=MAX_URL_CHARS)],
    state: StateDep,
    _: CallerDep,
) -> Response:
    """Another site's image, relayed for the page (see the module docstring)."""
    response = await state.require_client().download(
        url, accept=IMAGE_ACCEPT, max_bytes=IMAGE_MAX_BYTES, deadline=IMAGE_DEADLINE, kind="image"
    )
    if response.status_code >= 400:
        raise HTTPError(
            f"{response.url} answered HTTP {response.status_code}",
            status_code=response.status_code,
            details={"url": str(response.url)},
        )
    kind = sniff_mime(response.content[:64])
    if kind not in IMAGE_TYPES:
        raise UnsupportedContentType(
            f"{response.url} is not a PNG, JPEG, GIF, WebP or ICO image",
            details={
                "url": str(response.url),
                "content_type": response.headers.get("content-type"),
            },
        )
    return Response(response.content, media_type=kind, headers=IMAGE_HEADERS)


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
