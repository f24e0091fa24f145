"""Hidden text: what a browser would not show, dropped before anything reads the page.

Pages hide text from people and leave it to machines: a note to "AI assistants" in a
`display:none` block, an off-screen paragraph, a line in the page's background colour. An agent
that reads it is reading what the page's visitors never saw, so it goes before classification
and extraction, and the count goes into the page's warnings (`keep_hidden` keeps it).

What counts as hidden: `noscript` and `template` content; the `hidden` attribute (not
`until-found`, which find-in-page reveals); `aria-hidden="true"`; and inline styles that set
`display:none`, `visibility:hidden`, zero opacity or font size, a zero box that clips its
overflow, a clip to nothing, an off-screen position or indent, or a text colour equal to the
background's. Stylesheets are not read: on the WCXB pages their hiding rules were mostly
states a script or a screen size undoes (CSS-in-JS classes, components not yet upgraded), and
dropping what they named cost a page its content far more often than it caught a note.

What does not: a panel a control on the page discloses (an accordion's answer, a tab, a
`<details>` body: a click shows it), a segment React streams in hidden and its script moves
into place, and an element holding a large share of the page's text (a page hidden until its
script has run, a fade-in: the browser shows it a moment later).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from lxml import etree

from .measure import string_length
from .tree import drop

__all__ = ["HIDDEN_WARNING", "Hidden", "drop_hidden", "is_hidden", "reveal_hidden"]

HIDDEN_WARNING = "hidden_text"  # the warning's stable first word
# of the body's text: a hidden element holding more is the page's own content waiting for
# its script (a fade-in, an anti-flicker snippet), not a note slipped in beside it
MOST_OF_PAGE = 0.25
OFF_SCREEN_PX = 500  # a negative offset or indent this large puts text outside any viewport

_CANDIDATES = etree.XPath(
    "//body//*[@style or @hidden or @aria-hidden] | //noscript | //template", smart_strings=False
)
_NAMED = etree.XPath(
    "//@aria-controls | //@data-target | //@data-bs-target | //a/@href[starts-with(., '#')]",
    smart_strings=False,
)
_SPACE = re.compile(r"\s+")
_HIDING = re.compile(
    r"(?:^|;)(?:display:none|visibility:(?:hidden|collapse)|opacity:0(?:\.0*)?(?:[;!]|$)"
    r"|font-size:0(?:\.0*)?(?:px|em|rem|pt|%)?(?:[;!]|$)|color:transparent"
    r"|clip:rect\(0(?:px)?,?0(?:px)?,?0(?:px)?,?0(?:px)?\)|clip-path:(?:inset\(50%\)|circle\(0)"
    r"|transform:scale\(0\))"
)
_ZERO_BOX = re.compile(r"(?:^|;)(?:max-)?(?:width|height):0(?:px)?(?:[;!]|$)")
_OVERFLOW_HIDDEN = re.compile(r"overflow:hidden")
_POSITIONED = re.compile(r"position:(?:absolute|fixed)")
_OFFSET = re.compile(r"(?:^|;)(?:left|top|right|bottom|margin-left|margin-top):-(\d+)(px|em|rem)")
_INDENT = re.compile(r"text-indent:-(\d+)(px|em|rem)")
_COLOR = re.compile(r"(?:^|;)color:([^;!]+)")
_BACKGROUND = re.compile(r"(?:^|;)background(?:-color)?:([^;!]+)")
_EM_PX = 16  # pixels in an em, for offsets written in ems
# controls whose panels a click shows: an accordion's answer, a tab's panel
_DISCLOSING = re.compile(r"accordion|collaps|tab-?pane|tabpanel|toggle|expand|faq|answer")
_STREAMED = re.compile(r"^[SP]:\d+$")  # React's streamed-in segments


@dataclass(frozen=True)
class Hidden:
    """What was dropped: elements that held text, and their characters."""

    elements: int = 0
    characters: int = 0

    def warning(self) -> str | None:
        if not self.elements:
            return None
        return (
            f"{HIDDEN_WARNING}: netsift dropped {self.elements} hidden element"
            f"{'s' if self.elements > 1 else ''} ({self.characters:,} characters) a browser "
            "would not show; keep_hidden keeps them"
        )


@lru_cache(maxsize=4096)
def hides(style: str) -> bool:
    """Whether a CSS declaration block keeps its element's text from being seen."""
    css = _SPACE.sub("", style.lower())
    if _HIDING.search(css):
        return True
    if _ZERO_BOX.search(css) and _OVERFLOW_HIDDEN.search(css):
        return True
    if _POSITIONED.search(css) and any(_px(m) >= OFF_SCREEN_PX for m in _OFFSET.finditer(css)):
        return True
    if any(_px(m) >= OFF_SCREEN_PX for m in _INDENT.finditer(css)):
        return True
    color, background = _COLOR.search(css), _BACKGROUND.search(css)
    return bool(color and background and color[1] == background[1])


def _px(match: re.Match[str]) -> float:
    return float(match[1]) * (1 if match[2] == "px" else _EM_PX)


def drop_hidden(tree: etree._Element) -> Hidden:
    """Remove what a browser would not show (see the module docstring); what went."""
    doomed = [n for n in _CANDIDATES(tree) if is_hidden(n)]
    if not doomed:
        return Hidden()
    body = tree.find("body")
    limit = MOST_OF_PAGE * (string_length(body) if body is not None else 0)
    named = _Named(tree)
    elements = characters = 0
    dropped: set[etree._Element] = set()
    for node in doomed:
        if node.tag in ("html", "body") or any(a in dropped for a in node.iterancestors()):
            continue
        if string_length(node) > limit or _disclosed(node, named):
            continue
        dropped.add(node)
        drop(node, keep_blank_tail=True)
        length = len(" ".join("".join(node.itertext()).split()))
        if length:  # an empty `noscript` around a lazy image hid no text
            elements += 1
            characters += length
    return Hidden(elements, characters)


def reveal_hidden(tree: etree._Element) -> None:
    """Show what the page hides, for a caller who keeps it (`keep_hidden`): its hiding
    attributes and style go, and `noscript` and `template` become plain blocks, so that no
    reader drops it by a rule of its own (trafilatura prunes `display:none` and
    `aria-hidden`; the block readers' chrome pruning drops `noscript`)."""
    for node in _CANDIDATES(tree):
        if not is_hidden(node):
            continue
        if node.tag in ("noscript", "template"):
            node.tag = "div"
        for name in ("hidden", "aria-hidden", "style"):
            node.attrib.pop(name, None)


def is_hidden(node: etree._Element) -> bool:
    """Whether `node` is hidden by its tag, attributes or inline style (see the module
    docstring): the one rule, which the cleaning and the block readers' pruning both apply."""
    if node.tag in ("noscript", "template"):
        return True
    hidden = node.get("hidden")
    if hidden is not None and hidden.lower() != "until-found":
        return True
    if (node.get("aria-hidden") or "").lower() == "true":
        return True
    style = node.get("style")
    return bool(style and hides(style))


class _Named:
    """The ids the page's controls name (`aria-controls`, `data-target`, in-page links), read
    on the first lookup: most hidden elements have no id, and the search walks the tree."""

    def __init__(self, tree: etree._Element) -> None:
        self._tree = tree
        self._ids: set[str] | None = None

    def __contains__(self, ident: str) -> bool:
        if self._ids is None:
            self._ids = {str(v).lstrip("#") for v in _NAMED(self._tree)}
        return ident in self._ids


def _disclosed(node: etree._Element, named: _Named) -> bool:
    """Whether a control on the page shows `node` when clicked, or its script moves it into
    place (React's streamed segments, `<div hidden id="S:0">`): content either way."""
    ident = node.get("id")
    if (ident and ident in named) or (node.get("role") or "").lower() == "tabpanel":
        return True
    if ident and _STREAMED.match(ident):
        return True
    for el in (node, *node.iterancestors()):
        if el.tag == "details":
            return True
        if el.tag == "body":
            break
    names = f"{node.get('class') or ''} {node.get('id') or ''}".lower()
    if _DISCLOSING.search(names):
        return True
    before = node.getprevious()
    return before is not None and (
        before.tag in ("button", "summary")
        or before.get("aria-expanded") is not None
        or next(before.iter("button"), None) is not None
    )
