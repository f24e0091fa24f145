"""The web page for people at `/`: a search box with results and attempts, a fetch box with
the Markdown and the link card. Static files from `server/static/`, no build step, no CDN."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse

__all__ = ["STATIC", "router"]  # app.py mounts STATIC at /static

STATIC = Path(__file__).resolve().parent.parent / "static"
# Everything the page loads comes from this server; nothing inline, nothing framed.
PAGE_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; img-src 'self' data:; connect-src 'self'; "
        "frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
    ),
    "Referrer-Policy": "no-referrer",
}

router = APIRouter(include_in_schema=False)


@router.get("/")
async def index() -> FileResponse:
    return FileResponse(STATIC / "index.html", media_type="text/html", headers=PAGE_HEADERS)
