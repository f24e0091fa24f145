"""Pages for the toolbelt's tools: rules.test (a robots.txt with groups, delays, wildcards) and
scans.test (PDFs whose pages are images only, for OCR).

The scans are drawn here with Pillow (text rendered to an image, the image wrapped as a PDF
page), so the PDF has no text layer at all: what a scanner or a phone camera makes.
"""

from __future__ import annotations

import io
from collections.abc import Awaitable, Callable
from functools import cache
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

__all__ = ["RULES_ROBOTS", "SCAN_LINES", "TOOLBELT_ROUTES", "build_mixed_pdf", "build_scan_pdf"]

# Groups for one product token and everyone else, a longer Allow inside a Disallow, a
# wildcard with an end anchor, and crawl delays that differ by group.
RULES_ROBOTS = """\
# rules.test: who may read what
User-agent: *
Disallow: /private/
Allow: /private/press/
Disallow: /*.pdf$
Crawl-delay: 3

User-agent: archivebot
Disallow: /
Crawl-delay: 10

Sitemap: http://rules.test/sitemap.xml
"""
# What each scanned page says (two pages), in words OCR reads without doubt at 200 DPI.
SCAN_LINES = (
    ("The lighthouse keeper logged", "forty two ships in the storm", "of March 1911"),
    ("The harbour wall was rebuilt", "in granite the next summer", "by the Kelby Trust"),
)


def _page_image(lines: tuple[str, ...]) -> Any:
    from PIL import Image, ImageDraw, ImageFont

    image = Image.new("RGB", (1275, 1650), "white")  # US Letter at 150 DPI
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=44)
    for number, line in enumerate(lines):
        draw.text((110, 220 + 80 * number), line, fill="black", font=font)
    return image


@cache
def build_scan_pdf() -> bytes:
    """Two pages, each an image of text and nothing else: no text layer."""
    first, *rest = [_page_image(lines) for lines in SCAN_LINES]
    buffer = io.BytesIO()
    first.save(buffer, "PDF", resolution=150, save_all=True, append_images=rest)
    return buffer.getvalue()


@cache
def build_mixed_pdf() -> bytes:
    """Page 1 has a text layer (reportlab), page 2 is a scan: only page 2 needs OCR."""
    from pypdf import PdfReader, PdfWriter
    from reportlab.lib.pagesizes import letter
    from reportlab.pdfgen import canvas

    typed = io.BytesIO()
    pdf = canvas.Canvas(typed, pagesize=letter, invariant=True)
    pdf.setFont("Helvetica", 14)
    pdf.drawString(72, 700, "A typed cover page with a text layer.")
    pdf.showPage()
    pdf.save()
    scan = io.BytesIO()
    _page_image(SCAN_LINES[1]).save(scan, "PDF", resolution=150)
    writer = PdfWriter()
    for source in (typed, scan):
        for page in PdfReader(io.BytesIO(source.getvalue())).pages:
            writer.add_page(page)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


Handler = Callable[[Request, Any], Awaitable[Response]]


def _fixed(body: Callable[[], bytes] | bytes, content_type: str) -> Handler:
    async def handler(request: Request, state: Any) -> Response:
        return Response(body() if callable(body) else body, headers={"content-type": content_type})

    return handler


def _page(title: str) -> bytes:
    return (
        f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{title}</title>"
        f"</head><body><main><h1>{title}</h1><p>An ordinary page on rules.test, readable by "
        "anyone robots.txt lets in.</p></main></body></html>"
    ).encode()


TOOLBELT_ROUTES: dict[str, dict[str, Handler]] = {
    "rules.test": {
        "/robots.txt": _fixed(RULES_ROBOTS.encode(), "text/plain; charset=utf-8"),
        "/open": _fixed(_page("Open to all"), "text/html; charset=utf-8"),
        "/private/ledger": _fixed(_page("The ledger"), "text/html; charset=utf-8"),
        "/private/press/release": _fixed(_page("Press release"), "text/html; charset=utf-8"),
    },
    "scans.test": {
        "/robots.txt": _fixed(b"User-agent: *\nDisallow:\n", "text/plain"),
        "/scan.pdf": _fixed(build_scan_pdf, "application/pdf"),
        "/mixed.pdf": _fixed(build_mixed_pdf, "application/pdf"),
    },
}
