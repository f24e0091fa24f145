"""Boilerplate pruning: drop what is never main content (menus, banners, footers, widgets).

Used on every non-article page before the main region is chosen. The decisions are structural
(tag, ARIA role) or by the class/id words sites use for chrome (cookie, consent, newsletter,
share, breadcrumb, related...), never by domain. What is hidden is `hidden.py`'s rule: the
cleaning dropped it before any reader ran, but for the panels a control may show, which go
here unless the reader opened them (`blocks.open_accordions`); for a caller who keeps hidden
text the cleaning revealed it all (`keep_hidden`), so none goes.
"""

from __future__ import annotations

import re
from functools import lru_cache

from lxml import etree

from .hidden import is_hidden
from .tree import drop

__all__ = [
    "PRUNED_TAGS",
    "is_large_share",
    "looks_like_boilerplate",
    "prune_boilerplate",
]

_ALWAYS = frozenset(
    {
        "script", "style", "noscript", "template", "svg", "iframe", "object", "embed", "canvas",
        "select", "input", "textarea", "option", "label", "dialog", "link", "meta",
        "head", "video", "audio", "picture", "source", "map",
    }
)  # fmt: skip
_CHROME_TAGS = frozenset({"nav", "footer", "aside"})
PRUNED_TAGS = _ALWAYS | _CHROME_TAGS  # every element of these kinds goes, whatever it holds
# a button goes too, but only once the block reader has read accordion toggles out of it
_PRUNED = PRUNED_TAGS | {"button"}
_CHROME_ROLES = frozenset(
    {"navigation", "banner", "contentinfo", "complementary", "search", "menu", "menubar",
     "dialog", "alertdialog", "toolbar", "tablist"}
)  # fmt: skip
_BOILER_WORDS = re.compile(
    r"(?:^|[-_\s])(?:cookie|cookies|consent|gdpr|banner|newsletter|subscribe|subscription|"
    r"signup|sign-up|share|sharing|social|breadcrumbs?|related|recommended|sidebar|"
    r"widget|advert|advertisement|ads?|adslot|sponsor|sponsored|promo|popup|modal|overlay|"
    r"skip|skiplink|masthead|navbar|nav|navigation|menu|topbar|footer|header|site-header|"
    r"site-footer|copyright|disclaimer|toolbar|pagination|pager|login|signin|drawer|offcanvas|"
    r"hidden|visually-hidden|sr-only|screen-reader-text|print-only|outbrain|taboola|"
    r"author-bio|tags|tag-list|trending|most-popular|read-more|more-stories)(?:$|[-_\s])",
    re.IGNORECASE,
)


def looks_like_boilerplate(node: etree._Element) -> bool:
    """Class/id/role say chrome (nav, cookie banner, share bar...)."""
    tag = node.tag if isinstance(node.tag, str) else ""
    if tag in ("html", "body", "main", "article"):
        return False
    if (node.get("role") or "").lower() in _CHROME_ROLES:
        return True
    classes, ident = node.get("class"), node.get("id")
    return bool(classes or ident) and _names_say_chrome(classes or "", ident or "")


@lru_cache(maxsize=4096)
def _names_say_chrome(classes: str, ident: str) -> bool:
    """Cached: a page repeats the same class strings on every card and menu item."""
    names = f"{_class_words(classes)} {ident}"
    return bool(names.strip() and _BOILER_WORDS.search(names))


_UTILITY_MARKS = re.compile(r":|overflow|__|hidden")
_CSS_MODULE = re.compile(r"^([A-Za-z][A-Za-z0-9]*)_[A-Za-z0-9-]+__[A-Za-z0-9_-]+$")
_RESPONSIVE_HIDDEN = re.compile(
    r"hidden[-_](?:xs|sm|md|lg|xl|xxl|lt|gt|below|above|up|down|mobile|tablet|phone|desktop)",
    re.IGNORECASE,
)
# "hidden" said of one part of the element, not of the element: Drupal marks every field whose
# label it does not print `field--label-hidden` (a listing's card titles and summaries among
# them), and a label or icon that only screen readers get is `label-visually-hidden`
_PART_HIDDEN = re.compile(r"(?:label|title|caption|legend|icon)[-_]+(?:visually[-_])?hidden")


def _class_words(classes: str) -> str:
    """The class words that can say chrome. Utility classes cannot: `overflow-hidden` clips
    a box's edges, and `md:hidden`, `hidden-lt-md` hide from one screen size only. A CSS
    module's class (`Pricing_header__x1y2`) names its part of a component: the component's
    name is what can say chrome."""
    if not _UTILITY_MARKS.search(classes):
        return classes  # the common case, cheap: this runs on every element
    words = classes.split()
    responsive = any(_RESPONSIVE_HIDDEN.search(w) for w in words)
    kept = []
    for word in words:
        if ":" in word or word.startswith("overflow") or (responsive and "hidden" in word):
            continue
        if "hidden" in word and _PART_HIDDEN.search(word.lower()):
            continue
        module = _CSS_MODULE.match(word)
        kept.append(module.group(1) if module else word)
    return " ".join(kept)


def prune_boilerplate(root: etree._Element, *, keep_header_in_main: bool = True) -> None:
    """Remove chrome from `root` in place (the caller owns the tree). What lies inside a node
    already doomed goes with it, so the walk skips it (not inside `root` itself: a reader may
    prune a post that looks like chrome and still render it)."""
    doomed: list[etree._Element] = []
    root_length = -1  # the root's text length, measured once and only if needed
    walk = etree.iterwalk(root, events=("start", "comment", "pi"))
    for event, node in walk:
        if event != "start":  # comments, processing instructions
            doomed.append(node)
            continue
        tag = node.tag.lower()
        chrome = (
            tag in _PRUNED
            or (bool(node.attrib) and is_hidden(node))
            or (tag == "header" and not (keep_header_in_main and _inside_content(node)))
            or (tag == "form" and not _has_much_text(node))
        )
        if not chrome:
            if not (node.attrib and looks_like_boilerplate(node)):
                continue
            if root_length < 0:
                root_length = len("".join(root.itertext()))
            if is_large_share(node, root_length):
                continue  # named like chrome, but holds most of the page
        doomed.append(node)
        if node is not root:
            walk.skip_subtree()
    for node in doomed:
        drop(node)


def _inside_content(node: etree._Element) -> bool:
    parent = node.getparent()
    while parent is not None:
        if parent.tag in ("main", "article"):
            return True
        parent = parent.getparent()
    return False


def _has_much_text(node: etree._Element) -> bool:
    return len("".join(node.itertext()).split()) > 80


def is_large_share(node: etree._Element, root_length: int) -> bool:
    """A wrapper whose class happens to say 'header' but holds most of the page stays."""
    inner = len("".join(node.itertext()))
    return inner > 2000 and inner > 0.5 * root_length
