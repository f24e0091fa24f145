"""Articles: a story read by trafilatura's boilerplate removal, with precision when its
publisher marks it as a story, and the repairs trafilatura's pick needs on real pages (bodies
split around ads, related-teaser runs, the headline restated in plain text)."""

from __future__ import annotations

import re
from typing import Any

from lxml import etree
from trafilatura.xpaths import OVERALL_DISCARD_XPATH

from ..models import ContentFormat
from .dom import run_trafilatura
from .markdown import normalize_space
from .measure import node_text
from .tags import HEADING_TAGS
from .tree import drop

__all__ = ["read_article", "without_headline"]

_PRECISE: dict[str, Any] = {"include_comments": False, "favor_precision": True}
_BALANCED_ARTICLE: dict[str, Any] = {"include_comments": False}
_RECALL_ARTICLE: dict[str, Any] = {"include_comments": False, "favor_recall": True}
_SHORT_SHARE = 0.7  # of the page's paragraph text: a precise extraction that short lost the body
_LOST_SHARE = 0.5  # of the page's paragraph text: a balanced extraction that short lost the body
_CHUNKED = 1.5  # the body's chunks hold this much more than the extraction: it read only one
_MIN_PRECISE = 200  # characters: below this a precise extraction found nothing to be precise about


# what Markdown and HTML add to the words: link targets and emphasis marks, tags
_MARKUP = {
    "markdown": re.compile(r"\]\([^)]*\)|[*_#>`\[]"),
    "html": re.compile(r"<[^>]*>"),
}
_MARKDOWN_MARKS = re.compile(r"[*_#>`\[]")  # the markdown pattern without its link targets


def _length(content: str, fmt: ContentFormat) -> int:
    """An extraction's length in characters of text, so that every format compares alike with
    the page's prose and makes the same choices."""
    markup = _MARKUP.get(fmt)
    if markup is None:
        return len(content)
    # A link target or tag ends at its closer; past the last one, every `](` or `<` would scan
    # to the end and fail (quadratic on "<<<<…"), so the tail is counted without the pattern.
    closer = ")" if fmt == "markdown" else ">"
    end = content.rfind(closer) + 1
    head, tail = content[:end], content[end:]
    if fmt == "markdown":
        tail = _MARKDOWN_MARKS.sub("", tail)
    return len(markup.sub("", head)) + len(tail)


def _paragraph_text(tree: etree._Element) -> int:
    """Characters in the page's prose paragraphs (a dozen words or more), menus and cards aside."""
    total = 0
    for p in tree.iter("p"):
        text = " ".join(p.itertext())
        if text.count(" ") >= 11:
            total += len(text)
    return total


def _prose(node: etree._Element) -> bool:
    return any(" ".join(p.itertext()).count(" ") >= 11 for p in node.iter("p"))


def _signature(node: etree._Element | None) -> tuple[str, str] | None:
    return None if node is None else (str(node.tag), node.get("class") or "")


# trafilatura's first body expression (BODY_XPATH[0]) as a walk that stops at the first match:
# the XPath tests every container's id and class through a Python callback, a twentieth of an
# article's extraction time, only for its first hit to be used
_BODY_ID = re.compile(
    "(?:entry|article|art)-content|article__content|article(?:-|__)?body|articleBody|body-text"
)
_BODY_CLASS = re.compile(
    "post[-_]text|post-body|post-?entry|post[-_]?content|postContent|post_inner_wrapper|"
    "article-?text|articleText|(?:entry|page|text|article|art)-content|article__content|"
    "article(?:-|__)?body|articleBody|ArticleContent|body-text|article__container"
)


def _first_body(tree: etree._Element) -> etree._Element | None:
    """The first container (in document order) trafilatura's first body expression selects."""
    for node in tree.iter("article", "div", "main", "section"):
        attrib = node.attrib
        if not attrib:
            continue
        cls, ident = attrib.get("class"), attrib.get("id")
        if cls in ("post", "entry") or ident == "articleContent":
            return node
        if attrib.get("itemprop") == "articleBody":
            return node
        if (ident and _BODY_ID.search(ident)) or (cls and _BODY_CLASS.search(cls)):
            return node
    return None


def _body_chunks(tree: etree._Element) -> list[etree._Element]:
    """The chunks of an article body its page splits around ads and asides: the container
    trafilatura's body expressions find first, and the later containers of the same kind (same
    tag and class, in the same kind of wrapper, none inside another), each holding prose."""
    first = _first_body(tree)
    if first is None or not first.get("class") or not _prose(first):
        return []
    kind, wrapper = _signature(first), _signature(first.getparent())
    chunks = [first]
    for node in tree.iter(first.tag):
        if node is first or _signature(node) != kind or _signature(node.getparent()) != wrapper:
            continue
        if any(a is c for a in node.iterancestors() for c in chunks) or not _prose(node):
            continue
        if not any(a is node for a in first.iterancestors()):
            chunks.append(node)
    return chunks if len(chunks) > 1 else []


def _prose_chunks(tree: etree._Element) -> list[etree._Element]:
    """The containers of the page's prose paragraphs when one kind of them (same tag and
    class) holds most of it in several places: a body its page builder split into blocks,
    each in its own card, of which trafilatura reads one."""
    prose: dict[tuple[str, str], int] = {}
    holders: dict[tuple[str, str], list[etree._Element]] = {}
    for p in tree.iter("p"):
        text = " ".join(p.itertext())
        parent = p.getparent()
        if text.count(" ") < 11 or parent is None or not parent.get("class"):
            continue
        kind = (str(parent.tag), parent.get("class") or "")
        prose[kind] = prose.get(kind, 0) + len(text)
        found = holders.setdefault(kind, [])
        if not any(f is parent for f in found):
            found.append(parent)
    if not prose:
        return []
    chunks = holders[max(prose, key=prose.__getitem__)]
    return chunks if len(chunks) > 1 else []


def _join(chunks: list[etree._Element]) -> None:
    first = chunks[0]
    for chunk in chunks[1:]:
        parent = chunk.getparent()
        first.extend(list(chunk))
        if parent is not None:
            parent.remove(chunk)


def _drop_related(tree: etree._Element) -> None:
    """Drop the teasers a heading its class names as related introduces: the heading and what
    follows it in its container. Trafilatura discards related blocks by their container's
    marks, which a bare run of teaser posts after such a heading does not carry. Only a class
    that starts with the word counts: ids and slug classes spell out the heading's text."""
    marked = [
        h
        for h in tree.iter(*HEADING_TAGS[1:])  # below the page's title
        if any(t.startswith("related") for t in (h.get("class") or "").lower().split())
    ]
    for heading in marked:
        parent = heading.getparent()
        if parent is None:
            continue
        for node in [heading, *heading.itersiblings()]:
            parent.remove(node)


# the inline elements trafilatura's pruning deletes when empty (`CUT_EMPTY_ELEMS`)
_INLINE = ("b", "em", "i", "q", "span", "strong")


def _drop_empty_inline(tree: etree._Element) -> None:
    """Remove the empty inline elements (icons drawn by CSS) that start a text before the
    precise run: its pruning deletes an empty element with the text after it, the rest of the
    sentence or list item. Image wrappers stay: the text after an image is mostly its caption,
    which the precise run is right to drop."""
    for node in [
        n
        for n in tree.iter(*_INLINE)
        if n.text is None and not len(n) and n.tail and n.tail.strip()
    ]:
        drop(node)


def read_article(tree: etree._Element, url: str | None, fmt: ContentFormat, published: bool) -> str:
    """Precision first on a page its publisher marks as a story (it drops the captions, teasers
    and link lists beside it); when it keeps much less than the page's prose it cut the body
    itself. Pages that only look like articles are read in balance: their edges are content.
    A body split into chunks (around ads, into cards) is joined when one chunk was read."""
    _drop_related(tree)
    prose = _paragraph_text(tree)
    content = _story(tree, url, fmt, published, prose)
    chunks, named = _body_chunks(tree), True
    if not chunks and _length(content, fmt) < _LOST_SHARE * prose:
        chunks, named = _prose_chunks(tree), False
    if chunks and sum(len(" ".join(c.itertext())) for c in chunks) > _CHUNKED * _length(
        content, fmt
    ):
        _join(chunks)
        joined = _story(tree, url, fmt, published, prose)
        # chunks found by their prose alone can be a menu's columns: the joined reading must
        # keep what the first one found of the body
        if named or not content or max(content.splitlines(), key=len) in joined:
            content = joined
    return content


def _story(
    tree: etree._Element, url: str | None, fmt: ContentFormat, published: bool, prose: int
) -> str:
    """Precise, then balanced, then recall: each next mode only when the last one kept far less
    than the page's prose (recall undoes the cleaning that deleted every paragraph: a story
    inside an element trafilatura deletes, by a markup slip)."""
    if published:
        _drop_empty_inline(tree)
        content = run_trafilatura(tree, url, fmt, _PRECISE)
        if _length(content, fmt) >= max(_SHORT_SHARE * prose, _MIN_PRECISE):
            return content
    content = run_trafilatura(tree, url, fmt, _BALANCED_ARTICLE)
    if _length(content, fmt) < _LOST_SHARE * prose:
        content = max(content, run_trafilatura(tree, url, fmt, _RECALL_ARTICLE), key=len)
    if _length(content, fmt) < _LOST_SHARE * prose and _unmark_discarded(tree, prose):
        content = max(content, run_trafilatura(tree, url, fmt, _BALANCED_ARTICLE), key=len)
    return content


def _unmark_discarded(tree: etree._Element, prose: int) -> bool:
    """Clear the class and id of the containers trafilatura's discard rules match (a footer,
    an overlay, a widget by its name) that hold most of the page's prose: a theme's wrapper
    named like chrome, which trafilatura would delete with the story inside it."""
    found = False
    for xpath in OVERALL_DISCARD_XPATH:
        for node in xpath(tree):
            if _paragraph_text(node) > _LOST_SHARE * prose:
                node.attrib.pop("class", None)
                node.attrib.pop("id", None)
                found = True
    return found


def without_headline(content: str, tree: etree._Element, title: str | None) -> str:
    """A story's plain text without its headline line: the headline is reported as the title,
    and in plain text it is no part of the body (Markdown keeps it as the document heading)."""
    first, _, rest = content.partition("\n")
    first = normalize_space(first).strip()
    if len(first.split()) < 3 or not rest.strip():
        return content
    heading = tree.find(".//h1")
    h1 = node_text(heading) if heading is not None else ""
    if first == h1 or (title and first in title):
        return rest.lstrip()
    return content
