"""The fetcher's pure half: dispatch by real content type, explicit pagination, Page building."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import re
import time
from datetime import UTC, datetime

import pytest
from reportlab.pdfgen import canvas

from netsift.errors import DecodeError, InvalidInput, UnsupportedContentType
from netsift.fetch.fetcher import (
    Content,
    _Fetched,
    _RecentPages,
    build_page,
    extract_content,
    paginate,
)
from netsift.models import FeedEntry, Metadata, Page, Redirect

URL = "https://news.example/world/story"
PARAGRAPH = (
    "The river rose by two metres overnight, flooding the lower town and closing the old "
    "bridge to traffic while engineers inspected its pillars for damage. "
)
ARTICLE = f"""<!doctype html>
<html lang="en"><head>
<meta charset="utf-8"><title>River floods town | News</title>
<meta property="og:title" content="River floods the lower town">
<meta property="og:site_name" content="Example News">
</head><body>
<nav><a href="/">Home</a> <a href="/world">World</a> <a href="/sport">Sport</a></nav>
<article><h1>River floods the lower town</h1>
<p>{PARAGRAPH * 3}</p><p>{PARAGRAPH * 2}</p><p>Résidents were moved to the school.</p>
</article>
<footer>© Example News — all rights reserved</footer>
</body></html>"""
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + b"\x00" * 64


def _pdf() -> bytes:
    buf = io.BytesIO()
    pdf = canvas.Canvas(buf)
    pdf.setTitle("Annual Report")
    pdf.setAuthor("Finance Team")
    pdf.drawString(72, 800, "Page one text.")
    pdf.showPage()
    pdf.drawString(72, 800, "Page two text.")
    pdf.showPage()
    pdf.save()
    return buf.getvalue()


RSS = b"""<?xml version="1.0"?><rss version="2.0"><channel><title>River news</title>
<description>Updates</description>
<item><title>Flood warning</title><link>https://news.example/flood</link>
<pubDate>Mon, 04 Mar 2024 09:00:00 GMT</pubDate></item>
<item><title>All clear</title><link>/clear</link></item>
</channel></rss>"""


def _extract(body: bytes, content_type: str, url: str = URL, page_type: str = "auto") -> Content:
    return extract_content(
        body, content_type=content_type, url=url, format="markdown", page_type=page_type
    )


# --- dispatch by kind -------------------------------------------------------------------------


def test_html_gets_main_content_title_and_metadata() -> None:
    content = _extract(ARTICLE.encode(), "text/html; charset=utf-8")
    assert content.title == "River floods the lower town"
    assert "The river rose by two metres overnight" in content.content
    assert "Résidents were moved to the school." in content.content
    assert "Sport" not in content.content
    assert content.metadata.site_name == "Example News"
    assert content.metadata.lang == "en"
    assert content.metadata.url == URL
    assert (content.page_count, content.entries) == (None, ())


def test_html_is_decoded_with_its_meta_charset() -> None:
    body = ARTICLE.replace('<meta charset="utf-8">', '<meta charset="iso-8859-1">')
    content = _extract(body.encode("cp1252"), "text/html")
    assert "Résidents were moved" in content.content


def test_html_served_as_octet_stream_is_sniffed() -> None:
    content = _extract(ARTICLE.encode(), "application/octet-stream")
    assert content.title == "River floods the lower town"
    assert "The river rose" in content.content


def test_page_type_is_passed_to_html_extraction() -> None:
    assert _extract(ARTICLE.encode(), "text/html", page_type="forum").page_type == "forum"
    assert _extract(ARTICLE.encode(), "text/html", page_type="product").page_type == "product"


def test_an_unknown_page_type_is_invalid_input() -> None:
    with pytest.raises(InvalidInput, match="unknown page type"):
        _extract(ARTICLE.encode(), "text/html", page_type="novel")


def test_page_type_does_not_change_other_kinds() -> None:
    assert _extract(b'{"a": 1}', "application/json", page_type="forum").page_type == "json"


def test_plain_text_that_looks_like_html_stays_text() -> None:
    content = _extract(ARTICLE.encode(), "text/plain; charset=utf-8")
    assert content.content == ARTICLE
    assert (content.title, content.page_type) == (None, "text")
    assert content.metadata == Metadata(url=URL)


def test_markdown_keeps_its_text_and_its_first_heading_is_the_title() -> None:
    text = "Intro line\n\n# Install  guide #\n\nRun `pip install netsift`.\n\n# Second\n"
    content = _extract(text.encode(), "text/markdown")
    assert content.content == text
    assert content.title == "Install guide"
    assert content.metadata.title == "Install guide"
    assert content.page_type == "text"


def test_json_is_pretty_printed() -> None:
    content = _extract(b'{"river":"Thames","levels":[1,2]}', "application/json")
    assert json.loads(content.content) == {"river": "Thames", "levels": [1, 2]}
    assert content.content.startswith('{\n  "river": "Thames"')
    assert content.page_type == "json"


def test_invalid_json_is_a_decode_error() -> None:
    with pytest.raises(DecodeError):
        _extract(b'{"river": }', "application/json")


def test_pdf_has_text_title_and_page_count() -> None:
    content = _extract(_pdf(), "application/pdf", url="https://files.example/report.pdf")
    assert content.title == "Annual Report"
    assert content.page_count == 2
    assert content.page_type == "pdf"
    assert "Page one text." in content.content and "Page two text." in content.content
    assert content.metadata.type == "pdf"
    assert content.metadata.author == "Finance Team"


def test_feed_has_entries() -> None:
    content = _extract(RSS, "application/rss+xml", url="https://news.example/feed.xml")
    assert content.title == "River news"
    assert content.page_type == "feed"
    assert [entry.title for entry in content.entries] == ["Flood warning", "All clear"]
    assert content.entries[1].url == "https://news.example/clear"
    assert content.content.startswith("# River news\n")
    assert content.metadata.description == "Updates"


def test_an_image_is_unsupported_and_named() -> None:
    with pytest.raises(UnsupportedContentType) as caught:
        _extract(PNG, "image/png", url="https://files.example/logo.png")
    err = caught.value
    assert err.code == "unsupported_content_type"
    assert "https://files.example/logo.png is an image (image/png)" in err.message
    assert err.details == {"content_type": "image/png"}


@pytest.mark.parametrize(
    ("body", "phrase", "mime"),
    [
        (PNG, "an image (image/png)", "image/png"),
        (gzip.compress(b"x" * 100), "a gzip archive", "application/gzip"),
        (b"\x00\x01\x02\x03\x04" * 20, "binary data (application/octet-stream)", None),
    ],
)
def test_an_untyped_binary_is_named_by_its_signature(
    body: bytes, phrase: str, mime: str | None
) -> None:
    with pytest.raises(UnsupportedContentType) as caught:
        _extract(body, "application/octet-stream")
    assert phrase in caught.value.message
    assert caught.value.details["content_type"] == (mime or "application/octet-stream")


def test_without_a_url_the_message_still_reads() -> None:
    with pytest.raises(UnsupportedContentType, match=r"^the document is an image"):
        _extract(PNG, "image/png", url="")


# --- pagination -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("start", "length", "expected", "next_start"),
    [
        (0, None, "abcdefghij", None),
        (0, 4, "abcd", 4),
        (4, 4, "efgh", 8),
        (8, 4, "ij", None),
        (0, 10, "abcdefghij", None),
        (0, 1000, "abcdefghij", None),
        (9, 1, "j", None),
    ],
)
def test_paginate(start: int, length: int | None, expected: str, next_start: int | None) -> None:
    assert paginate("abcdefghij", start_index=start, max_length=length) == (expected, next_start)


def test_paginate_empty_content_from_zero() -> None:
    assert paginate("", start_index=0, max_length=5) == ("", None)


@pytest.mark.parametrize(
    ("start", "length", "message"),
    [
        (10, None, "start_index 10 is past the end of the content (total_length 10)"),
        (11, 5, "past the end"),
        (-1, None, "start_index must be 0 or more"),
        (0, 0, "max_length must be 1 or more"),
    ],
)
def test_paginate_rejects_bad_windows(start: int, length: int | None, message: str) -> None:
    with pytest.raises(InvalidInput, match=re.escape(message)) as caught:
        paginate("abcdefghij", start_index=start, max_length=length)
    assert caught.value.code == "invalid_input"


def test_past_the_end_reports_the_total_length() -> None:
    with pytest.raises(InvalidInput) as caught:
        paginate("abc", start_index=7, max_length=None)
    assert caught.value.details == {"total_length": 3}


# --- building the Page ------------------------------------------------------------------------


def _build(content: Content, *, start_index: int = 0, max_length: int | None = None) -> Page:
    return build_page(
        content,
        url="http://news.example/old",
        final_url=URL,
        status=200,
        content_type="text/html",
        fetched_at=datetime(2024, 3, 5, tzinfo=UTC),
        elapsed_ms=12.3456,
        size=2048,
        redirects=[Redirect(url="http://news.example/old", status=301, location=URL)],
        format="markdown",
        start_index=start_index,
        max_length=max_length,
    )


def test_build_page_slices_explicitly_and_hashes_the_whole_content() -> None:
    text = "x" * 50 + "y" * 50
    content = Content(title="T", content=text, metadata=Metadata(title="T"), page_type="article")
    first = _build(content, max_length=60)
    rest = _build(content, start_index=first.next_start_index or 0, max_length=60)
    whole = hashlib.sha256(text.encode()).hexdigest()
    assert (first.content, first.truncated, first.next_start_index) == (text[:60], True, 60)
    assert (rest.content, rest.truncated, rest.next_start_index) == (text[60:], False, None)
    assert first.total_length == rest.total_length == 100
    assert first.start_index == 0 and rest.start_index == 60
    assert first.content_sha256 == rest.content_sha256 == whole
    assert first.elapsed_ms == 12.3
    assert first.page_type == "article"
    assert first.redirects[0].status == 301
    assert (first.url, first.final_url, first.bytes) == ("http://news.example/old", URL, 2048)


def test_build_page_carries_pdf_page_count_and_feed_entries() -> None:
    entry = FeedEntry(title="E", url="https://x.example/e")
    pdf = _build(Content(title=None, content="p", metadata=Metadata(), page_count=7))
    feed = _build(Content(title=None, content="f", metadata=Metadata(), entries=(entry,)))
    assert pdf.page_count == 7
    assert feed.entries == [entry]


def test_build_page_rejects_a_start_past_the_end() -> None:
    with pytest.raises(InvalidInput, match="past the end"):
        _build(Content(title=None, content="short", metadata=Metadata()), start_index=99)


# --- recent pages -----------------------------------------------------------------------------


def _fetched(n: int) -> _Fetched:
    return _Fetched(
        content=Content(title=None, content=str(n), metadata=Metadata()),
        url=f"https://x.example/{n}",
        final_url=f"https://x.example/{n}",
        status=200,
        content_type="text/plain",
        fetched_at=datetime.now(UTC),
        elapsed_ms=1.0,
        size=1,
        redirects=[],
    )


def _key(n: int) -> tuple[str, str, str, bool, int | None, bool, bool, bool]:
    return (f"https://x.example/{n}", "markdown", "auto", True, None, False, False, False)


def test_recent_pages_evicts_the_least_recently_used() -> None:
    recent = _RecentPages(ttl=60, max_entries=2)
    recent.put(_key(1), _fetched(1))
    recent.put(_key(2), _fetched(2))
    assert recent.get(_key(1)) is not None  # 1 is now the most recent
    recent.put(_key(3), _fetched(3))
    assert recent.get(_key(2)) is None
    assert recent.get(_key(1)) is not None
    assert recent.get(_key(3)) is not None


def test_recent_pages_expire() -> None:
    recent = _RecentPages(ttl=0.05)
    recent.put(_key(1), _fetched(1))
    assert recent.get(_key(1)) is not None
    time.sleep(0.1)
    assert recent.get(_key(1)) is None
