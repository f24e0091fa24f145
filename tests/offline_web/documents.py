"""Bodies of the offline web that are built rather than stored: charsets, PDF, feeds, files.

Charset pages are encoded here byte by byte so each one declares its charset in exactly one
place (or none). The PDF is drawn with reportlab once, on first request, so sessions that never
ask for it never pay for it.
"""

from __future__ import annotations

import io
import json
import struct
import zlib
from functools import cache

__all__ = [
    "ARCHIVE_BIN",
    "ATOM_FEED",
    "CHARSET_TEXT",
    "DATA_JSON",
    "LONG_TEXT",
    "NOTES_TXT",
    "PDF_TEXT",
    "PDF_TITLE",
    "README_MD",
    "RSS_FEED",
    "build_charset_page",
    "build_logo_png",
    "build_pdf",
    "build_simple_page",
]

# What each charset page says, in the characters a reader must get back.
CHARSET_TEXT = {
    "latin1": "Crème brûlée à la française: déjà vu in the café of Ærøskøbing, señor Müller.",
    "latin1-header": "Smörgåsbord für alle: Ångström, naïveté, façade, jalapeño and Þórshöfn.",
    "sjis": "日本語のページです。東京の天気は晴れ、気温は二十度でした。",
    "bom": "Zürich – Ελληνικά – 日本語 – emoji-free UTF-8 behind a byte order mark.",
    "nocharset": "Příliš žluťoučký kůň úpěl ďábelské ódy — Łódź, Kraków, Дом и сад.",
}


def build_simple_page(
    title: str, paragraphs: list[str], *, head: str = "", lang: str = "en"
) -> str:
    """A plain article page: a heading and paragraphs, enough for main-content extraction."""
    body = "\n".join(f"    <p>{text}</p>" for text in paragraphs)
    return (
        f'<!DOCTYPE html>\n<html lang="{lang}">\n<head>\n{head}  <title>{title}</title>\n'
        f"</head>\n<body>\n  <article>\n    <h1>{title}</h1>\n{body}\n  </article>\n"
        "</body>\n</html>\n"
    )


def _charset_paragraphs(text: str) -> list[str]:
    return [
        text,
        "This paragraph is here so the page reads like an article: it has more than one "
        "sentence, a little context, and enough words for a main-content extractor.",
        text,
    ]


def build_charset_page(name: str) -> tuple[bytes, str]:
    """The body and Content-Type of one charset page (see CHARSET_TEXT)."""
    text = CHARSET_TEXT[name]
    paragraphs = _charset_paragraphs(text)
    if name == "latin1":
        head = '  <meta charset="iso-8859-1">\n'
        page = build_simple_page("Latin-1 declared in meta", paragraphs, head=head, lang="fr")
        return page.encode("iso-8859-1"), "text/html"
    if name == "latin1-header":
        page = build_simple_page("Latin-1 declared in the header", paragraphs, lang="de")
        return page.encode("iso-8859-1"), "text/html; charset=ISO-8859-1"
    if name == "sjis":
        head = '  <meta charset="Shift_JIS">\n'
        page = build_simple_page("日本語のページ", paragraphs, head=head, lang="ja")
        return page.encode("shift_jis"), "text/html"
    if name == "bom":
        page = build_simple_page("A page with a byte order mark", paragraphs)
        return b"\xef\xbb\xbf" + page.encode("utf-8"), "text/html"
    if name == "nocharset":
        page = build_simple_page("No charset anywhere", paragraphs, lang="cs")
        return page.encode("utf-8"), "text/html"
    raise KeyError(name)


PDF_TITLE = "Kelby Harbour Annual Report 2023"
PDF_TEXT = (
    "Ferry traffic across the sound grew by twelve per cent in 2023.",
    "The tidal array delivered 41 GWh, enough to charge every ferry twice over.",
)


@cache
def build_pdf() -> bytes:
    """A real two-page PDF with a document title and author, drawn by reportlab."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer, pagesize=A4, invariant=True)
    pdf.setTitle(PDF_TITLE)
    pdf.setAuthor("Kelby Harbour Trust")
    for number, line in enumerate(PDF_TEXT, start=1):
        pdf.setFont("Helvetica-Bold", 18)
        pdf.drawString(72, 770, PDF_TITLE if number == 1 else f"Page {number}")
        pdf.setFont("Helvetica", 12)
        pdf.drawString(72, 730, line)
        pdf.showPage()
    pdf.save()
    return buffer.getvalue()


@cache
def build_logo_png() -> bytes:
    """A real 16x16 PNG (solid sea blue), built from its chunks."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", 16, 16, 8, 2, 0, 0, 0)
    rows = b"".join(b"\x00" + b"\x1e\x64\xb4" * 16 for _ in range(16))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


ARCHIVE_BIN = bytes((i * 37 + 11) % 256 for i in range(4096))

DATA_JSON = json.dumps(
    {
        "station": "Kelby Harbour",
        "ferries": [
            {"name": "Skarv", "capacity": 180, "electric": True},
            {"name": "Lunde", "capacity": 120, "electric": True},
        ],
        "updated": "2024-05-14T08:00:00Z",
    },
    separators=(",", ":"),
    ensure_ascii=False,
)

NOTES_TXT = (
    "Harbour notes, week 20\n"
    "======================\n\n"
    "- Skarv: battery module 3 replaced on Tuesday.\n"
    "- Lunde: new fenders fitted at the Holm quay.\n"
    "Tide tables for June arrive on Friday.\n"
)

README_MD = (
    "# Tide tables\n\n"
    "Download the **June** tables as CSV:\n\n"
    "| Day | High water | Low water |\n"
    "| --- | --- | --- |\n"
    "| 1 | 06:12 | 12:31 |\n\n"
    "```sh\ncurl -O https://files.example/tides-june.csv\n```\n"
)


def _long_text() -> str:
    lines = []
    for number in range(1, 1000):
        lines.append(
            f"Line {number:04d}: the tide turned at the harbour wall and the gulls went quiet.\n"
        )
        if sum(len(line) for line in lines) >= 50_000:
            break
    return "".join(lines)


LONG_TEXT = _long_text()

RSS_FEED = """<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom">
  <channel>
    <title>Crumb &amp; Crust</title>
    <link>https://blog.example/</link>
    <description>Home baking, slowly.</description>
    <language>en</language>
    <item>
      <title>Why our sourdough starter lives in the fridge</title>
      <link>https://blog.example/posts/fridge-starter</link>
      <pubDate>Thu, 02 Nov 2023 09:00:00 GMT</pubDate>
      <author>priya@blog.example (Priya Natarajan)</author>
      <description>A slower, colder starter routine that fits around a full-time job.</description>
    </item>
    <item>
      <title>Rye bread for beginners</title>
      <link>https://blog.example/posts/rye-basics</link>
      <pubDate>Sun, 15 Oct 2023 09:00:00 GMT</pubDate>
      <description>Sticky dough, no kneading, and a tin.</description>
    </item>
    <item>
      <title>Ten ways to get more oven spring</title>
      <link>https://blog.example/posts/oven-spring</link>
      <pubDate>Sat, 30 Sep 2023 09:00:00 GMT</pubDate>
      <description>Steam, heat and a sharp blade.</description>
    </item>
  </channel>
</rss>
"""

ATOM_FEED = """<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title>Crumb &amp; Crust (Atom)</title>
  <subtitle>Home baking, slowly.</subtitle>
  <link href="https://blog.example/"/>
  <id>urn:uuid:7d7e4a10-2b58-4c1e-9a4c-1f1b2f6f0a01</id>
  <updated>2023-11-02T09:00:00Z</updated>
  <entry>
    <title>Why our sourdough starter lives in the fridge</title>
    <link href="https://blog.example/posts/fridge-starter"/>
    <id>urn:uuid:0b1e0f6e-1111-4a4a-8c8c-000000000001</id>
    <updated>2023-11-02T09:00:00Z</updated>
    <author><name>Priya Natarajan</name></author>
    <summary>A slower, colder starter routine that fits around a full-time job.</summary>
  </entry>
  <entry>
    <title>Scoring patterns for round loaves</title>
    <link href="https://blog.example/posts/scoring"/>
    <id>urn:uuid:0b1e0f6e-1111-4a4a-8c8c-000000000002</id>
    <updated>2023-08-20T09:00:00Z</updated>
    <author><name>Priya Natarajan</name></author>
    <summary>Wheat ears, crosses and a single confident slash.</summary>
  </entry>
</feed>
"""
