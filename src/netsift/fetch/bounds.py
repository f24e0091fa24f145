"""Bounds on how much HTML structure netsift reads: attributes per element, nesting depth and
element count, each cut at a named cap before extraction, and the cut reported.

Both parsers netsift uses are super-linear on some markup: libxml2 and lexbor check each new
attribute against the element's others (a 200,000-attribute element took 52 s), lexbor (the
metadata reader) also in nesting depth, and trafilatura's pipeline costs about 0.1 CPU ms per
element. Past a cap the rest is dropped, never silently: each cut adds a sentence to
`Page.warnings`. The caps sit far above real pages: of the 1,638 pages in the extraction and
WCXB benchmark sets the largest has 15,793 elements, the deepest 56 levels, the widest element
136 attributes, so none of them is cut.
"""

from __future__ import annotations

import re
from itertools import islice

from lxml import etree

__all__ = [
    "MAX_ATTRIBUTES",
    "MAX_DEPTH",
    "MAX_ELEMENTS",
    "bound_attributes",
    "bound_tree",
]

# Elements read (3x the largest benchmark page): trafilatura's pipeline on 50,000 elements of
# links takes about 3 CPU s, well inside the default 15 s budget.
MAX_ELEMENTS = 50_000
# libxml2's own nesting limit without XML_PARSE_HUGE: it stops reading the document at this
# depth. Reported here, and the metadata reader is handed the same cut tree (it has no limit
# and is quadratic in depth).
MAX_DEPTH = 256
# Attributes read per element (7x the widest benchmark element); the check for duplicates both
# parsers make costs ~1 ms at this size.
MAX_ATTRIBUTES = 1_000

# A start tag long enough to hold more than MAX_ATTRIBUTES attributes (each is at least one
# character and a space). Linear: one run of one class, each scan stopping at the next "<" or
# ">", so every character is scanned by at most one attempt.
_LONG_TAG = re.compile(rf"<([A-Za-z][^<>]{{{2 * MAX_ATTRIBUTES},}})")
# one attribute as HTML's tokenizer reads it: a name, then maybe "=" and a value (the tag's own
# name is read as the first)
_ATTRIBUTE = re.compile(r"""[^\s"'>/=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>`]*))?""")
# The page as HTML's tokenizer reads it, one token a match: comments and elements whose content
# is text (a script's `i<n`) whole, start tags with their quoted values (a data: URI's `<svg`
# is no tag), text. Used only on a page where the quick search found a candidate: a Python
# loop over every token costs about 1 ms per 1,000 tags.
_TOKENS = re.compile(
    r"<!--.*?(?:-->|\Z)"
    r"|<(script|style|textarea|title|xmp)\b.*?(?:</\1\s*>|\Z)"
    r"|<([A-Za-z][^\s/>]*)((?:[^>\"']|\"[^\"]*\"|'[^']*')*)"
    r"|[^<]+|<",
    re.DOTALL | re.IGNORECASE,
)
# an element at the depth where libxml2 stopped (html is depth 1), found by a path of that many
# steps: evaluated level by level, so linear in the element count
_AT_DEPTH = etree.XPath("boolean(" + "/*" * MAX_DEPTH + ")")
_COUNT = etree.XPath("count(//*)")


def bound_attributes(text: str) -> tuple[str, list[str]]:
    """`text` with every element's attributes past the first MAX_ATTRIBUTES removed, and a
    warning for each element cut (none for a page that needs no cut: `text` is returned)."""
    if not any(_wider(text, m.start(1), m.end()) for m in _LONG_TAG.finditer(text)):
        return text, []
    pieces: list[str] = []
    warnings: list[str] = []
    done = 0
    for token in _TOKENS.finditer(text):
        start, end = token.span(3)
        if start < 0 or end - start < 2 * MAX_ATTRIBUTES:
            continue
        count, cut = 0, start
        for attribute in _ATTRIBUTE.finditer(text, start, end):
            count += 1
            if count == MAX_ATTRIBUTES:
                cut = attribute.end()
        if count <= MAX_ATTRIBUTES:
            continue
        pieces.append(text[done:cut])
        done = end
        warnings.append(
            f"an element has {count:,} attributes; netsift read its first {MAX_ATTRIBUTES:,}"
        )
    if not warnings:
        return text, []
    pieces.append(text[done:])
    return "".join(pieces), warnings


def _wider(text: str, start: int, end: int) -> bool:
    """Whether `text[start:end]`, read as a tag (its name first), holds more than
    MAX_ATTRIBUTES attributes."""
    return sum(1 for _ in islice(_ATTRIBUTE.finditer(text, start, end), MAX_ATTRIBUTES + 1)) > (
        MAX_ATTRIBUTES
    )


def bound_tree(tree: etree._Element) -> list[str]:
    """Cut `tree` to its first MAX_ELEMENTS elements in document order; a warning for that cut
    and for nesting that reached MAX_DEPTH (where the parser stopped reading)."""
    warnings: list[str] = []
    if _AT_DEPTH(tree):
        warnings.append(
            f"the page nests elements {MAX_DEPTH} deep; netsift read it up to the first "
            "element that deep"
        )
    total = int(_COUNT(tree))
    if total > MAX_ELEMENTS:
        last = next(islice(tree.iter(etree.Element), MAX_ELEMENTS - 1, None))
        for child in list(last):
            last.remove(child)
        for node in (last, *last.iterancestors()):
            parent = node.getparent()
            if parent is None:
                break
            for following in list(node.itersiblings()):
                parent.remove(following)
        warnings.append(f"netsift read the first {MAX_ELEMENTS:,} of {total:,} elements")
    return warnings
