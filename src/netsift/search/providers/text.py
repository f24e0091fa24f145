"""Plain text from the bits of markup providers put in titles and snippets.

Brave wraps matches in `<strong>`, Wikipedia in `<span class="searchmatch">`, DuckDuckGo in
`<b>`, Crossref abstracts are JATS XML; all of them carry entities. Users and agents get text:
tags removed, entities decoded, whitespace collapsed.
"""

from __future__ import annotations

import html

import lxml.html
from lxml.etree import ParserError

__all__ = ["plain_text"]


def plain_text(markup: str | None) -> str:
    """`markup` without tags, entities decoded, runs of whitespace as one space."""
    if not markup:
        return ""
    if "<" not in markup:
        return " ".join(html.unescape(markup).split())
    try:
        root = lxml.html.fragment_fromstring(markup, create_parent="div")
    except (ParserError, ValueError):
        return " ".join(html.unescape(markup).split())
    text: str = root.text_content()
    return " ".join(text.split())
