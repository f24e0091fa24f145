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
from ..models import HTML_PAGE_TYPES, ContentFormat, HtmlPageType, PageType
from .article import read_article, without_headline
from .blocks import BLOCK_PAGES, read_blocks
from .boilerplate import PRUNED_TAGS
from .bounds import bound_attributes, bound_tree
from .byline import Byline, take_byline
from .dom import (
    body_of,
    collapse_whitespace,
    lift_captions,
    link_base,
    resolve_links,
    run_trafilatura,
)
from .forum import read_forum
from .hidden import Hidden, drop_hidden, reveal_hidden
from .markdown import normalize_space
from .measure import string_length
from .pagetype import Classification, classify_page, publication_marks
from .product import read_product
from .tidy import plain_tables, tidy
from .tree import drop
from .wall import Wall, page_wall

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
    what the bounds cut and the cleaning dropped (`warnings`), the HTML as read (`read_html`,
    for the metadata reader: None when nothing was cut) and a story's byline."""

    title: str | None
    content: str
    page_type: PageType | None = None
    classification: Classification | None = None
    warnings: tuple[str, ...] = ()
    read_html: str | None = None
    byline: Byline | None = None  # the story's byline, taken out of its text
    wall: Wall | None = None  # what the page shows instead of itself (`wall.py`)


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
    """One lxml tree for the whole pipeline (encoding declarations and broken markup handled):
    the document's root, whatever part of a document `text` is; None when it holds no tag."""
    if not _TAG.search(text):
        return None  # not HTML at all
    try:
        root = lxml.html.document_fromstring(_repaired(text), parser=_PARSER)
    except (ValueError, etree.ParserError):
        return None
    _end_head(root)
    return root


_TAG = re.compile(r"<[A-Za-z!?/]")
# what HTML lets a head hold; any other element ends it (the HTML standard's "in head" mode)
_HEAD_TAGS = frozenset(
    {"base", "basefont", "bgsound", "link", "meta", "title", "noscript", "noframes", "style",
     "script", "template"}
)  # fmt: skip


def _end_head(root: etree._Element) -> None:
    """Move into the body what libxml2 left in the head. Its parser knows HTML 4 only, so
    when no `<body>` tag came first it keeps an element it does not know (`article`, `main`,
    `section`, `header`, `nav`…) in the head, with what follows it: a page written without a
    body tag (`<title>…</title><article>…`) read as empty. A browser's parser ends the head
    at the first element that does not belong there; so does this, after the fact."""
    head = root.find("head")
    if head is None:
        return
    first = next(
        (
            i
            for i, node in enumerate(head)
            if isinstance(node.tag, str) and node.tag not in _HEAD_TAGS
        ),
        None,
    )
    if first is None:
        return
    body = root.find("body")
    if body is None:
        body = etree.SubElement(root, "body")
    for node in reversed(head[first:]):
        body.insert(0, node)


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
    text: str,
    *,
    url: str | None,
    format: ContentFormat,
    page_type: str = "auto",
    keep_hidden: bool = False,
) -> HtmlExtraction:
    """Extract the main content of an HTML document the way its page type needs; pure.

    The stages, each below: parse (within the bounds), clean (what a browser would not show),
    classify, read by type (the byline taken out of a story first), render (tidy the text)."""
    if page_type not in PAGE_TYPE_CHOICES:
        raise InvalidInput(
            f"unknown page type {page_type!r}; choose from {', '.join(PAGE_TYPE_CHOICES)}",
            details={"page_type": page_type},
        )
    tree, warnings, read_html = _read_bounded(text)
    if tree is None:
        return HtmlExtraction(title=None, content="", page_type=None)
    hidden = _clean(tree, keep_hidden)
    classification = _classify(tree, url, page_type)
    kind = classification.type
    title = _title(tree)
    byline = take_byline(body_of(tree)) if kind == "article" else None
    structured = _has_structured_data(tree)  # before the reading drops the head's metas
    page_title, small = tree.findtext(".//title"), _small(tree)
    content = _read(tree, kind, url, format, classification, title)
    notes = (*warnings, *filter(None, (hidden.warning(), _structured_only(structured, content))))
    wall = page_wall(
        text,
        title=page_title,
        words=lambda: (_shown_words(text, keep_hidden) if small else "") or content,
        read_words=len(content.split()),
    )
    return HtmlExtraction(
        title, _render(content, format), kind, classification, notes, read_html, byline, wall
    )


# the text a page shows outside its chrome (a newsletter box's "subscribe to keep reading"
# in an aside is no paywall)
_SHOWN_TEXT = etree.XPath(
    "//body//text()[not(ancestor::script or ancestor::style or ancestor::template"
    " or ancestor::aside or ancestor::nav or ancestor::footer)]",
    smart_strings=False,
)
_SMALL_BODY = 20_000  # characters, scripts included: a wall's body is far shorter


def _small(tree: etree._Element) -> bool:
    """Whether the page is small enough for the wall check to read its words: a wall's body
    is short, and a large page's reading stands in for its words."""
    body = tree.find("body")
    return body is not None and string_length(body) <= _SMALL_BODY


def _shown_words(text: str, keep_hidden: bool) -> str:
    """The words a small page shows (once cleaned) outside its chrome, for the wall check.
    From a parse of its own: the check asks only when the reading is thin (a wall's is), and
    by then the readers have cut the tree; a page read in full never pays for it."""
    tree, _, _ = _read_bounded(text)
    if tree is None:
        return ""
    _clean(tree, keep_hidden)
    return " ".join(" ".join(str(t) for t in _SHOWN_TEXT(tree)).split())


def _clean(tree: etree._Element, keep_hidden: bool) -> Hidden:
    """What a browser would not show goes, counted (`hidden.py`); or, kept, it is shown to
    every reader alike."""
    if not keep_hidden:
        return drop_hidden(tree)
    reveal_hidden(tree)
    return Hidden()


def _classify(tree: etree._Element, url: str | None, page_type: str) -> Classification:
    """The page's type: the one asked for, else what its markup and shape say (pagetype.py).
    On the page as written: the rules were tuned on it."""
    if page_type == "auto":
        return classify_page(tree, url)
    forced: HtmlPageType = next(k for k in HTML_PAGE_TYPES if k == page_type)
    return Classification.requested(forced)


def _read(
    tree: etree._Element,
    kind: HtmlPageType,
    url: str | None,
    format: ContentFormat,
    classification: Classification,
    title: str | None,
) -> str:
    """The main content by the page's type; each type-aware reader falls back to the generic
    one when the structure it needs is not there."""
    _drop_inert(tree)
    _as_rendered(tree, link_base(tree, url))
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
    return content


def _render(content: str, format: ContentFormat) -> str:
    """The reading as the format wants it: tidy Markdown and text, tables as lines in text."""
    if format != "html":
        content = tidy(content)
    if format == "text":
        content = plain_tables(content)
    return content


STRUCTURED_ONLY_WARNING = "structured_data_only"
_MICRODATA = etree.XPath("boolean(//*[@itemscope])")


def _has_structured_data(tree: etree._Element) -> bool:
    """Whether the page carries JSON-LD, OpenGraph or microdata: the first two by the few
    scripts and metas a page has, the last by a walk of the whole tree only when they are not
    there (most pages have one of the first two)."""
    for script in tree.iter("script"):
        if (script.get("type") or "").strip().lower() == "application/ld+json":
            return True
    for meta in tree.iter("meta"):
        if (meta.get("property") or "").startswith("og:"):
            return True
    return bool(_MICRODATA(tree))


_THIN = 8  # words: a headline's worth, no sentence of the body's own


def _structured_only(structured: bool, content: str) -> str | None:
    """A warning when the page's only content is its structured data (JSON-LD, microdata,
    OpenGraph): that is in `metadata`, never the body, so the body is (nearly) empty."""
    if not structured or len(content.split()) >= _THIN:
        return None
    return (
        f"{STRUCTURED_ONLY_WARNING}: the page shows almost no text; what it says is in its "
        "structured data (JSON-LD, microdata or OpenGraph), read into metadata"
    )
