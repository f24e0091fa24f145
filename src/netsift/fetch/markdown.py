"""Render a cleaned HTML element as Markdown or plain text, keeping the structure a reader needs.

Type-aware extraction (forum posts, product facts, listing items, docs sections) picks the
elements that matter; this module only turns them into text: headings, paragraphs, lists,
links, emphasis, tables, code blocks and quotes in Markdown, the same blocks without markup in
plain text. It walks the lxml tree once and never looks at the network.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal

from lxml import etree

from .tags import HEADING_LEVELS

__all__ = ["BLOCK_TAGS", "TextFormat", "normalize_space", "render", "render_nodes"]

TextFormat = Literal["markdown", "text"]

BLOCK_TAGS = frozenset(
    {
        "address", "article", "aside", "blockquote", "body", "dd", "details", "dialog", "div",
        "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4",
        "h5", "h6", "header", "hgroup", "hr", "li", "main", "nav", "ol", "p", "pre", "section",
        "summary", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul", "html", "center",
        "caption", "menu", "output", "search",
    }
)  # fmt: skip
_SKIP = frozenset({"script", "style", "noscript", "template", "svg", "head", "title", "meta"})
_SPACE = re.compile(r"[ \t\r\n\f\v\u00a0\u200b]+")
_MD_SPECIAL = re.compile(r"([\\`*_\[\]])")


def normalize_space(text: str) -> str:
    return _SPACE.sub(" ", text)


def _tag(node: etree._Element) -> str:
    tag = node.tag
    return tag.lower() if isinstance(tag, str) else ""


class _Renderer:
    """One pass over the tree, collecting blocks (paragraph-level strings)."""

    def __init__(self, fmt: TextFormat) -> None:
        self.md = fmt == "markdown"
        self.blocks: list[str] = []
        self.line: list[str] = []

    # -- block handling -------------------------------------------------------------------
    def flush(self, prefix: str = "") -> None:
        text = normalize_space("".join(self.line)).strip()
        self.line = []
        if text:
            self.blocks.append(prefix + text)

    def inline_text(self, node: etree._Element) -> str:
        """Text of an inline subtree, with Markdown emphasis, code and links when wanted; the
        blocks a heading, link or cell wraps (`<a><div>title</div></a>`) run into its line."""
        sub = _Renderer("markdown" if self.md else "text")
        sub.walk_inline(node)
        sub.flush()
        return normalize_space(" ".join(sub.blocks)).strip()

    def walk_children(self, node: etree._Element) -> None:
        if node.text:
            self.line.append(self.escape(node.text))
        for child in node:
            self.walk(child)
            if child.tail:
                self.line.append(self.escape(child.tail))

    def escape(self, text: str) -> str:
        return _MD_SPECIAL.sub(r"\\\1", text) if self.md else text

    def walk_inline(self, node: etree._Element) -> None:
        self.walk_children(node)

    def walk(self, node: etree._Element) -> None:
        tag = _tag(node)
        if not tag or tag in _SKIP:
            return
        if tag in HEADING_LEVELS:
            self.flush()
            text = self.inline_text(node)
            if text:
                self.blocks.append(("#" * HEADING_LEVELS[tag] + " " if self.md else "") + text)
            return
        if tag == "br":
            self.line.append("\n" if not self.md else "  \n")
            self.flush()
            return
        if tag == "hr":
            self.flush()
            if self.md:
                self.blocks.append("---")
            return
        if tag == "pre":
            self.flush()
            code = "".join(node.itertext()).strip("\n")
            if code.strip():
                lang = _code_language(node)
                self.blocks.append(f"```{lang}\n{code}\n```" if self.md else code)
            return
        if tag in ("ul", "ol", "menu"):
            self.flush()
            self.render_list(node, ordered=tag == "ol", depth=0)
            return
        if tag == "table":
            self.flush()
            self.render_table(node)
            return
        if tag == "blockquote":
            self.flush()
            inner = _Renderer("markdown" if self.md else "text")
            inner.walk_children(node)
            inner.flush()
            for block in inner.blocks:
                self.blocks.append(
                    "\n".join("> " + ln for ln in block.split("\n")) if self.md else block
                )
            return
        if tag == "img":
            return
        if tag in BLOCK_TAGS:
            self.flush()
            self.walk_children(node)
            self.flush()
            return
        if not self.md:
            self.walk_children(node)
            return
        if tag in ("em", "i", "cite"):
            self.wrap(node, "*")
        elif tag in ("strong", "b"):
            self.wrap(node, "**")
        elif tag == "code" or tag == "kbd" or tag == "samp":
            text = normalize_space("".join(node.itertext())).strip()
            if text:
                self.inline(node, f"`{text}`")
        elif tag == "a":
            text = self.inline_text(node)
            href = (node.get("href") or "").strip()
            if text and href and not href.startswith(("javascript:", "#")):
                self.inline(node, f"[{text}]({href})")
            elif text:
                self.inline(node, text)
        else:
            self.walk_children(node)

    def wrap(self, node: etree._Element, mark: str) -> None:
        text = self.inline_text(node)
        if text:
            self.inline(node, f"{mark}{text}{mark}")

    def inline(self, node: etree._Element, markup: str) -> None:
        """Add an inline element's markup, keeping the white space at its edges outside it:
        `Hello<em> world</em>` is "Hello *world*", where the trimmed markup alone glued the
        words ("Hello*world*")."""
        text = node.text or (node[0].text if len(node) else "") or ""
        last = node[-1].tail if len(node) else None
        end = (last if last is not None else node.text) or ""
        if text[:1].isspace():
            self.line.append(" ")
        self.line.append(markup)
        if end[-1:].isspace():
            self.line.append(" ")

    # -- lists and tables -----------------------------------------------------------------
    def render_list(self, node: etree._Element, *, ordered: bool, depth: int) -> None:
        """A whole list, nested lists included, as one block of lines."""
        lines: list[str] = []
        self.list_lines(node, ordered=ordered, depth=depth, out=lines)
        if lines:
            self.blocks.append("\n".join(lines))

    def list_lines(
        self, node: etree._Element, *, ordered: bool, depth: int, out: list[str]
    ) -> None:
        n = 0
        for item in node:
            if _tag(item) in ("ul", "ol"):
                self.list_lines(item, ordered=_tag(item) == "ol", depth=depth + 1, out=out)
                continue
            if _tag(item) != "li":
                continue
            n += 1
            inner = _Renderer("markdown" if self.md else "text")
            nested: list[etree._Element] = []
            if item.text:
                inner.line.append(inner.escape(item.text))
            for child in item:
                if _tag(child) in ("ul", "ol"):
                    nested.append(child)
                else:
                    inner.walk(child)
                if child.tail:
                    inner.line.append(inner.escape(child.tail))
            inner.flush()
            text = normalize_space(" ".join(inner.blocks)).strip()
            if text:
                marker = (f"{n}. " if ordered else "- ") if self.md else ""
                out.append(("  " * depth if self.md else "") + marker + text)
            for sub in nested:
                self.list_lines(sub, ordered=_tag(sub) == "ol", depth=depth + 1, out=out)

    def render_table(self, node: etree._Element) -> None:
        rows: list[list[str]] = []
        for tr in node.iter("tr"):
            if _nearest_table(tr) is not node:
                continue
            cells = [c for c in tr if _tag(c) in ("td", "th")]
            rows.append([self.inline_text(c).replace("|", "\\|") for c in cells])
        rows = [r for r in rows if any(r)]
        if not rows:
            return
        if not self.md:  # a row's cells separated by tabs, as tidy.plain_tables writes them
            self.blocks.extend("\t".join(r) for r in rows)
            return
        width = max(len(r) for r in rows)
        if width == 1:
            self.blocks.extend(r[0] for r in rows if r[0])
            return
        padded = [r + [""] * (width - len(r)) for r in rows]
        lines = ["| " + " | ".join(padded[0]) + " |", "|" + " --- |" * width]
        lines += ["| " + " | ".join(r) + " |" for r in padded[1:]]
        self.blocks.append("\n".join(lines))


def _nearest_table(node: etree._Element) -> etree._Element | None:
    parent = node.getparent()
    while parent is not None and _tag(parent) != "table":
        parent = parent.getparent()
    return parent


def _code_language(pre: etree._Element) -> str:
    for node in (pre, *pre.iterchildren("code")):
        for cls in (node.get("class") or "").split():
            for prefix in ("language-", "lang-"):
                if cls.startswith(prefix) and cls[len(prefix) :].isalnum():
                    return cls[len(prefix) :]
    return ""


def render(node: etree._Element, fmt: TextFormat) -> str:
    """Markdown or plain text of `node`, blocks separated by blank lines (text: newlines)."""
    return render_nodes([node], fmt)


def render_nodes(nodes: Iterable[etree._Element], fmt: TextFormat) -> str:
    """`render` of `nodes` as the blocks of one container, each without its tail: the parts
    of a page a reader picked, read where they are, without copying them into a new tree."""
    renderer = _Renderer(fmt)
    for node in nodes:
        renderer.walk(node)
    renderer.flush()
    sep = "\n\n" if fmt == "markdown" else "\n"
    return sep.join(renderer.blocks)
