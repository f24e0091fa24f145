"""RSS 2.0, RSS 1.0 and Atom feeds as a Markdown list of entries, with feedparser; pure.

feedparser is only ever handed a file object over bytes already fetched: given a string it
would fetch URLs itself, and given bytes it first tries them as a *file name*. The page URL
goes in as the Content-Location header so relative links resolve against it.
"""

from __future__ import annotations

import io
import re
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import feedparser
from selectolax.lexbor import LexborHTMLParser

from ..errors import DecodeError
from ..models import FeedEntry
from .dates import parse_date

__all__ = ["MAX_ENTRIES", "FeedContent", "extract_feed"]

MAX_ENTRIES = 500
MAX_SUMMARY = 300
MAX_TITLE = 300

_MARKDOWN_LINK_TEXT = re.compile(r"([\[\]\\])")
_EMAIL_AND_NAME = re.compile(r"^[^\s@()]+@[^\s()]+\s*\((.+)\)$")
_BLOCK_END = re.compile(r"<(?:br|hr|/p|/div|/li|/h[1-6]|/tr|/td|/th|/blockquote)\b[^>]*>", re.I)
_LINK_ESCAPES = str.maketrans({" ": "%20", "(": "%28", ")": "%29", "<": "%3C", ">": "%3E"})


@dataclass(frozen=True)
class FeedContent:
    """A feed's title and description, its entries, and all of it as Markdown."""

    title: str | None
    description: str | None
    entries: list[FeedEntry] = field(default_factory=list)
    markdown: str = ""


def extract_feed(body: bytes, url: str) -> FeedContent:
    """Parse an RSS or Atom feed; DecodeError when it is not a feed feedparser can read."""
    parsed = feedparser.parse(
        io.BytesIO(body),
        response_headers={"content-location": url, "content-type": "application/xml"},
    )
    head: dict[str, Any] = parsed.get("feed", {})
    raw_entries: list[dict[str, Any]] = parsed.get("entries", [])
    if not parsed.get("version") and not raw_entries:
        problem = parsed.get("bozo_exception")
        reason = f": {' '.join(str(problem).split())[:200]}" if problem else ""
        raise DecodeError(f"the body is not a readable RSS or Atom feed{reason}")
    title = _plain(head.get("title"), MAX_TITLE)
    description = _plain(head.get("subtitle") or head.get("description"), MAX_SUMMARY * 2)
    entries = [_entry(raw) for raw in raw_entries[:MAX_ENTRIES]]
    markdown = _markdown(title, description, entries, total=len(raw_entries))
    return FeedContent(title=title, description=description, entries=entries, markdown=markdown)


def _entry(raw: dict[str, Any]) -> FeedEntry:
    link = raw.get("link")
    return FeedEntry(
        title=_plain(raw.get("title"), MAX_TITLE),
        url=link if isinstance(link, str) and link.startswith(("http://", "https://")) else None,
        published=_date(raw),
        author=_plain(_author(raw.get("author")), MAX_TITLE),
        summary=_plain(raw.get("summary"), MAX_SUMMARY),
    )


def _author(value: object) -> object:
    """RSS 2.0 writes authors as `email (Name)`: keep the name."""
    if isinstance(value, str) and (found := _EMAIL_AND_NAME.match(value.strip())):
        return found.group(1)
    return value


def _date(raw: dict[str, Any]) -> str | None:
    """feedparser's parsed dates are UTC struct_times; fall back to the raw string."""
    for key in ("published", "updated", "created"):
        parsed = raw.get(f"{key}_parsed")
        if isinstance(parsed, time.struct_time):
            try:
                moment = datetime(*parsed[:6], tzinfo=UTC)
            except ValueError:
                continue
            return moment.isoformat()
        if isinstance(value := raw.get(key), str) and (found := parse_date(value)):
            return found
    return None


def _plain(value: object, limit: int) -> str | None:
    """Text of a possibly-HTML string on one line, capped at a word boundary."""
    if not isinstance(value, str) or not value.strip():
        return None
    text = value[: limit * 20]
    if "<" in text or "&" in text:
        end = text.rfind(">") + 1  # past the last ">" each "<br" would scan to the end and fail
        text = LexborHTMLParser(_BLOCK_END.sub(" ", text[:end]) + text[end:]).text(separator="")
    text = " ".join(text.split())
    if len(text) > limit:
        cut = text[: limit - 1]
        space = cut.rfind(" ")
        text = (cut[:space] if space > limit // 2 else cut).rstrip() + "…"
    return text or None


def _markdown(
    title: str | None, description: str | None, entries: list[FeedEntry], *, total: int
) -> str:
    lines = [f"# {title or 'Feed'}", ""]
    if description:
        lines += [description, ""]
    for entry in entries:
        label = _MARKDOWN_LINK_TEXT.sub(r"\\\1", entry.title or entry.url or "(untitled)")
        item = f"- [{label}]({_link_target(entry.url)})" if entry.url else f"- {label}"
        if entry.published:
            item += f" — {entry.published[:10]}"
        lines.append(item)
        if entry.summary and entry.summary != entry.title:
            lines.append(f"  {entry.summary}")
    if total > len(entries):
        lines += ["", f"*[netsift listed the first {len(entries)} of {total} entries]*"]
    return "\n".join(lines).rstrip() + "\n"


def _link_target(url: str) -> str:
    """A Markdown link target: the characters that would end it early are percent-encoded."""
    return url.translate(_LINK_ESCAPES)
