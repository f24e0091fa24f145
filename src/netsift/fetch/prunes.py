"""trafilatura's (2.3.1) raw-tree prunes as walks of the tree: the same elements, found without
its XPath's regular-expression callbacks.

Its `prune_unwanted_nodes` runs each XPath of a list over the whole tree, and every
`re:test(...)` there is a call from libxml2 back into Python for each element it reaches: about
10 µs an element, a sixth of the extraction's time on the article benchmark. These walks test
the same attributes with the same regular expressions (compiled once, in Python), so they
select exactly what the XPaths select, in document order; the tests compare the two on trees
built from every token of the patterns, and the digests of the XPaths' sources, so a release
that changes one fails loudly (tests/unit/fetch/test_trafilatura_release.py).

Only the lists `stages.py` and `fallback.py` prune with themselves are here; the prune inside
trafilatura's `extract_content` stays its own (netsift never patches trafilatura: the
benchmark runs it too).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from lxml import etree
from trafilatura.settings import _COOKIE_CONSENT_RE
from trafilatura.xml import delete_element
from trafilatura.xpaths import (
    _COMMENTS_CLASS,
    _COMMENTS_ID,
    _CONSENT_ID_CLASS_TOKENS,
    _OVERALL_DISCARD_BOTH_TOKENS,
    _OVERALL_DISCARD_CLASS_TOKENS,
    _OVERALL_DISCARD_ID_TOKENS,
)

__all__ = [
    "BASIC_CLEAN",
    "OVERALL_DISCARD",
    "RAW_TREE_PRUNE",
    "REMOVE_COMMENTS",
    "REMOVE_COMMENTS_AND_LISTS",
    "Prune",
    "basic_cleaning",
    "prune",
]

Test = Callable[[etree._Element], bool]


class Prune:
    """One XPath of trafilatura's: the tags it selects (None: every element) and its predicate."""

    __slots__ = ("tags", "test")

    def __init__(self, tags: tuple[str, ...] | None, test: Test) -> None:
        self.tags, self.test = tags, test

    def select(self, tree: etree._Element) -> list[etree._Element]:
        """What the XPath `.//*[...]` selects under `tree`, in document order."""
        nodes: Iterator[etree._Element] = (
            tree.iterdescendants(*self.tags)
            if self.tags is not None
            else tree.iterdescendants(etree.Element)
        )
        return [node for node in nodes if self.test(node)]


def prune(tree: etree._Element, prunes: tuple[Prune, ...]) -> etree._Element:
    """trafilatura's `prune_unwanted_nodes(tree, nodelist)` (without backup) for the walks'
    lists: each list's selection deleted, tails kept, before the next one selects."""
    for each in prunes:
        for node in each.select(tree):
            delete_element(node)
    return tree


def _first(node: etree._Element, one: str, other: str) -> str:
    """The string value of XPath's `@one|@other`: the attribute first in the source, else ""."""
    value: str | None = node.get(one)
    second: str | None = node.get(other)
    if value is None or second is None:
        return value if value is not None else (second or "")
    for name in node.keys():  # both present: the first written wins
        if name == one:
            return value
        if name == other:
            return second
    return value  # unreachable: both names are among the keys


def _attr(node: etree._Element, name: str) -> str:
    return node.get(name) or ""


def _alt(tokens: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(tokens))


# OVERALL_DISCARD_XPATH
_CONSENT = _alt(_CONSENT_ID_CLASS_TOKENS)
_DISCARD_ID = _alt(_OVERALL_DISCARD_BOTH_TOKENS + _OVERALL_DISCARD_ID_TOKENS)
_DISCARD_CLASS = _alt(_OVERALL_DISCARD_BOTH_TOKENS + _OVERALL_DISCARD_CLASS_TOKENS)
_HIDDEN_CLASS = re.compile(
    "^hide-|comments-title|nocomments|-reply-|message|akismet|suggest-links|-hide-|hide-print"
    "| hidden| hide|noprint|notloaded"
)
_HIDDEN_ID = re.compile("reader-comments|akismet")


def _chrome(node: etree._Element) -> bool:
    if not node.attrib:  # most elements: no pattern matches an absent attribute's ""
        return False
    return (
        node.get("data-lp-replacement-content") is not None
        or "nav" in _attr(node, "role").replace("N", "n")
        or "MostPopularStories" in _attr(node, "data-component")
        or _CONSENT.search(_first(node, "id", "class")) is not None
        or _DISCARD_ID.search(_attr(node, "id")) is not None
        or _DISCARD_CLASS.search(_attr(node, "class")) is not None
    )


def _hidden(node: etree._Element) -> bool:
    if not node.attrib:
        return False
    style = _attr(node, "style")
    return (
        node.get("class") == "comments-title"
        or _first(node, "id", "class").startswith("reply-")
        or "hidden" in _first(node, "id", "style")
        or "display:none" in style
        or "display: none" in style
        or _HIDDEN_ID.search(_attr(node, "id")) is not None
        or _HIDDEN_CLASS.search(_attr(node, "class")) is not None
        or node.get("aria-hidden") == "true"
    )


OVERALL_DISCARD = (
    Prune(("div", "item", "list", "p", "section", "span"), _chrome),
    Prune(None, _hidden),
)

# REMOVE_COMMENTS_XPATH and REMOVE_COMMENTS_AND_LISTS_XPATH
_COMMENT_ID = re.compile(f"^(?:{_COMMENTS_ID}|disqus_thread|dsq-comments)")
_COMMENT_CLASS = re.compile(_COMMENTS_CLASS)
_COMMENT_LIST_ID = re.compile(f"^(?:{_COMMENTS_ID})")


def _comments(node: etree._Element) -> bool:
    return (
        _COMMENT_ID.search(_attr(node, "id")) is not None
        or _COMMENT_CLASS.search(_attr(node, "class")) is not None
    )


def _comments_or_list(node: etree._Element) -> bool:
    if node.tag not in ("ol", "ul"):
        return _comments(node)
    # a list only by its own comment names, not the disqus ids
    return (
        _COMMENT_LIST_ID.search(_attr(node, "id")) is not None
        or _COMMENT_CLASS.search(_attr(node, "class")) is not None
    )


REMOVE_COMMENTS = (Prune(("div", "list", "section", "details"), _comments),)
REMOVE_COMMENTS_AND_LISTS = (
    Prune(("div", "list", "section", "details", "ol", "ul"), _comments_or_list),
)

# RAW_TREE_PRUNE_XPATH
_SCROLL = re.compile("mvp-post-add-(?:box|wrap)|infinite-?scroll")
_APPENDED = re.compile("mvp-post-add-(?:box|wrap)")


def _appended_article(node: etree._Element) -> bool:
    node_id, node_class = _attr(node, "id"), _attr(node, "class")
    if _SCROLL.search(node_id) is None and _SCROLL.search(node_class) is None:
        return False
    return (
        next(node.iterdescendants("h1"), None) is None
        or _APPENDED.search(node_id) is not None
        or _APPENDED.search(node_class) is not None
    )


def _share_buttons(node: etree._Element) -> bool:
    return "elementor-share-buttons" in _attr(node, "class")


RAW_TREE_PRUNE = (
    Prune(("div", "section", "aside"), _appended_article),
    Prune(("div", "section", "aside"), _share_buttons),
)


# settings.BASIC_CLEAN_XPATH (baseline's cleaning, before its text or justext reads the page)
_BASIC_TAGS = frozenset({"aside", "fencedframe", "footer", "script", "style", "svg", "template"})
_COOKIE_CONSENT = re.compile(_COOKIE_CONSENT_RE, re.IGNORECASE)


def _basic(node: etree._Element) -> bool:
    if node.tag in _BASIC_TAGS:
        return True
    if not node.attrib:
        return False
    return (
        (node.tag == "div" and "footer" in _first(node, "class", "id"))
        or _COOKIE_CONSENT.search(_attr(node, "class")) is not None
        or _COOKIE_CONSENT.search(_attr(node, "id")) is not None
    )


BASIC_CLEAN = Prune(None, _basic)


def basic_cleaning(tree: etree._Element) -> etree._Element:
    """trafilatura's `baseline.basic_cleaning`: asides, footers, scripts, styles, SVG,
    templates and cookie banners deleted, tails kept."""
    return prune(tree, (BASIC_CLEAN,))
