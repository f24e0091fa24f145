"""HTML main-content extraction: the readable part of a page, read the way its type needs.

An agent reading a page wants the article, the docs section, the thread or the product, not
the menu, the cookie banner and the footer. The page is parsed once; that one tree serves the
page-type classifier (`pagetype.py`) and the extractor chosen for the type:

- article and documentation: trafilatura's boilerplate removal (stories their publisher marks
  as such read with precision), handed the parsed tree so it never fetches or re-parses;
- forum: every post with its author and date (`forum.py`);
- product: in Markdown, the schema.org facts (`product.py`) as a list above the visible
  description (text and HTML keep to what the page shows);
- listing, collection and service: the whole main region once the chrome is pruned
  (`blocks.py`), every item, product or plan included, unless trafilatura's pick holds about
  as much text (then the region's extra is chrome).

Each type-aware path falls back to the generic one when the structure it needs is not there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import lxml.html
from lxml import etree
from trafilatura.settings import MANUALLY_CLEANED

from ..errors import InvalidInput
from ..models import ContentFormat, PageType
from .blocks import BLOCK_PAGES, read_blocks
from .boilerplate import PRUNED_TAGS
from .dom import drop, run_trafilatura
from .forum import read_forum
from .markdown import normalize_space
from .pagetype import (
    HTML_PAGE_TYPES,
    Classification,
    HtmlPageType,
    classify_page,
    publication_marks,
)
from .product import read_product
from .tidy import tidy

__all__ = ["PAGE_TYPE_CHOICES", "HtmlExtraction", "extract_html", "parse_html"]

PAGE_TYPE_CHOICES: tuple[str, ...] = ("auto", *HTML_PAGE_TYPES)
_TRAFILATURA: dict[str, dict[str, Any]] = {
    "article": {"include_comments": False, "favor_precision": True},
    "documentation": {"include_comments": False},
    "service": {"include_comments": True},
    "collection": {"include_comments": True},
    "product": {"include_comments": False},
    "forum": {"include_comments": True},
    "listing": {"include_comments": True},
}


@dataclass(frozen=True)
class HtmlExtraction:
    """What the HTML extractor found: a title, the main content in one format, the page type."""

    title: str | None
    content: str
    page_type: PageType | None = None
    classification: Classification | None = None


def _parser() -> lxml.html.HTMLParser:
    # trafilatura's parser settings, but every node built as a plain HtmlElement by lxml's C
    # lookup: lxml.html's default lookup calls back into Python for each node touched, which
    # cost a tenth of the extraction time (forms and inputs need no special classes here)
    parser = lxml.html.HTMLParser(
        collect_ids=False,
        default_doctype=False,
        encoding="utf-8",
        remove_comments=True,
        remove_pis=True,
    )
    lookup = etree.ElementDefaultClassLookup(
        element=lxml.html.HtmlElement,
        comment=lxml.html.HtmlComment,
        pi=lxml.html.HtmlProcessingInstruction,
        entity=lxml.html.HtmlEntity,
    )
    parser.set_element_class_lookup(lookup)
    return parser


_PARSER = _parser()
_CONTROL_BYTES = bytes(c for c in range(32) if c not in (9, 10, 13))
_XHTML_DOCTYPE = re.compile("^< ?! ?DOCTYPE[^>]*/[^<>]*>", re.IGNORECASE)
_SELF_CLOSED_HTML = re.compile(r"(<html.*?)\s*/>", re.IGNORECASE)


def _repaired(text: str) -> bytes:
    """trafilatura's repairs for libxml2 (XHTML doctype, a self-closed `<html/>`, characters
    XML forbids), as UTF-8: removing control bytes from bytes is far cheaper than a regex over
    the text, and libxml2 reads the bytes without converting the text first."""
    if "doctype" in text[:50].lower():
        text = _XHTML_DOCTYPE.sub("", text, count=1)
    for line in text[:4096].splitlines()[:4]:
        if "<html" in line and line.endswith("/>"):
            text = _SELF_CLOSED_HTML.sub(r"\1>", text, count=1)
            break
    if "\ufffe" in text or "\uffff" in text:
        text = text.replace("\ufffe", "").replace("\uffff", "")
    return text.encode("utf-8", "surrogatepass").translate(None, _CONTROL_BYTES)


def parse_html(text: str) -> etree._Element | None:
    """One lxml tree for the whole pipeline (encoding declarations and broken markup handled)."""
    try:
        tree = lxml.html.fromstring(_repaired(text), parser=_PARSER)
    except (ValueError, etree.ParserError):
        return None
    if "html" not in text[:50].lower() and len(tree) < 2:  # not HTML at all
        return None
    return tree


_INERT = ("style", "link", "meta")


def _drop_inert(tree: etree._Element) -> None:
    """Remove what no extractor reads once the page is classified (styles, head links and
    metas, scripts other than JSON-LD), so trafilatura's many tree copies and
    searches stay small. Not media, SVG, noscript or form controls: pages hide text there."""
    for script in tree.iter("script"):
        if (script.get("type") or "").lower() != "application/ld+json":
            script.tag = "style"  # removed with the styles below, in the same pass
    etree.strip_elements(tree, *_INERT, with_tail=False)


# what trafilatura deletes before its own extractor reads the page, the head, scripts (their
# JSON-LD is read), forms and figures (kept when they hold the content or a table) aside
_UNREAD = tuple(
    tag
    for tag in MANUALLY_CLEANED
    if tag not in ("head", "script", "style", "link", "form", "figure")
)

_UNREAD_SHARE = 0.1  # of the body's text: an element holding more wraps content by a markup slip
_TEXT_LENGTH = etree.XPath("string-length(.)")  # libxml2 counts without building the string


# of those, the ones the chrome pruning of block pages (`boilerplate.py`) deletes too
_UNREAD_CHROME = tuple(tag for tag in _UNREAD if tag in PRUNED_TAGS)


def _drop_unread(tree: etree._Element, tags: tuple[str, ...] = _UNREAD) -> None:
    """Remove, before trafilatura runs, the elements its cleaning deletes anyway (menus, asides,
    footers, SVG, controls): its XPath pruning tests every element of the raw tree through
    Python callbacks, and these are a large share of a page. One that holds much of the text
    stays: an unclosed tag made it wrap the content, which trafilatura's fallbacks still read."""
    body = tree.find("body")
    if body is None:
        return
    limit = _UNREAD_SHARE * float(_TEXT_LENGTH(body))
    for node in [n for n in body.iter(*tags) if float(_TEXT_LENGTH(n)) < limit]:
        drop(node, keep_blank_tail=True)


def _title(tree: etree._Element) -> str | None:
    for xpath in ("//meta[@property='og:title']/@content", "//title//text()", "//h1//text()"):
        found = " ".join(str(v).strip() for v in tree.xpath(xpath) if str(v).strip())
        if found:
            return normalize_space(found).strip()
    return None


_BALANCED_ARTICLE: dict[str, Any] = {"include_comments": False}
_SHORT_SHARE = 0.7  # of the page's paragraph text: a precise extraction that short lost the body
_CHUNKED = 1.5  # the body's chunks hold this much more than the extraction: it read only one
_MIN_PRECISE = 200  # characters: below this a precise extraction found nothing to be precise about


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


def _join(chunks: list[etree._Element]) -> None:
    first = chunks[0]
    for chunk in chunks[1:]:
        parent = chunk.getparent()
        first.extend(list(chunk))
        if parent is not None:
            parent.remove(chunk)


_HEADINGS = ("h2", "h3", "h4", "h5", "h6")


def _drop_related(tree: etree._Element) -> None:
    """Drop the teasers a heading its class names as related introduces: the heading and what
    follows it in its container. Trafilatura discards related blocks by their container's
    marks, which a bare run of teaser posts after such a heading does not carry. Only a class
    that starts with the word counts: ids and slug classes spell out the heading's text."""
    marked = [
        h
        for h in tree.iter(*_HEADINGS)
        if any(t.startswith("related") for t in (h.get("class") or "").lower().split())
    ]
    for heading in marked:
        parent = heading.getparent()
        if parent is None:
            continue
        for node in [heading, *heading.itersiblings()]:
            parent.remove(node)


def _article(tree: etree._Element, url: str | None, fmt: ContentFormat, published: bool) -> str:
    """Precision first on a page its publisher marks as a story (it drops the captions, teasers
    and link lists beside it); when it keeps much less than the page's prose it cut the body
    itself. Pages that only look like articles are read in balance: their edges are content."""
    _drop_related(tree)
    content = _story(tree, url, fmt, published)
    chunks = _body_chunks(tree)
    if chunks and sum(len(" ".join(c.itertext())) for c in chunks) > _CHUNKED * len(content):
        _join(chunks)
        content = _story(tree, url, fmt, published)
    return content


def _story(tree: etree._Element, url: str | None, fmt: ContentFormat, published: bool) -> str:
    if published:
        content = run_trafilatura(tree, url, fmt, _TRAFILATURA["article"])
        floor = max(_SHORT_SHARE * _paragraph_text(tree), _MIN_PRECISE)
        if len(content) >= floor:
            return content
    return run_trafilatura(tree, url, fmt, _BALANCED_ARTICLE)


def _without_headline(content: str, tree: etree._Element, title: str | None) -> str:
    """A story's plain text without its headline line: the headline is reported as the title,
    and in plain text it is no part of the body (Markdown keeps it as the document heading)."""
    first, _, rest = content.partition("\n")
    first = normalize_space(first).strip()
    if len(first.split()) < 3 or not rest.strip():
        return content
    heading = tree.find(".//h1")
    h1 = normalize_space(" ".join(heading.itertext())).strip() if heading is not None else ""
    if first == h1 or (title and first in title):
        return rest.lstrip()
    return content


def extract_html(
    text: str, *, url: str | None, format: ContentFormat, page_type: str = "auto"
) -> HtmlExtraction:
    """Extract the main content of an HTML document the way its page type needs; pure."""
    if page_type not in PAGE_TYPE_CHOICES:
        raise InvalidInput(
            f"unknown page type {page_type!r}; choose from {', '.join(PAGE_TYPE_CHOICES)}",
            details={"page_type": page_type},
        )
    tree = parse_html(text) if text.strip() else None
    if tree is None:
        return HtmlExtraction(title=None, content="", page_type=None)
    if page_type == "auto":
        classification = classify_page(tree, url)
    else:
        forced: HtmlPageType = next(k for k in HTML_PAGE_TYPES if k == page_type)
        classification = Classification(forced, 1.0, ("requested",))
    kind = classification.type
    title = _title(tree)
    _drop_inert(tree)
    content: str | None = None
    if kind == "forum":
        content = read_forum(tree, url, format)
    elif kind in BLOCK_PAGES:
        _drop_unread(tree, _UNREAD_CHROME)
        content = read_blocks(tree, url, format, _TRAFILATURA[kind])
    if not content and kind != "product":
        _drop_unread(tree)
    if not content and kind == "article":
        content = _article(tree, url, format, publication_marks(classification) >= 2)
        if format == "text":
            content = _without_headline(content, tree, title)
    elif not content:
        content = run_trafilatura(tree, url, format, _TRAFILATURA[kind])
        if kind == "product":
            content = read_product(tree, url, format, content) or content
    if format != "html":
        content = tidy(content)
    return HtmlExtraction(title, content, kind, classification)
