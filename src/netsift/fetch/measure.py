"""The text measure every reader and rule of fetch/ counts with: characters and words of a
node's text, measured one way so that a threshold tuned in one module means the same in another.

Two costs, two measures: `string_length` lets libxml2 count characters without building the
text (the cheap measure for a node's share of the page, whitespace included); `node_text` and
`word_count` build the text as a reader sees it (runs of whitespace collapsed to one space).
"""

from __future__ import annotations

from lxml import etree

__all__ = ["node_text", "string_length", "word_count", "words_in"]

_STRING_LENGTH = etree.XPath("string-length(.)")


def string_length(node: etree._Element) -> float:
    """Characters of text under `node`, scripts included, counted by libxml2 without building
    the string (the cheap measure for shares of a page)."""
    return float(_STRING_LENGTH(node))


def node_text(node: etree._Element) -> str:
    """The text under `node` as a reader sees it: its pieces joined by spaces (a tag between
    two words never glues them), runs of whitespace collapsed (a zero-width space too, which
    pages put between words), no space at either end."""
    return " ".join(" ".join(node.itertext()).replace("\u200b", " ").split())


def word_count(node: etree._Element) -> int:
    """Words under `node`: runs of non-space characters, pieces of text kept apart."""
    return len(" ".join(node.itertext()).split())


def words_in(text: str) -> int:
    """Words in a text (a line of an extraction, a control's label), counted as `word_count`."""
    return len(text.split())
