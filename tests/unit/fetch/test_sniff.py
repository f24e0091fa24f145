"""What a body is: specific declared types trusted, generic ones sniffed, binaries named."""

from __future__ import annotations

import gzip
import io
import zipfile

import pytest

from netsift.fetch.sniff import describe_binary, detect_kind, sniff_mime

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + b"\x00" * 32
JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + b"\x00" * 32
GIF = b"GIF89a\x01\x00\x01\x00" + b"\x00" * 32
WEBP = b"RIFF\x24\x00\x00\x00WEBPVP8 " + b"\x00" * 32
PDF = b"%PDF-1.7\n1 0 obj\n<< /Type /Catalog >>\nendobj\n"
HTML = b"<!DOCTYPE html><html><head><title>x</title></head><body><p>Hi</p></body></html>"
RSS = b'<?xml version="1.0"?>\n<rss version="2.0"><channel><title>t</title></channel></rss>'
ATOM = b'<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom"/>'
RDF = (
    b'<?xml version="1.0"?><!-- rss 1.0 -->\n'
    b'<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"></rdf:RDF>'
)
SITEMAP = b'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/"><url/></urlset>'


def _zip() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as archive:
        archive.writestr("a.txt", "hello")
    return buf.getvalue()


@pytest.mark.parametrize(
    ("mime", "body", "kind"),
    [
        # Specific declarations are trusted, whatever the body looks like.
        ("text/html", b"just words", "html"),
        ("application/xhtml+xml", HTML, "html"),
        ("application/pdf", b"not really", "pdf"),
        ("application/json", b"{}", "json"),
        ("application/ld+json", b"{}", "json"),
        ("application/problem+json", b"{}", "json"),
        ("application/rss+xml", RSS, "feed"),
        ("application/atom+xml", ATOM, "feed"),
        ("text/markdown", b"# Title", "markdown"),
        ("text/plain", b"hello", "text"),
        ("text/plain", HTML, "text"),  # the server said text: it stays text
        ("text/csv", b"a,b\n1,2", "text"),
        ("application/javascript", b"let x = 1", "text"),
        ("image/png", PNG, "binary"),
        ("image/svg+xml", b"<svg/>", "text"),
        ("application/zip", b"whatever", "binary"),
        ("application/vnd.ms-excel", b"\xd0\xcf\x11\xe0", "binary"),
        # Generic XML is looked into: feeds, XHTML, other XML.
        ("application/xml", RSS, "feed"),
        ("text/xml", ATOM, "feed"),
        ("application/rdf+xml", RDF, "feed"),
        ("text/xml", SITEMAP, "text"),
        ("application/xml", b'<?xml version="1.0"?><html xmlns="x"><body/></html>', "html"),
        # text/plain that is really a binary (servers that label everything text/plain).
        ("text/plain", PNG, "binary"),
        ("text/plain", PDF, "pdf"),
    ],
)
def test_declared_types(mime: str, body: bytes, kind: str) -> None:
    assert detect_kind(mime, body, "https://example.org/x") == kind


@pytest.mark.parametrize("mime", ["application/octet-stream", "binary/octet-stream", "", "*/*"])
@pytest.mark.parametrize(
    ("body", "kind"),
    [
        (PDF, "pdf"),
        (b"\r\n\r\n" + PDF, "pdf"),
        (PNG, "binary"),
        (JPEG, "binary"),
        (GIF, "binary"),
        (WEBP, "binary"),
        (gzip.compress(b"hello"), "binary"),
        (HTML, "html"),
        (b"\n\n  <html lang=en><body>x</body></html>", "html"),
        (b"\xef\xbb\xbf<!doctype html><title>t</title>", "html"),
        (b"<!-- generated --><div>x</div>", "html"),
        (RSS, "feed"),
        (ATOM, "feed"),
        (RDF, "feed"),
        (b'<rss version="2.0"><channel/></rss>', "feed"),
        (SITEMAP, "text"),
        (b'{"a": [1, 2, {"b": null}]}', "json"),
        (b"  [1, 2, 3]\n", "json"),
        (b"{not json at all", "text"),
        (b"Plain words, nothing else.\nSecond line.", "text"),
        (b"", "text"),
        (b"\x00\x01\x02\x03 looks binary", "binary"),
    ],
)
def test_generic_types_are_sniffed(mime: str, body: bytes, kind: str) -> None:
    assert detect_kind(mime, body, "https://example.org/download") == kind


def test_zip_is_sniffed_as_binary() -> None:
    assert detect_kind("application/octet-stream", _zip(), "https://x.test/f") == "binary"
    assert sniff_mime(_zip()) == "application/zip"


def test_url_extension_only_breaks_ties_between_text_kinds() -> None:
    body = b"# Notes\n\nSome *markdown* text."
    assert detect_kind("application/octet-stream", body, "https://x.test/readme.md") == "markdown"
    assert detect_kind("application/octet-stream", body, "https://x.test/readme") == "text"
    assert detect_kind("application/octet-stream", PNG, "https://x.test/readme.md") == "binary"
    assert detect_kind("text/plain", body, "https://x.test/readme.md") == "text"


def test_declared_type_is_case_insensitive() -> None:
    assert detect_kind("Application/PDF", b"", "https://x.test/") == "pdf"


@pytest.mark.parametrize(
    ("body", "mime"),
    [
        (PNG, "image/png"),
        (JPEG, "image/jpeg"),
        (GIF, "image/gif"),
        (WEBP, "image/webp"),
        (b"RIFF\x24\x00\x00\x00WAVEfmt ", None),
        (gzip.compress(b"x"), "application/gzip"),
        (b"\x00\x00\x00\x18ftypmp42", "video/mp4"),
        (b"wOF2\x00\x01", "font/woff2"),
        (HTML, None),
        (b"", None),
    ],
)
def test_sniff_mime(body: bytes, mime: str | None) -> None:
    assert sniff_mime(body) == mime


@pytest.mark.parametrize(
    ("mime", "phrase"),
    [
        ("image/png", "an image (image/png)"),
        ("IMAGE/JPEG", "an image (image/jpeg)"),
        ("audio/mpeg", "an audio file (audio/mpeg)"),
        ("video/mp4", "a video (video/mp4)"),
        ("font/woff2", "a font (font/woff2)"),
        ("application/zip", "a ZIP archive"),
        ("application/gzip", "a gzip archive"),
        ("application/x-7z-compressed", "a 7-Zip archive"),
        (
            "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
            "an office document "
            "(application/vnd.openxmlformats-officedocument.wordprocessingml.document)",
        ),
        ("application/msword", "an office document (application/msword)"),
        ("application/octet-stream", "binary data (application/octet-stream)"),
        ("", "binary data of unknown type"),
    ],
)
def test_describe_binary(mime: str, phrase: str) -> None:
    assert describe_binary(mime) == phrase
