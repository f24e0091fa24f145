"""HTML main-content extraction: the readable part of a page, read the way its type needs.

An agent reading a page wants the article, the docs section, the thread or the product, not
the menu, the cookie banner and the footer. The page is parsed once; that one tree serves the
page-type classifier (`pagetype.py`) and the extractor chosen for the type:

- article and documentation: trafilatura's boilerplate removal, handed the parsed tree so it
  never fetches or re-parses (`article.py`: stories their publisher marks read with precision);
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
from .article import read_article, without_headline
from .blocks import BLOCK_PAGES, read_blocks
from .boilerplate import PRUNED_TAGS
from .bounds import bound_attributes, bound_tree
from .dom import (
    collapse_whitespace,
    drop,
    lift_captions,
    link_base,
    resolve_links,
    run_trafilatura,
    string_length,
)
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
from .tidy import plain_tables, tidy

__all__ = ["PAGE_TYPE_CHOICES", "HtmlExtraction", "bounded_html", "extract_html", "parse_html"]

PAGE_TYPE_CHOICES: tuple[str, ...] = ("auto", *HTML_PAGE_TYPES)
_TRAFILATURA: dict[str, dict[str, Any]] = {
    "documentation": {"include_comments": False},
    "service": {"include_comments": True},
    "collection": {"include_comments": True},
    "product": {"include_comments": False},
    "forum": {"include_comments": True},
    "listing": {"include_comments": True},
}


@dataclass(frozen=True)
class HtmlExtraction:
    """What the HTML extractor found: a title, the main content in one format, the page type;
    what the bounds cut (`warnings`) and then the HTML as read (`read_html`, for the metadata
    reader: None when nothing was cut)."""

    title: str | None
    content: str
    page_type: PageType | None = None
    classification: Classification | None = None
    warnings: tuple[str, ...] = ()
    read_html: str | None = None


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


def _read_bounded(text: str) -> tuple[etree._Element | None, list[str], str | None]:
    """The page's tree within the caps of `bounds.py`, what they cut, and the cut page as
    HTML (None when nothing was cut) for readers that parse it themselves."""
    text, warnings = bound_attributes(text)
    tree = parse_html(text) if text.strip() else None
    if tree is None:
        return None, warnings, None
    warnings += bound_tree(tree)
    if not warnings:
        return tree, [], None
    return tree, warnings, str(lxml.html.tostring(tree, encoding="unicode", method="html"))


def bounded_html(text: str) -> str:
    """`text` as the caps let a parser read it (itself when nothing is cut), for the readers
    with their own parser: lexbor is quadratic in depth and attributes."""
    _, _, read_html = _read_bounded(text)
    return read_html or text


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
    limit = _UNREAD_SHARE * string_length(body)
    for node in [n for n in body.iter(*tags) if string_length(n) < limit]:
        drop(node, keep_blank_tail=True)


def _as_rendered(tree: etree._Element, base: str | None) -> None:
    """The tree as a browser shows it, for every reader: links resolved as it would follow
    them, captions above their tables, source line breaks as spaces. After classification,
    which was tuned on the page as written."""
    resolve_links(tree, base)
    lift_captions(tree)
    collapse_whitespace(tree)


def _title(tree: etree._Element) -> str | None:
    for xpath in ("//meta[@property='og:title']/@content", "//title//text()", "//h1//text()"):
        found = " ".join(str(v).strip() for v in tree.xpath(xpath) if str(v).strip())
        if found:
            return normalize_space(found).strip()
    return None


def extract_html(
    text: str, *, url: str | None, format: ContentFormat, page_type: str = "auto"
) -> HtmlExtraction:
    """Extract the main content of an HTML document the way its page type needs; pure."""
    if page_type not in PAGE_TYPE_CHOICES:
        raise InvalidInput(
            f"unknown page type {page_type!r}; choose from {', '.join(PAGE_TYPE_CHOICES)}",
            details={"page_type": page_type},
        )
    tree, warnings, read_html = _read_bounded(text)
    if tree is None:
        return HtmlExtraction(title=None, content="", page_type=None)
    if page_type == "auto":
        classification = classify_page(tree, url)
    else:
        forced: HtmlPageType = next(k for k in HTML_PAGE_TYPES if k == page_type)
        classification = Classification(forced, 1.0, ("requested",))
    kind = classification.type
    title = _title(tree)
    base = link_base(tree, url)
    _drop_inert(tree)
    _as_rendered(tree, base)
    content: str | None = None
    if kind == "forum":
        content = read_forum(tree, url, format)
    elif kind in BLOCK_PAGES:
        _drop_unread(tree, _UNREAD_CHROME)
        content = read_blocks(tree, url, format, _TRAFILATURA[kind])
    if not content and kind != "product":
        _drop_unread(tree)
    if not content and kind == "article":
        content = read_article(tree, url, format, publication_marks(classification) >= 2)
        if format == "text":
            content = without_headline(content, tree, title)
    elif not content:
        content = run_trafilatura(tree, url, format, _TRAFILATURA[kind])
        if kind == "product":
            content = read_product(tree, url, format, content) or content
    if format != "html":
        content = tidy(content)
    if format == "text":
        content = plain_tables(content)
    return HtmlExtraction(title, content, kind, classification, tuple(warnings), read_html)
