"""Pages built of blocks — listings, collections, service and pricing pages: every item,
product or plan is content, so they read as their whole main region once the chrome is pruned."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from lxml import etree

from ..models import ContentFormat
from .boilerplate import prune_boilerplate
from .dom import own_copy, render_node, resolve_links, run_trafilatura
from .measure import node_text
from .pagetype import BLOCK_PAGE_TYPES, card_run, post_run
from .region import find_main_region, text_length
from .tags import HEADING_TAGS
from .tree import drop

__all__ = [
    "BLOCK_PAGES",
    "drop_comments",
    "drop_repeats",
    "open_accordions",
    "prune_controls",
    "read_blocks",
]

BLOCK_PAGES = frozenset(BLOCK_PAGE_TYPES)
_REGION_SHARE = 0.8  # trafilatura kept under this share of the main region: it lost the blocks
# trafilatura's pick holds under this share of the words of the region's run of cards: it read
# the text around the grid (a filter bar, a result count) and left the items out
_CARDS_KEPT = 0.5
# ...when the cards hold at least this share of the region's text: a story's region with a
# row of related teasers under it is read well by trafilatura's pick, which leaves them out
_CARDS_SHARE = 0.5
_WORD = re.compile(r"\w+")
_CONTROL_WORDS = re.compile(
    r"(?:^|[-_\s])(?:filters?|facets?|faceted|refinements?|sort|sorting|sortby|sort-by)"
    r"(?:$|[-_\s])",
    re.IGNORECASE,
)
_REPEATS = 3  # a short link label on this many blocks is each block's button, not content
_LABEL_WORDS = 3
_DIGIT = re.compile(r"\d")
_COMMENT = re.compile(r"comment", re.IGNORECASE)
# of the region's text: comments holding less than this are remarks on the page's items (a
# list of books with its readers' thread under it); holding more, they are what it lists
_COMMENTS_SHARE = 0.5


def _names(node: etree._Element) -> str:
    return f"{node.get('class') or ''} {node.get('id') or ''} {node.get('data-testid') or ''}"


def _words(node: etree._Element) -> str:
    return node_text(node)


@lru_cache(maxsize=4096)
def _says_control(names: str) -> bool:
    """Cached: cards repeat the same class strings."""
    return _CONTROL_WORDS.search(names) is not None


def prune_controls(region: etree._Element) -> None:
    """Drop what lets a reader sift the blocks rather than read them: filter, facet and sort
    panels (by their class, id or test-id words), and the short link label every card repeats
    ("Quick view", "Add to cart") — those lead to as many places as there are cards. A label
    that always leads to one place (a tag, a location) says what the cards are about, a run
    of them no other link names (colour swatches) are the card's options, and prices or
    counts hold digits: those stay."""
    total = text_length(region)
    doomed = [
        node
        for node in region.iter()
        if isinstance(node.tag, str)
        and node.attrib
        and _says_control(_names(node))
        and text_length(node) < 0.5 * total
    ]
    links = [(link, _words(link), link.get("href") or "") for link in region.iter("a")]
    named: dict[str, int] = {}  # each link target's longest link text
    for _, text, href in links:
        named[href] = max(named.get(href, 0), len(text))
    labels: dict[str, list[tuple[etree._Element, str]]] = {}
    for link, text, href in links:
        if not text or len(text.split()) > _LABEL_WORDS or _DIGIT.search(text):
            continue
        holder, parent = link, link.getparent()
        if parent is not None and parent is not region and _words(parent) == text:
            holder = parent  # the outermost element holding only the label goes
        if named[href] <= len(text) and _among_choices(holder):
            continue  # one of a card's options (colours, sizes), its only word for them
        labels.setdefault(text.lower(), []).append((holder, href))
    for found in labels.values():
        if len(found) >= _REPEATS and len({href for _, href in found}) >= 0.5 * len(found):
            doomed.extend(node for node, _ in found)
    for node in doomed:
        drop(node)


def _among_choices(holder: etree._Element) -> bool:
    """One of a run of short sibling links with different words, like a card's colour or
    size swatches."""
    parent = holder.getparent()
    if parent is None:
        return False
    texts = set()
    for node in parent:
        if node.tag != holder.tag or (node.tag != "a" and next(node.iter("a"), None) is None):
            continue
        text = _words(node)
        if text and len(text.split()) <= _LABEL_WORDS:
            texts.add(text.lower())
    return len(texts) >= _REPEATS


_REPEAT_CHARS = 10  # shorter repeats are labels (a size, a badge), too short to be a copy
_REPEAT_SPAN = 20  # the twins' nearest common ancestor holds at most this many times their text


def _block_texts(region: etree._Element) -> dict[etree._Element, str]:
    """Every element's words, built bottom-up in one pass (not `itertext` per element)."""
    texts: dict[etree._Element, str] = {}
    for node in reversed(list(region.iter())):  # children before parents
        if not isinstance(node.tag, str):
            continue
        parts = [node.text or ""]
        for child in node:
            parts.append(texts.get(child, ""))
            parts.append(child.tail or "")
        texts[node] = " ".join(" ".join(parts).split())
    return texts


def drop_repeats(region: etree._Element) -> None:
    """Responsive pages write a block twice (one copy per screen size, the other hidden by a
    stylesheet), and cards name their item twice (image link, title): the second copy is the
    same words again, so it goes. Only a text said exactly twice, with both copies close: a
    label that recurs card after card (a category, a flavour) is each card's own."""
    texts = _block_texts(region)
    counts: dict[str, int] = {}
    for node, text in texts.items():
        parent = node.getparent()
        if len(text) >= _REPEAT_CHARS and (parent is None or texts.get(parent) != text):
            counts[text] = counts.get(text, 0) + 1  # the outermost element holding the text
    seen: dict[str, etree._Element] = {}
    doomed: list[etree._Element] = []
    walk = etree.iterwalk(region, events=("start",))
    for _, node in walk:
        text = texts.get(node, "")
        if counts.get(text) != 2:
            continue
        first = seen.setdefault(text, node)
        if first is node:
            continue
        ancestors = list(node.iterancestors())
        if first in ancestors:  # a wrapper around the first copy and nothing else
            continue
        around = set(first.iterancestors())
        common = next((a for a in ancestors if a in around), None)
        if common is not None and len(texts.get(common, "")) <= _REPEAT_SPAN * len(text):
            doomed.append(node)
            walk.skip_subtree()
    for node in doomed:
        drop(node)


def _is_toggle(button: etree._Element) -> bool:
    if button.get("aria-expanded") is not None or button.get("aria-controls") is not None:
        return True
    return _words(button).endswith("?") or next(button.iter(*HEADING_TAGS), None) is not None


def _show(panel: etree._Element) -> None:
    for name in ("hidden", "aria-hidden", "style"):
        panel.attrib.pop(name, None)
    classes = (panel.get("class") or "").split()
    if "hidden" in classes:
        panel.set("class", " ".join(c for c in classes if c != "hidden"))


def open_accordions(root: etree._Element) -> None:
    """FAQ and plan-detail accordions: the question sits in a `<button>` (pruned as a form
    control) and the answer in a panel hidden until clicked. Both are content, so the button
    becomes a plain block and its panel is shown: the one an expandable toggle names in
    `aria-controls` (not a carousel's arrows, which name their slides), else the one beside
    it."""
    toggles = [b for b in root.iter("button") if _is_toggle(b)]
    named = {b.get("aria-controls") for b in toggles if b.get("aria-expanded")} - {None}
    by_id = {n.get("id"): n for n in root.xpath(".//*[@id]") if n.get("id") in named}
    for button in toggles:
        button.tag = "div"
        holder, parent = button, button.getparent()
        if button.getnext() is None and parent is not None and _words(parent) == _words(button):
            holder = parent  # <h3><button>Question?</button></h3><div hidden>answer</div>
        panel = by_id.get(button.get("aria-controls") or "")
        if panel is None:
            panel = holder.getnext()
        if panel is not None and isinstance(panel.tag, str):
            _show(panel)


def drop_comments(region: etree._Element) -> bool:
    """Drop the readers' comments under a block page's items, and say whether there were
    any: a thread of authored blocks that its own markup calls comments, holding under half
    the region's text. A feed's cards name their authors too, but are classed as stories,
    posts or entries, not comments."""
    posts = post_run(region)
    if not posts or not all(_COMMENT.search(p.get("class") or "") for p in posts):
        return False
    if sum(map(text_length, posts)) >= _COMMENTS_SHARE * text_length(region):
        return False
    for post in posts:
        drop(post)
    return True


def _region(
    tree: etree._Element, url: str | None, fmt: ContentFormat
) -> tuple[str, float, str, bool]:
    """The pruned main region, how much of the region before the controls went it keeps
    (the choice against trafilatura weighs the region as found: its controls hold text), the
    words of its run of repeated cards, and whether readers' comments were dropped from it."""
    work = own_copy(tree, None)
    open_accordions(work)
    prune_boilerplate(work)
    region = find_main_region(work)
    # only the region's links: nothing else is rendered, and the pruned menus held most of
    # them; resolved before the controls go, which compare link targets
    resolve_links(region, url)
    before = text_length(region)
    prune_controls(region)
    drop_repeats(region)
    kept = text_length(region) / before if before else 1.0
    commented = drop_comments(region)  # not chrome: the region's size without them is its own
    run = card_run(region)
    after = text_length(region)
    cards = " ".join(" ".join(card.itertext()) for card in run)
    if sum(map(text_length, run)) < _CARDS_SHARE * after:
        cards = ""  # not a page of cards: the choice is by length alone
    return render_node(region, fmt), kept, cards, commented


def _keeps_cards(picked: str, cards: str) -> bool:
    """Whether trafilatura's pick holds most of the cards' words (each counted once)."""
    wanted = set(_WORD.findall(cards.lower()))
    if not wanted:
        return True
    return len(wanted & set(_WORD.findall(picked.lower()))) >= _CARDS_KEPT * len(wanted)


def read_blocks(
    tree: etree._Element, url: str | None, fmt: ContentFormat, options: dict[str, Any]
) -> str | None:
    """The whole main region, unless trafilatura's densest-text pick holds about as much and
    keeps the region's cards: then the region's extra is the page's chrome, not more blocks.
    A pick as long as the region that left out the run of repeated cards (a listing's items)
    read the page's other text instead: the cards are the content."""
    region, kept, cards, commented = _region(tree, url, fmt)
    if commented:  # the page's comments are not its content, in either reading
        options = {**options, "include_comments": False}
    picked = run_trafilatura(tree, url, fmt, options)
    found = len(region) / kept if kept else 0.0
    # a pick longer than the whole region read text the region lacks, cards or not
    lost = len(picked) < _REGION_SHARE * found or (
        len(picked) <= found and not _keeps_cards(picked, cards)
    )
    return (region if lost else picked) or None
