"""Tree steps every page-type reader shares: a copy of the body to prune, removing a node
without the text after it, rendering a node in the requested format, and the one way netsift
calls trafilatura."""

from __future__ import annotations

import re
from copy import deepcopy
from typing import Any
from urllib.parse import urljoin, urlsplit

import lxml.html
import trafilatura
from lxml import etree

from ..models import ContentFormat
from . import stages
from .links import join_url
from .markdown import TextFormat, render
from .tree import body_of, drop

__all__ = [
    "body_of",
    "collapse_whitespace",
    "lift_captions",
    "link_base",
    "own_copy",
    "render_node",
    "resolve_links",
    "run_trafilatura",
]

_ABSOLUTE = ("http://", "https://")
_OUTPUT = {"markdown": "markdown", "text": "txt", "html": "html"}
_OPTIONS = frozenset({"include_comments", "favor_precision"})


def run_trafilatura(
    tree: etree._Element, url: str | None, fmt: ContentFormat, options: dict[str, Any]
) -> str:
    """trafilatura on the already parsed tree (it neither fetches nor re-parses), tables kept.

    Its stages are not given the URL: every reader hands it a tree whose links are resolved
    already (`resolve_links`, as a browser would), and the URL serves them only to resolve
    each link again (courlan's, a tenth of their time on a page of links)."""
    if stages.SUPPORTED and set(options) <= _OPTIONS and isinstance(tree, lxml.html.HtmlElement):
        return _unbracketed(stages.extract(tree, None, fmt, options), fmt)
    content = trafilatura.extract(
        tree,
        url=url,
        output_format=_OUTPUT[fmt],
        include_tables=True,
        include_links=fmt != "text",
        include_formatting=fmt != "text",
        include_images=False,
        deduplicate=False,
        **options,
    )
    return _unbracketed((content or "").strip(), fmt)


# trafilatura's Markdown for a link without a target (a dead link, see `resolve_links`) is
# "[its text]"; brackets in text it escapes, code it leaves as written (so code is skipped)
_TARGETLESS = re.compile(
    r"(```.*?```|`[^`\n]*`)|(?<![\\!\]])\[((?:[^\[\]\\\n]|\\.)*)\](?![(\[])", re.DOTALL
)


def _unbracketed(content: str, fmt: ContentFormat) -> str:
    if fmt != "markdown" or "[" not in content:
        return content
    return _TARGETLESS.sub(lambda m: m[1] or m[2], content)


def render_node(node: etree._Element, fmt: ContentFormat) -> str:
    if fmt == "html":
        return str(lxml.html.tostring(node, encoding="unicode", method="html")).strip()
    text_format: TextFormat = fmt
    return render(node, text_format).strip()


def link_base(tree: etree._Element, url: str | None) -> str | None:
    """The URL the page's links resolve against, as a browser's: the first `<base href>`,
    itself resolved against the page URL, when it is http(s); else the page URL (the final one,
    after redirects: that is the URL the fetcher hands the extractor)."""
    for node in tree.iter("base"):
        href = node.get("href")
        if href is None:
            continue
        try:
            base = urljoin(url or "", _URL_NOISE.sub("", href))
        except ValueError:
            break
        if base.startswith(_ABSOLUTE) and urlsplit(base).netloc:
            return base
        break  # only the first base with an href counts, usable or not
    return url


# what a browser strips from an href before parsing it: leading and trailing C0 controls and
# spaces, and every tab and newline inside
_URL_NOISE = re.compile(r"^[\x00-\x20]+|[\x00-\x20]+$|[\t\n\r]")
# links that lead nowhere a reader can follow: script, and the bare "#" of a script's button
_DEAD_LINK = re.compile(r"(?i)javascript:|#?$")


def resolve_links(root: etree._Element, base: str | None) -> None:
    """Make the links under `root` what a browser would follow from a page whose base URL is
    `base` (see `link_base`): relative paths, queries, fragments and scheme-relative links
    resolved; absolute http(s) links kept as written, once rid of the spaces and line breaks a
    browser strips; mailto:, tel:, data: and other schemes left alone; script links and bare
    "#" lose their href: every renderer keeps their text without a link, and the readers
    still see the `a` their link-density measures count.
    Idempotent; with no base only the dead links change. (`urljoin` runs once per distinct
    href: menus repeat theirs.)"""
    resolved: dict[str, str] = {}
    for node in root.iter("a"):
        href = node.get("href")
        if href is None or (href.startswith(_ABSOLUTE) and not _URL_NOISE.search(href)):
            continue
        if (target := resolved.get(href)) is None:
            target = _resolve(href, base)
            resolved[href] = target
        if not target:
            del node.attrib["href"]
        elif target != href:
            try:
                node.set("href", target)
            except ValueError:  # a control character lxml accepted from the page, not back
                continue


def _resolve(href: str, base: str | None) -> str:
    clean = _URL_NOISE.sub("", href)
    if _DEAD_LINK.match(clean):
        return ""
    if not base:
        return href
    try:
        return join_url(base, clean)
    except ValueError:  # a malformed host ("http://[::1"): left as the page wrote it
        return href


def lift_captions(tree: etree._Element) -> None:
    """Move each table's caption to a paragraph just before the table: trafilatura renders a
    caption as a first row with its own separator (two separator rows in Markdown, a caption
    posing as the header), and the Markdown renderer, which reads rows only, lost it."""
    for caption in list(tree.iter("caption")):
        table = caption.getparent()
        if table is None or table.getparent() is None:
            continue
        paragraph = etree.Element("p")
        paragraph.text = caption.text
        paragraph.extend(list(caption))
        drop(caption)
        table.addprevious(paragraph)


_PRESERVED = ("pre", "textarea", "listing", "plaintext", "xmp")
# the inline markup trafilatura writes with marks of its own (`*`, `**`, backticks)
_EMPHASIS = ("em", "i", "strong", "b", "mark", "cite", "dfn", "code", "kbd", "samp", "var")
# each line break a space: the text keeps its length, which the readers' shares of a page
# were tuned on
_SOURCE_BREAKS = str.maketrans("\r\n", "  ")


def collapse_whitespace(tree: etree._Element) -> None:
    """Around and inside inline emphasis, turn the HTML source's line breaks into spaces, as a
    browser renders them: trafilatura carries them into its output, where an emphasis on a
    line of its own split its paragraph (`Hello\\n*world*\\nand more`; in plain text, three
    lines). Only there: elsewhere its choices (justext's paragraphs) read the line breaks."""
    kept = {node for keeper in tree.iter(*_PRESERVED) for node in keeper.iter()}
    for node in tree.iter(*_EMPHASIS):
        parent = node.getparent()
        if parent is None or node in kept:
            continue
        if node.text:
            node.text = node.text.translate(_SOURCE_BREAKS)
        if node.tail:
            node.tail = node.tail.translate(_SOURCE_BREAKS)
        before = node.getprevious()
        if before is not None and before.tail:
            before.tail = before.tail.translate(_SOURCE_BREAKS)
        elif before is None and parent.text:
            parent.text = parent.text.translate(_SOURCE_BREAKS)


def own_copy(tree: etree._Element, url: str | None) -> etree._Element:
    """A copy of the body to prune freely, its links made absolute against the page URL."""
    work = deepcopy(body_of(tree))
    resolve_links(work, url)
    return work
