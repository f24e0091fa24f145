"""Bylines and datelines: who wrote a story and when, as metadata, not as its first sentence.

A story's byline ("By Ada Example, space correspondent", an author link, a `<time>`) sits
between the headline and the first paragraph. Read as body it is the body's first line, and on
a short page, where trafilatura's fallback flattens everything, the first words of a run-on
sentence. It is taken out of the tree before the story is read and returned as the author and
date, which fill the page's metadata when the page's own markup did not.

A byline is a short block (at most `MAX_WORDS` words, no heading or paragraph of prose in it)
before the story's first paragraph of prose, that its markup names (a class or id with
byline, dateline or author; `itemprop="author"`, `rel="author"`) or that starts "By ".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lxml import etree

from .measure import node_text, string_length
from .tags import HEADING_TAGS
from .tree import drop

__all__ = ["Byline", "take_byline"]

MAX_WORDS = 16  # a byline names one to three people and a date; a longer block is prose
PROSE_WORDS = 12  # a paragraph this long is the story's text: bylines come before it
MAX_CHARS = 200  # characters (source spacing included) that MAX_WORDS never needs

_NAMED = re.compile(
    r"byline|dateline|(?:^|[-_\s])(?:post-?|entry-|article-)?author(?:s|-name)?(?:$|[-_\s])"
)
_BY = re.compile(r"^(?:by|written by|posted by|words by|von|par|por|door)\s+(.+)$", re.IGNORECASE)
_HOLDERS = ("p", "div", "span", "address", "section", "small")
_BLOCKS = (*HEADING_TAGS, "ul", "ol", "table", "pre", "blockquote")
_ROLE = re.compile(r"\s*[,|•·–—]\s*.*$")  # what follows a name: a role, a date, a publication
_DATE = re.compile(
    r"\b(?:\d{4}-\d{2}-\d{2}|\d{1,2} (?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\w* \d{4}"
    r"|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\w* \d{1,2},? \d{4})\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Byline:
    """Who and when, as the byline says them (None when it does not)."""

    author: str | None = None
    date: str | None = None


def take_byline(root: etree._Element) -> Byline | None:
    """Remove the story's byline blocks from `root`; who and when they named."""
    found: list[etree._Element] = []
    walk = etree.iterwalk(root, events=("start",))
    for _, node in walk:
        if node.tag == "nav":
            walk.skip_subtree()
            continue
        if node.tag == "p" and string_length(node) > MAX_CHARS:
            break  # the story has begun
        if node.tag == "p" and _words(node) >= PROSE_WORDS and not _is_byline(node):
            break
        if node.tag in _HOLDERS and _is_byline(node):
            if not any(f in node.iterancestors() for f in found):
                found.append(node)
    if not found:
        return None
    author = date = None
    for node in found:
        author = author or _author(node)
        date = date or _date(node)
        drop(node, keep_blank_tail=True)
    return Byline(author, date)


def _words(node: etree._Element) -> int:
    return len(node_text(node).split())


def _is_byline(node: etree._Element) -> bool:
    """Short, without blocks, and named a byline or starting "By " (the cheap tests first: a
    wrapper around the story holds a block near its start, and libxml2 measures its length
    only past that)."""
    if next(node.iter(*_BLOCKS), None) is not None or string_length(node) > MAX_CHARS:
        return False
    text = node_text(node)
    words = len(text.split())
    if not words or words > MAX_WORDS:
        return False
    names = f"{node.get('class') or ''} {node.get('id') or ''}".lower()
    if _NAMED.search(names) or node.get("itemprop") == "author":
        return True
    return bool(_BY.match(text))


def _author(node: etree._Element) -> str | None:
    for el in node.iter(etree.Element):
        if (
            el.get("itemprop") == "author"
            or el.get("rel") == "author"
            or (el is not node and _NAMED.search((el.get("class") or "").lower()))
        ):
            if name := _name(node_text(el)):
                return name
    return _name(node_text(node))


def _name(text: str) -> str | None:
    by = _BY.match(text)
    if by:
        text = by[1]
    elif not text or _DATE.search(text):
        return None
    name = _ROLE.sub("", text).strip()
    return name if name and len(name.split()) <= MAX_WORDS // 2 else None


def _date(node: etree._Element) -> str | None:
    for el in node.iter("time"):
        if when := (el.get("datetime") or node_text(el)):
            return when
    found = _DATE.search(node_text(node))
    return found[0] if found else None
