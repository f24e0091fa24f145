"""Pathological pages, generated: the inputs that once stalled or exhausted netsift.

Each builder takes a size `n` so tests can compare time(2n) with time(n) (a ratio to a linear
baseline, never a wall-clock bound), and `bench/hostile.py` serves them at full size.
"""

from __future__ import annotations

import functools
import json
import zlib
from collections.abc import Callable

__all__ = [
    "PAGES",
    "deep_json",
    "digit_cards",
    "heavy_pages_pdf",
    "many_links",
    "many_pages_pdf",
    "many_paragraphs",
    "nested_divs",
    "self_drawing_pdf",
    "shared_stream_pdf",
    "unclosed_divs",
    "wide_element",
]


def _html(body: str) -> bytes:
    return f"<!doctype html><html><head><title>t</title></head><body>{body}</body></html>".encode()


def nested_divs(n: int) -> bytes:
    """`n` divs each inside the last, with a word in each."""
    return _html("<div>x " * n + "</div>" * n)


def unclosed_divs(n: int) -> bytes:
    """`n` opened divs that never close."""
    return _html("<div>" * n)


def wide_element(n: int) -> bytes:
    """One element with `n` attributes."""
    attrs = " ".join(f"a{i}='{i}'" for i in range(n))
    return _html(f"<div {attrs}>wide</div>")


def digit_cards(n: int) -> bytes:
    """Product cards whose prices are long runs of digits (the price pattern's worst case)."""
    card = "<div class='product'><h2>Item</h2><span class='price'>$" + "1" * 200 + "</span></div>"
    return _html(card * max(1, n // len(card)))


def many_links(n: int) -> bytes:
    """`n` links in one list."""
    return _html("<ul>" + "".join(f"<li><a href='/p{i}'>link {i}</a></li>" for i in range(n)))


def many_paragraphs(n: int) -> bytes:
    """`n` short paragraphs."""
    return _html("<article>" + "<p>Some words in a paragraph.</p>" * n + "</article>")


def deep_json(n: int) -> bytes:
    """An array nested `n` deep."""
    return ("[" * n + "]" * n).encode()


def many_pages_pdf(n: int) -> bytes:
    """A PDF of `n` empty pages sharing one page object tree, each a tiny content stream."""
    return shared_stream_pdf(n, b"BT /F1 1 Tf (p) Tj ET")


def shared_stream_pdf(n: int, stream: bytes, *, compress: bool = False) -> bytes:
    """A PDF of `n` pages that all draw one content stream (`compress`: deflated, so a few KB
    can hold megabytes of operators that every page makes the reader interpret again)."""
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>"]
    kids = " ".join(f"{3 + i} 0 R" for i in range(n))
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {n} >>".encode())
    content_id = 3 + n
    page = (
        f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 10 10] /Contents {content_id} 0 R "
        f"/Resources << /Font << /F1 {content_id + 1} 0 R >> >> >>"
    )
    objects.extend([page.encode()] * n)
    objects.append(_stream(stream, compress=compress))
    objects.append(_FONT)
    return _pdf(objects)


def self_drawing_pdf() -> bytes:
    """A one-page PDF whose form XObject draws itself (recursion without end)."""
    page = (
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 10 10] /Contents 4 0 R "
        b"/Resources << /XObject << /Fm0 5 0 R >> /Font << /F1 6 0 R >> >> >>"
    )
    form = (
        b"<< /Type /XObject /Subtype /Form /BBox [0 0 10 10] "
        b"/Resources << /XObject << /Fm0 5 0 R >> >> /Length 7 >>\nstream\n/Fm0 Do\nendstream"
    )
    return _pdf(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            page,
            _stream(b"BT /F1 1 Tf (self) Tj ET /Fm0 Do"),
            form,
            _FONT,
        ]
    )


_FONT = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"


def _stream(data: bytes, *, compress: bool = False) -> bytes:
    if compress:
        data = zlib.compress(data, 9)
        return (
            b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(data) + data + (b"\nendstream")
        )
    return b"<< /Length %d >>\nstream\n" % len(data) + data + b"\nendstream"


def _pdf(objects: list[bytes]) -> bytes:
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


def heavy_pages_pdf(n: int) -> bytes:
    """`n` pages drawing one deflated stream of 40,000 text operators: about 80 KB at 500
    pages, and 20 million operators for a reader that interprets every page."""
    return shared_stream_pdf(n, b"BT /F1 1 Tf (p) Tj ET\n" * 40_000, compress=True)


def deep_json_ld(n: int) -> bytes:
    """An HTML page whose JSON-LD block nests `n` deep."""
    data = '{"a":' * n + "1" + "}" * n
    return _html(f"<script type='application/ld+json'>{data}</script><p>text</p>")


def big_integer_json(n: int) -> bytes:
    """A JSON document holding an `n`-digit integer."""
    return json.dumps({"n": 0}).replace("0", "1" * n).encode()


# name → (builder, content type, the size bench/hostile.py serves)
PAGES: dict[str, tuple[Callable[[int], bytes], str, int]] = {
    "nested": (nested_divs, "text/html", 100_000),
    "unclosed": (unclosed_divs, "text/html", 1_000_000),
    "wide": (wide_element, "text/html", 200_000),
    "digits": (digit_cards, "text/html", 120_000),
    "links": (many_links, "text/html", 80_000),
    "paragraphs": (many_paragraphs, "text/html", 110_000),
    "deep-json": (deep_json, "application/json", 200_000),
    "deep-json-ld": (deep_json_ld, "text/html", 200_000),
    "big-int-json": (big_integer_json, "application/json", 5_000),
    "pdf-pages": (many_pages_pdf, "application/pdf", 500),
    "pdf-heavy": (heavy_pages_pdf, "application/pdf", 500),
}


@functools.cache
def runaway() -> bytes:
    """50,000 paragraphs once the element cap has cut them: about 4 CPU s of trafilatura's
    pipeline, past a 1 CPU s test budget on any machine."""
    return many_paragraphs(60_000)
