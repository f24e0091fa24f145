"""What a body really is: the declared type when it is specific, sniffed when it is generic; pure.

In the spirit of the WHATWG MIME Sniffing Standard: a specific declaration is trusted (text/plain
that looks like HTML stays text, the server said so), and only generic or missing types
(`application/octet-stream`, none at all) are sniffed, from magic bytes first, then markup and
JSON, then a binary-or-text check of the first bytes. The URL's extension only breaks ties
between text kinds.
"""

from __future__ import annotations

import json
import re
from typing import Literal
from urllib.parse import urlsplit

__all__ = ["Kind", "describe_binary", "detect_kind", "sniff_mime"]

Kind = Literal["html", "text", "markdown", "json", "pdf", "feed", "binary"]

GENERIC_TYPES = frozenset(
    {
        "",
        "application/octet-stream",
        "binary/octet-stream",
        "application/unknown",
        "application/x-unknown",
        "unknown/unknown",
        "application/download",
        "application/force-download",
        "application/binary",
        "*/*",
    }
)

_DECLARED: dict[str, Kind] = {
    "text/html": "html",
    "application/xhtml+xml": "html",
    "application/pdf": "pdf",
    "application/x-pdf": "pdf",
    "application/json": "json",
    "text/json": "json",
    "text/x-json": "json",
    "application/rss+xml": "feed",
    "application/atom+xml": "feed",
    "application/x-rss+xml": "feed",
    "text/markdown": "markdown",
    "text/x-markdown": "markdown",
    "text/plain": "text",
}
_XML_TYPES = frozenset({"application/xml", "text/xml", "application/rdf+xml"})
# Textual application/* types read as plain text.
_TEXT_APPLICATION = frozenset(
    {
        "application/javascript",
        "application/x-javascript",
        "application/ecmascript",
        "application/x-yaml",
        "application/yaml",
        "application/toml",
        "application/x-sh",
        "application/sql",
        "application/x-tex",
        "application/x-httpd-php",
        "application/csv",
    }
)

# (signature, offset, MIME type) — binary formats a reader cannot use.
_MAGIC: tuple[tuple[bytes, int, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", 0, "image/png"),
    (b"\xff\xd8\xff", 0, "image/jpeg"),
    (b"GIF87a", 0, "image/gif"),
    (b"GIF89a", 0, "image/gif"),
    (b"WEBP", 8, "image/webp"),
    (b"\x00\x00\x01\x00", 0, "image/x-icon"),
    (b"PK\x03\x04", 0, "application/zip"),
    (b"PK\x05\x06", 0, "application/zip"),
    (b"\x1f\x8b\x08", 0, "application/gzip"),
    (b"BZh", 0, "application/x-bzip2"),
    (b"\xfd7zXZ\x00", 0, "application/x-xz"),
    (b"\x28\xb5\x2f\xfd", 0, "application/zstd"),
    (b"7z\xbc\xaf\x27\x1c", 0, "application/x-7z-compressed"),
    (b"Rar!\x1a\x07", 0, "application/vnd.rar"),
    (b"%!PS-Adobe-", 0, "application/postscript"),
    (b"\x7fELF", 0, "application/x-executable"),
    (b"\x00asm", 0, "application/wasm"),
    (b"SQLite format 3\x00", 0, "application/vnd.sqlite3"),
    (b"OggS\x00", 0, "audio/ogg"),
    (b"ID3", 0, "audio/mpeg"),
    (b"fLaC", 0, "audio/flac"),
    (b"ftyp", 4, "video/mp4"),
    (b"\x1a\x45\xdf\xa3", 0, "video/webm"),
    (b"wOFF", 0, "font/woff"),
    (b"wOF2", 0, "font/woff2"),
)

# The WHATWG "scriptable MIME type" patterns: a tag name followed by a space or `>`.
_HTML_START = re.compile(
    rb"<(?:!doctype\s+html|html|head|script|iframe|h1|div|font|table|a|style|title|b|body|br|p"
    rb"|!--)[\s>]",
    re.IGNORECASE,
)
_FEED_ROOT = re.compile(rb"<(?:[a-z0-9_-]+:)?(rss|feed|rdf)[\s>]", re.IGNORECASE)
_XML_ROOT = re.compile(rb"<([a-zA-Z_][\w.:-]*)")
_UTF_BOMS = (b"\xef\xbb\xbf", b"\xfe\xff", b"\xff\xfe")
_BINARY_BYTES = frozenset([*range(0x09), 0x0B, *range(0x0E, 0x1B), *range(0x1C, 0x20)])
_SNIFF_LEN = 1445
_JSON_SNIFF_MAX = 16 * 1024 * 1024


def sniff_mime(body: bytes) -> str | None:
    """The MIME type a binary signature at the start of `body` names, if any."""
    for signature, offset, mime in _MAGIC:
        if body[offset : offset + len(signature)] == signature:
            if mime == "image/webp" and not body.startswith(b"RIFF"):
                continue
            return mime
    return None


def detect_kind(mime: str, body: bytes, url: str) -> Kind:
    """Which reader handles this body: trust a specific `mime`, sniff a generic one."""
    mime = mime.strip().lower()
    if mime == "text/plain" and (body.startswith(b"%PDF-") or sniff_mime(body[:64])):
        # Servers that label everything text/plain (the WHATWG "Apache bug" check).
        return "pdf" if body.startswith(b"%PDF-") else "binary"
    if mime in _DECLARED:
        return _DECLARED[mime]
    if mime.endswith("+json"):
        return "json"
    if mime in _XML_TYPES or mime.endswith("+xml"):
        return _xml_kind(body)
    if mime.startswith("text/") or mime in _TEXT_APPLICATION:
        return "text"
    if mime in GENERIC_TYPES:
        return _sniff(body, url)
    return "binary"


def _xml_kind(body: bytes) -> Kind:
    """Generic XML: a feed when its root is rss, feed or RDF; XHTML when it is html; else text."""
    head = _skip_prolog(body[:4096])
    root = _XML_ROOT.search(head)
    if root is None:
        return "text"
    name = root.group(1).split(b":")[-1].lower()
    if name in (b"rss", b"feed", b"rdf"):
        return "feed"
    return "html" if name == b"html" else "text"


def _skip_prolog(head: bytes) -> bytes:
    """Drop the XML declaration, comments, processing instructions and the doctype."""
    return re.sub(rb"<\?.*?\?>|<!--.*?-->|<!DOCTYPE[^>]*>", b"", head, flags=re.DOTALL | re.I)


def _sniff(body: bytes, url: str) -> Kind:
    head = body[:_SNIFF_LEN]
    if b"%PDF-" in body[:1024]:
        return "pdf"
    if sniff_mime(head) is not None:
        return "binary"
    text = head
    for bom in _UTF_BOMS:
        if text.startswith(bom):
            text = text[len(bom) :]
            break
    text = text.lstrip(b" \t\n\r\x0c")
    if text.startswith(b"<?xml") or _FEED_ROOT.match(text):
        return _xml_kind(text)
    if _HTML_START.match(text):
        return "html"
    if text[:1] in (b"{", b"[") and len(body) <= _JSON_SNIFF_MAX and _is_json(body):
        return "json"
    if not head.startswith(_UTF_BOMS) and any(byte in _BINARY_BYTES for byte in head):
        return "binary"
    path = urlsplit(url).path.lower()
    if path.endswith((".md", ".markdown")):
        return "markdown"
    return "text"


def _is_json(body: bytes) -> bool:
    try:
        json.loads(body)
    except (ValueError, RecursionError):
        return False
    return True


_ARCHIVES = {
    "application/zip": "a ZIP archive",
    "application/x-zip-compressed": "a ZIP archive",
    "application/gzip": "a gzip archive",
    "application/x-gzip": "a gzip archive",
    "application/x-tar": "a tar archive",
    "application/x-bzip2": "a bzip2 archive",
    "application/x-xz": "an xz archive",
    "application/zstd": "a Zstandard archive",
    "application/x-7z-compressed": "a 7-Zip archive",
    "application/vnd.rar": "a RAR archive",
    "application/x-rar-compressed": "a RAR archive",
}
_FAMILIES = {
    "image": "an image",
    "audio": "an audio file",
    "video": "a video",
    "font": "a font",
}


def describe_binary(mime: str) -> str:
    """A human phrase for a type netsift does not read: "an image (image/png)", "a ZIP archive"."""
    mime = mime.strip().lower()
    if mime in _ARCHIVES:
        return _ARCHIVES[mime]
    family = mime.partition("/")[0]
    if family in _FAMILIES:
        return f"{_FAMILIES[family]} ({mime})"
    if mime.startswith(("application/vnd.openxmlformats", "application/vnd.oasis.opendocument")):
        return f"an office document ({mime})"
    if mime in ("application/msword", "application/vnd.ms-excel", "application/vnd.ms-powerpoint"):
        return f"an office document ({mime})"
    if not mime:
        return "binary data of unknown type"
    return f"binary data ({mime})"
