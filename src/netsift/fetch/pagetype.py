"""Page-type classification from structure: what kind of page this is, and why.

Extraction depends on the kind of page: a forum thread's posts are its content, a product page
keeps its facts, a listing its items. The type is decided by weighing explainable signals —
schema.org types (JSON-LD, microdata), OpenGraph, URL path patterns and DOM shape (repeated
post or card blocks, code blocks, prices, cart buttons) — never by domain. Every signal that
counted is returned, so a wrong call can be traced.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import chain
from typing import Any, Final, Literal
from urllib.parse import urldefrag, urljoin, urlsplit

from lxml import etree

from .boilerplate import is_large_share, looks_like_boilerplate
from .dom import string_length

__all__ = [
    "HTML_PAGE_TYPES",
    "Classification",
    "HtmlPageType",
    "card_run",
    "classify_page",
    "count_priced_blocks",
    "json_ld_objects",
    "post_run",
    "publication_marks",
    "schema_types",
]

HtmlPageType = Literal[
    "article", "documentation", "forum", "product", "service", "listing", "collection"
]
HTML_PAGE_TYPES: Final[tuple[HtmlPageType, ...]] = (
    "article", "documentation", "forum", "product", "service", "listing", "collection"
)  # fmt: skip


@dataclass(frozen=True)
class Classification:
    """The decided type, how sure (0..1, the winner's share of all evidence) and the evidence."""

    type: HtmlPageType
    confidence: float
    signals: tuple[str, ...]


_SCHEMA: dict[str, tuple[HtmlPageType, float]] = {
    "product": ("product", 4.0),
    "productgroup": ("product", 4.0),
    "individualproduct": ("product", 4.0),
    "car": ("product", 2.0),
    "book": ("product", 1.0),
    "newsarticle": ("article", 2.5),
    "article": ("article", 1.5),
    "blogposting": ("article", 2.5),
    "reportagenewsarticle": ("article", 2.5),
    "analysisnewsarticle": ("article", 2.5),
    "opinionnewsarticle": ("article", 2.5),
    "scholarlyarticle": ("article", 2.0),
    "recipe": ("article", 2.0),
    "review": ("article", 1.0),
    "techarticle": ("documentation", 2.5),
    "apireference": ("documentation", 3.0),
    "softwaresourcecode": ("documentation", 1.0),
    "discussionforumposting": ("forum", 4.0),
    "qapage": ("forum", 4.0),
    "question": ("forum", 2.0),
    "socialmediaposting": ("forum", 1.5),
    "collectionpage": ("collection", 1.5),
    "itemlist": ("listing", 1.0),
    "offercatalog": ("collection", 2.0),
    "searchresultspage": ("listing", 2.0),
    "service": ("service", 2.5),
    "professionalservice": ("service", 2.0),
    "softwareapplication": ("service", 1.5),
    "webapplication": ("service", 1.5),
    "faqpage": ("service", 1.0),
    "localbusiness": ("service", 1.0),
}
_OG: dict[str, tuple[HtmlPageType, float]] = {
    "product": ("product", 3.0),
    "og:product": ("product", 3.0),
    "product.item": ("product", 3.0),
    "product.group": ("collection", 1.5),
    "article": ("article", 1.0),
}
_URL_PATTERNS: tuple[tuple[str, HtmlPageType, float], ...] = (
        (r"/(t|threads?|topics?|forums?|discussions?|community|viewtopic|showthread)(/|\.|$)",
         "forum", 2.0),
        (r"/questions/\d+|/comments/[a-z0-9]+/|/r/\w+/comments/", "forum", 3.0),
        (r"/(docs?|documentation|manual|reference|api|sdk|guides?|tutorials?|handbook|learn|"
         r"wiki|man)(/|$)", "documentation", 2.0),
        (r"/(en|latest|stable|v\d+(\.\d+)*)/.*\.html?$", "documentation", 1.0),
        (r"/(products?|p|dp|item|items|sku|buy)/[^/]+", "product", 2.0),
        (r"-p-\d+|/\d{6,}\.html$", "product", 1.0),
        (r"/(collections?|c|catalog|catalogue|department|shop|store)(/|$)", "collection", 2.0),
        (r"/(category|categories)(/|$)", "collection", 1.0),
        (r"/(category|categories)(/|$)", "listing", 1.0),
        (r"/(tags?|topics?|authors?|archives?|search|page/\d+)(/|$)", "listing", 1.5),
        (r"/(blog|news|articles|posts|stories|insights|resources|press|events|jobs|careers)/?$",
         "listing", 2.0),
        (r"/(pricing|plans|services?|solutions?|features|enterprise|platform|integrations|"
         r"consulting|agency|contact|about)(/|$|-)", "service", 2.0),
        (r"/(19|20)\d\d/\d\d?/|/(article|story|post|news|blog)s?/[^/]+", "article", 1.5),
)  # fmt: skip
_URL_RULES = tuple((re.compile(p, re.IGNORECASE), k, w) for p, k, w in _URL_PATTERNS)
# class and id names are lower-cased before these (faster than a case-insensitive search)
_POST_CLASS = re.compile(
    r"(?:^|[-_\s])(?:post|message|reply|comment|answer|topic-post|postbit|forum-post|"
    r"thread-item|cooked|usertext)(?:$|[-_\s\d])"
)
_AUTHOR_CLASS = re.compile(r"author|username|user-name|poster|member|byline|user-info")
# searched only (never spans taken): a symbol before a digit, or a number after which a currency
# follows. The number is tried once per run of digits and separators, from the run's start and
# taken whole (possessive): trying it at every digit of a long run, each backtracking through the
# rest, was quadratic (a 120 KB page of digit runs took 24 s)
_PRICE = re.compile(
    r"(?:[$€£¥₹]\s?\d|(?<![\d,.])[,.]*+\d[\d,.]*+\s?(?:€|\$|USD|EUR|GBP|kr|zł))", re.IGNORECASE
)
# matched against lower-cased text: a case-insensitive alternation is several times slower
_CART = re.compile(
    r"add to (?:cart|bag|basket|trolley)|buy (?:it )?now|in den warenkorb|ajouter au panier|"
    r"add to wishlist|in stock|out of stock|select (?:a )?size"
)
_PLAN = re.compile(
    r"per (?:month|year|user|seat)|/\s?(?:mo|month|yr|year)\b|billed (?:annually|monthly)|"
    r"free trial|get started|book a demo|request a demo|contact sales|our services"
)


def json_ld_objects(tree: etree._Element) -> list[dict[str, Any]]:
    """Every JSON-LD object on the page, @graph members flattened; unparsable blocks skipped."""
    found: list[dict[str, Any]] = []
    for script in tree.iter("script"):
        if (script.get("type") or "").lower() != "application/ld+json" or not script.text:
            continue
        try:
            data = json.loads(script.text)
        except (ValueError, RecursionError):  # unparsable or nested past the stack: skipped
            continue
        stack = data if isinstance(data, list) else [data]
        while stack:
            item = stack.pop(0)
            if isinstance(item, list):
                stack.extend(item)
            elif isinstance(item, dict):
                found.append(item)
                graph = item.get("@graph")
                if isinstance(graph, list):
                    stack.extend(graph)
    return found


def schema_types(tree: etree._Element) -> list[str]:
    """Top-level schema.org types from JSON-LD and microdata, lower-cased."""
    types: list[str] = []
    for obj in json_ld_objects(tree):
        raw = obj.get("@type")
        for name in raw if isinstance(raw, list) else [raw]:
            if isinstance(name, str):
                types.append(name.rsplit("/", 1)[-1].lower())
    for node in tree.xpath("//*[@itemtype][not(ancestor::*[@itemtype])]"):
        for value in (node.get("itemtype") or "").split():
            types.append(value.rstrip("/").rsplit("/", 1)[-1].lower())
    return types


class _Evidence:
    def __init__(self) -> None:
        self.scores: dict[str, float] = {}
        self.signals: list[str] = []

    def add(self, kind: HtmlPageType, weight: float, signal: str) -> None:
        self.scores[kind] = self.scores.get(kind, 0.0) + weight
        self.signals.append(f"{signal} → {kind} +{weight:g}")


def classify_page(tree: etree._Element, url: str | None = None) -> Classification:
    """Decide the page type of a parsed HTML document; pure and fast (one walk over the body)."""
    ev = _Evidence()
    seen: set[str] = set()
    for name in schema_types(tree):
        if name in _SCHEMA and name not in seen:
            seen.add(name)
            kind, weight = _SCHEMA[name]
            ev.add(kind, weight, f"schema:{name}")
    for og in tree.xpath("//meta[@property='og:type']/@content")[:1]:
        value = str(og).strip().lower()
        if value in _OG:
            kind, weight = _OG[value]
            ev.add(kind, weight, f"og:type={value}")
    if url:
        path = urlsplit(url).path or "/"
        for pattern, kind, weight in _URL_RULES:
            if pattern.search(path):
                ev.add(kind, weight, f"url:{pattern.pattern[:24]}")
        if path in ("", "/"):
            # a front page shows the whole site: one cart button on it is a featured product's
            ev.add("service", 1.6, "url:home")
    # two declarations that it is a story and none for another type: the body's shape has not
    # overturned that on any page measured, so the walk over it (most of the cost) is skipped
    declared = sum(1 for s in ev.signals if "→ article " in s)
    if not (declared >= 2 and set(ev.scores) == {"article"}):
        _dom_signals(tree, ev, url)
    if not ev.scores:
        body = next(tree.iterdescendants("body"), tree)
        text = _text_length(body)
        if text < _UNSIGNED_TEXT or _text_length(body, "article") >= 0.5 * text:
            return Classification("article", 0.0, ("default",))
        # text that nothing calls a story (nor anything else), not even HTML5 article elements
        # holding most of it, is unsigned prose at its least: a landing, schedule or catalogue
        # page that names no type reads as its blocks
        ev.signals.append("unsigned: text but no evidence of any type → service")
        return Classification("service", 0.0, tuple(ev.signals))
    kind_name, best = max(ev.scores.items(), key=lambda item: item[1])
    total = sum(ev.scores.values())
    if kind_name == "article" and not (_signed(ev.signals) and _told(ev.signals)):
        # prose that no publisher markup, dated address or byline calls a story is an about,
        # landing or category page; a front page, or one that only OpenGraph calls a story
        # with no byline and no run of long paragraphs (a category or tag page in a blog's
        # template), has no one story: either way its blocks are the content (ties go to
        # service, the first)
        why = (
            "thin: a front page, or only og:type with no byline or long paragraphs"
            if _signed(ev.signals)
            else "unsigned: no article markup, dated URL or byline"
        )
        kind_name = max(_BLOCK_KINDS, key=lambda k: ev.scores.get(k, 0.0))
        best = ev.scores.get(kind_name, 0.0)
        ev.signals.append(f"{why} → {kind_name}")
    kind = next(k for k in HTML_PAGE_TYPES if k == kind_name)
    return Classification(kind, round(best / total, 2), tuple(ev.signals))


_BLOCK_KINDS: Final[tuple[HtmlPageType, ...]] = ("service", "listing", "collection")
_UNSIGNED_TEXT = 500  # characters: below this a page with no evidence has nothing to read


def _text_length(body: etree._Element, tag: str | None = None) -> float:
    """Characters of text in the body, or in its outermost elements of one tag; scripts and
    styles left out (a bare app shell holds all its text in scripts)."""
    roots = [body] if tag is None else _outermost(body, tag)
    return sum(
        string_length(root) - sum(string_length(n) for n in root.iter("script", "style"))
        for root in roots
    )


def _outermost(body: etree._Element, tag: str) -> list[etree._Element]:
    found = list(body.iter(tag))
    inside = set(found)
    return [n for n in found if not any(a in inside for a in n.iterancestors(tag))]


def _signed(signals: list[str]) -> bool:
    """Whether anything names the page a story: schema.org, OpenGraph, a dated URL or a byline."""
    return any(
        "→ article " in s and s.startswith(("schema:", "og:type=", "url:", "dom:byline"))
        for s in signals
    )


def _told(signals: list[str]) -> bool:
    """Whether a story is there to read: not a site's front page (that shows many), and a body
    of long paragraphs, a byline, or schema.org or the URL calling it one (OpenGraph's article
    type alone is stamped on every page of many templates, category and tag pages included)."""
    if any(s.startswith("url:home") for s in signals):
        return False
    return any(
        s.startswith(("dom:long-paragraphs=", "dom:byline"))
        or (s.startswith(("schema:", "url:")) and "→ article " in s)
        for s in signals
    )


def publication_marks(classification: Classification) -> int:
    """How many independent declarations (schema.org, OpenGraph, a dated URL) call it an article.

    The page's shape can look like an article's on a service or listing page; a publisher's own
    markup saying so, twice over, is what makes a news or blog story.
    """
    return sum(
        1
        for s in classification.signals
        if s.startswith(("schema:", "og:type=", "url:")) and "→ article " in s
    )


_CONTROL_TEXT = etree.XPath(".//button//text() | .//a//text()", smart_strings=False)
_INPUT_VALUES = etree.XPath(".//input/@value", smart_strings=False)


def _dom_signals(tree: etree._Element, ev: _Evidence, url: str | None = None) -> None:
    body = next(tree.iterdescendants("body"), tree)  # find(".//body") walks in Python
    shape = _scan(body)
    if shape.posts >= 3:
        weight = min(4.0, 1.0 + shape.posts / 4)
        titled = _titled_items(shape.post_nodes, url)
        if titled >= _FEED_SHARE * shape.posts:
            # authored blocks that each head a different story are a feed's cards, not posts:
            # what would have counted for a thread counts, as much, for a listing
            ev.add("listing", weight, f"dom:feed-items={titled}/{shape.posts}")
        else:
            ev.add("forum", weight, f"dom:posts={shape.posts}")
    items, item_type = _item_run(shape.listed)
    if items >= _CARD_RUN:
        # as strong as a run of as many posts: the publisher declared each item one by one
        ev.add("listing", min(4.0, 1.0 + items / 4), f"schema:items={items} {item_type}")
    if shape.code_blocks >= 2:
        weight = min(3.0, 0.5 * shape.code_blocks)
        ev.add("documentation", weight, f"dom:code-blocks={shape.code_blocks}")
    controls = _CONTROL_TEXT(body)
    text = " ".join(controls + _INPUT_VALUES(body))[:20000]
    carts = len(_CART.findall(text.lower()))
    if carts:
        ev.add("product", min(2.5, 1.0 + 0.5 * carts), f"dom:cart-buttons={carts}")
    if shape.price_markup:
        ev.add("product", 1.5, "microdata:price")
    cards, priced = _repeated_cards(body)
    if cards >= _CARD_RUN:
        if priced >= 3:
            ev.add("collection", min(3.5, 1.0 + cards / 8), f"dom:priced-cards={cards}")
        else:
            ev.add("listing", min(3.0, 1.0 + cards / 8), f"dom:cards={cards}")
    plans = len(_PLAN.findall(" ".join(shape.headings).lower()))
    plans += len(_PLAN.findall(" ".join(controls)[:20000].lower()))
    if plans >= 2:
        ev.add("service", min(2.5, 0.5 * plans), f"dom:plan-words={plans}")
    if shape.long_paragraphs >= 5:
        weight = min(3.0, 0.25 * shape.long_paragraphs)
        ev.add("article", weight, f"dom:long-paragraphs={shape.long_paragraphs}")
    if shape.byline:
        ev.add("article", 0.5, "dom:byline")


@dataclass
class _Shape:
    """What one walk over the body sees: the DOM signals that need no second look."""

    posts: int = 0
    post_nodes: list[etree._Element] = field(default_factory=list)
    listed: list[etree._Element] = field(default_factory=list)  # items of a _LISTED_TYPES
    code_blocks: int = 0
    long_paragraphs: int = 0
    price_markup: bool = False
    byline: bool = False
    headings: list[str] = field(default_factory=list)


@lru_cache(maxsize=8192)
def _class_marks(cls: str) -> tuple[bool, bool]:
    """Whether a class attribute names an author, and whether it names a post (pages repeat
    the same few class strings thousands of times)."""
    name = cls.lower()
    return bool(_AUTHOR_CLASS.search(name)), bool(_POST_CLASS.search(name))


def _scan(body: etree._Element) -> _Shape:
    """Every element once (an XPath per signal cost several times the walk on large pages)."""
    shape = _Shape()
    candidates: dict[etree._Element, str] = {}
    authors: list[etree._Element] = []
    for node in body.iter(etree.Element):
        tag = node.tag
        if tag == "p":
            # 25 words need at least 49 characters: shorter paragraphs skip the split
            text = " ".join(node.itertext())
            if len(text) >= 49 and len(text.split()) >= 25:
                shape.long_paragraphs += 1
        elif tag == "pre":
            shape.code_blocks += 1
        elif tag in ("h1", "h2", "h3"):
            shape.headings.append(" ".join(node.itertext()))
        elif tag == "time" and node.get("datetime") is not None:
            shape.byline = True
        itemtype = node.get("itemtype")
        if itemtype and _listed_type(itemtype):
            shape.listed.append(node)
        # node.get reads the attribute directly; node.attrib builds a proxy per element
        itemprop = node.get("itemprop")
        if itemprop:
            if itemprop in ("price", "offers", "sku"):
                shape.price_markup = True
            elif itemprop == "author":
                shape.byline = True
            if _AUTHOR_CLASS.search(itemprop.lower()):
                authors.append(node)
        cls = node.get("class")
        if cls:
            author, post = _class_marks(cls)
            if author and not (itemprop and authors and authors[-1] is node):
                authors.append(node)
        else:
            cls, post = "", False
        if node.get("rel") == "author":
            shape.byline = True
        if not len(node):
            continue
        node_id = node.get("id")
        if post or (node_id and _POST_CLASS.search(node_id.lower())):
            candidates[node] = f"{tag}.{cls.split()[0] if cls.split() else ''}"
    # a post names its author somewhere inside: credit each author's enclosing candidates
    authored: set[etree._Element] = set()
    walked: set[etree._Element] = set()  # an element walked once has had its ancestors walked
    for node in authors:
        for el in (node, *node.iterancestors()):
            if el in walked:
                break
            walked.add(el)
            if el in candidates:
                authored.add(el)
    # in document order, so that of groups as large the outer one (the whole post) is kept
    groups = Counter(key for n, key in candidates.items() if n in authored)
    if groups:
        key, shape.posts = groups.most_common(1)[0]
        shape.post_nodes = [n for n in candidates if n in authored and candidates[n] == key]
    return shape


def post_run(root: etree._Element) -> list[etree._Element]:
    """The largest group of same-shaped post blocks that name an author, in page order."""
    return _scan(root).post_nodes


_FEED_SHARE = 0.8  # of the posts: this many heading a story of their own make a feed (a
# thread's posts head none, or all the same "Re: subject"; a few linked headings are quotes)
_TITLE_WORDS = 3  # words in a title link: fewer are an author's name or a "#12" permalink
_HEADING_TAGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_REPLY = re.compile(r"^(?:re\s*:\s*)+", re.IGNORECASE)


def _titled_items(posts: list[etree._Element], url: str | None) -> int:
    """How many of the posts head a different page of their own: a heading holding a link of a
    few words to somewhere other than this page, each title another's (a feed of stories by
    their authors). A thread's posts are on the page itself: no title, a subject that repeats
    the thread's ("Re: …"), a permalink to an anchor here, or a heading naming the author."""
    page = urldefrag(url or "")[0]
    titles: set[str] = set()
    for post in posts:
        title = _title_link(post, page)
        if title:
            titles.add(title)
    return len(titles)


def _title_link(post: etree._Element, page: str) -> str | None:
    """The text of the post's first heading link of a few words to another page; none when
    it is a reply's subject ("Re: …" names the thread) or the heading names the author."""
    for heading in post.iter(_HEADING_TAGS):
        if _inside_author(heading, post) or any(_names_author(el) for el in heading.iter()):
            continue
        for link in heading.iter("a"):
            href = (link.get("href") or "").strip()
            if not href or href.startswith(("#", "javascript:")):
                continue
            if urldefrag(urljoin(page, href))[0] == page:
                continue
            text = " ".join(" ".join(link.itertext()).split())
            if _REPLY.match(text):
                return None  # a reply's subject names the thread: a post, not a story
            if len(text.split()) >= _TITLE_WORDS:
                return text
    return None


def _inside_author(node: etree._Element, post: etree._Element) -> bool:
    """Whether the node is the post's author block or in one (its name is often a heading)."""
    for el in chain((node,), node.iterancestors()):
        if el is post:
            return False
        if _names_author(el):
            return True
    return False


def _names_author(el: etree._Element) -> bool:
    return isinstance(el.tag, str) and _class_marks(el.get("class") or "")[0]


# schema.org types a page lists: a run of them declared one by one is the page's list
_LISTED_TYPES = frozenset(
    "product book event recipe article blogposting newsarticle creativework movie course "
    "jobposting videoobject musicrecording musicalbum softwareapplication".split()
)


def _listed_type(itemtype: str) -> str | None:
    """The schema.org type an `itemtype` names (its first), if it is one pages list."""
    for value in itemtype.split()[:1]:
        name = value.rstrip("/").rsplit("/", 1)[-1].lower()
        if name in _LISTED_TYPES:
            return name
    return None


def _item_run(listed: list[etree._Element]) -> tuple[int, str]:
    """The largest run of sibling schema.org items of one listed type (not comments, posts,
    questions or navigation), and the type: a list of books whose page also holds comments
    is a listing, however many comments follow. Items inside another item are its parts."""
    runs: Counter[tuple[etree._Element | None, str]] = Counter()
    for node in listed:
        name = _listed_type(node.get("itemtype") or "")
        if (
            name
            and node.get("itemscope") is not None
            and not any(a.get("itemscope") is not None for a in node.iterancestors())
        ):
            runs[(node.getparent(), name)] += 1
    if not runs:
        return 0, ""
    (_, name), count = runs.most_common(1)[0]
    return count, name


_CARD_RUN = 6  # same-shaped linked siblings: fewer are a menu's or a footer's columns
_CARD_WORDS = (4, 80)  # mean words a card: fewer are bare menu links, more are posts


def card_run(body: etree._Element) -> list[etree._Element]:
    """The largest run of same-shaped siblings that each hold a link and a few words: a
    listing's items, a collection's products. Runs inside chrome do not count, unless the
    chrome-named wrapper holds most of the page (a grid in a `related-products` section that
    is the whole page)."""
    best: list[etree._Element] = []
    chrome: dict[etree._Element, bool] = {}  # candidates share ancestors: judge each once
    body_length = -1
    for parent in body.iter("ul", "ol", "div", "section", "main"):
        if len(parent) < _CARD_RUN:
            continue
        children = list(parent.iterchildren(etree.Element))
        if len(children) < _CARD_RUN:
            continue
        keys = [f"{c.tag}.{(c.get('class') or '').split()[:1]}" for c in children]
        shape, count = Counter(keys).most_common(1)[0]
        if count < _CARD_RUN or count <= len(best):
            continue
        if body_length < 0:
            body_length = int(string_length(body))
        if _in_chrome(parent, chrome, body_length):
            continue
        same = [c for c, key in zip(children, keys, strict=True) if key == shape]
        linked = [c for c in same if c.tag == "a" or next(c.iterdescendants("a"), None) is not None]
        if len(linked) < 0.8 * len(same):
            continue
        mean_words = sum(len(" ".join(c.itertext()).split()) for c in linked) / len(linked)
        if not _CARD_WORDS[0] <= mean_words <= _CARD_WORDS[1]:
            continue
        best = linked
    return best


def _repeated_cards(body: etree._Element) -> tuple[int, int]:
    """The largest run of cards, and how many of them show a price."""
    cards = card_run(body)
    return len(cards), sum(1 for c in cards if _PRICE.search(" ".join(c.itertext())))


def _in_chrome(node: etree._Element, seen: dict[etree._Element, bool], body_length: int) -> bool:
    """Whether the node or an ancestor is navigation or boilerplate; answers memoised in seen."""
    path: list[etree._Element] = []
    verdict = False
    for el in chain((node,), node.iterancestors()):
        if el in seen:
            verdict = seen[el]
            break
        path.append(el)
        if el.tag in ("nav", "header", "footer", "aside") or (
            looks_like_boilerplate(el) and not is_large_share(el, body_length)
        ):
            verdict = True
            break
    for el in path:
        seen[el] = verdict
    return verdict


def count_priced_blocks(root: etree._Element) -> int:
    """The largest run of two or more short same-shaped siblings that each show a price."""
    best = 0
    for parent in root.iter("div", "section", "ul", "ol", "main", "tr", "tbody"):
        if len(parent) < 2:
            continue
        shapes = Counter(
            f"{c.tag}.{(c.get('class') or '').split()[:1]}"
            for c in parent
            if isinstance(c.tag, str) and _PRICE.search(" ".join(c.itertext()))
        )
        for _, count in shapes.most_common(1):
            best = max(best, count)
    return best
