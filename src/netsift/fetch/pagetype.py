"""Page-type classification from structure: what kind of page this is, and why.

Extraction depends on the kind of page: a forum thread's posts are its content, a product page
keeps its facts, a listing its items. The type is decided by weighing explainable signals —
schema.org types (JSON-LD, microdata), OpenGraph, URL path patterns and DOM shape (repeated
post or card blocks, code blocks, prices, cart buttons) — never by domain. Every signal that
counted is kept as `Evidence` (what was seen, where, its weight for which type), so a wrong call
can be traced: `netsift meta URL --explain` shows it.

How it decides: each rule below adds its weight to one type; the highest total wins, unless a
decision rule (`Decision`) overrules it — prose nobody calls a story reads as blocks. Every
weight and threshold is a named constant or a table row with the reason it has that value;
changing one is measured on `bench/extraction.py --dataset both` (WCXB page types and F1).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import chain
from typing import Final, Literal
from urllib.parse import urldefrag, urljoin, urlsplit

from lxml import etree

from ..models import (
    HtmlPageType,
    PageTypeExplanation,
    PageTypeSignal,
    SignalSource,
)
from .boilerplate import is_large_share, looks_like_boilerplate
from .jsonld import json_ld_objects, type_names
from .measure import string_length, word_count, words_in
from .prices import PRICE
from .tags import HEADING_TAGS

__all__ = [
    "BLOCK_PAGE_TYPES",
    "DECISIONS",
    "Classification",
    "CountRule",
    "Decision",
    "Declared",
    "Evidence",
    "UrlRule",
    "card_run",
    "classify_page",
    "count_priced_blocks",
    "post_run",
    "publication_marks",
    "schema_types",
]

# --- what the classifier returns ---------------------------------------------------------


@dataclass(frozen=True)
class Evidence:
    """One signal that counted: which rule saw it (`signal`), what it saw (`seen`: a schema.org
    type, a URL path, a count), where, and the weight it added to which type."""

    signal: str  # the rule's name: "schema", "og:type", "url:story-path", "dom:posts", …
    seen: str
    type: HtmlPageType
    weight: float
    where: SignalSource

    def __str__(self) -> str:
        seen = f"={self.seen}" if self.seen else ""
        return f"{self.signal}{seen} ({self.where}) → {self.type} +{self.weight:g}"

    @property
    def declares_story(self) -> bool:
        """Whether the publisher's own markup or address calls the page a story: schema.org,
        OpenGraph or the URL (not the page's shape)."""
        return self.type == "article" and self.where != "body"


# How the type was decided: the highest total, or the rule that overruled it.
Decision = Literal[
    "highest", "requested", "default", "unsigned-text", "unsigned-story", "thin-story"
]
DECISIONS: Final[dict[Decision, str]] = {
    "highest": "the highest total weight",
    "requested": "asked for (page_type), not classified",
    "default": "no signal of any type, and little text or most of it in <article> elements",
    "unsigned-text": "text but no signal of any type: read as blocks (service)",
    "unsigned-story": "looks like a story, but no article markup, dated URL or byline calls it "
    "one: read as the best of service, listing, collection",
    "thin-story": "a front page, or only og:type calls it a story with no byline or long "
    "paragraphs: read as the best of service, listing, collection",
}


@dataclass(frozen=True)
class Classification:
    """The decided type, how sure (0..1, the winner's share of all the weight), the evidence in
    the order it was found, and the decision that picked the type."""

    type: HtmlPageType
    confidence: float
    evidence: tuple[Evidence, ...] = ()
    decision: Decision = "highest"

    @classmethod
    def requested(cls, kind: HtmlPageType) -> Classification:
        """A type asked for instead of classified."""
        return cls(kind, 1.0, (), "requested")

    @property
    def scores(self) -> dict[HtmlPageType, float]:
        """Total weight per type, in the order each type was first seen (ties go to the first)."""
        return _totals(self.evidence)

    @property
    def runner_up(self) -> tuple[HtmlPageType, float] | None:
        """The best-scoring type that was not chosen, and its total."""
        others = [(k, v) for k, v in self.scores.items() if k != self.type]
        return max(others, key=lambda item: item[1]) if others else None

    def explain(self) -> PageTypeExplanation:
        """The decision as users see it (`netsift meta --explain`)."""
        runner = self.runner_up
        return PageTypeExplanation(
            type=self.type,
            confidence=self.confidence,
            rule=f"{self.decision}: {DECISIONS[self.decision]}",
            signals=[
                PageTypeSignal(
                    signal=f"{e.signal}={e.seen}" if e.seen else e.signal,
                    where=e.where,
                    type=e.type,
                    weight=e.weight,
                )
                for e in self.evidence
            ],
            scores={k: round(v, 3) for k, v in self.scores.items()},
            runner_up=runner[0] if runner else None,
            runner_up_score=round(runner[1], 3) if runner else None,
        )


# --- declarations: schema.org, OpenGraph, the URL ----------------------------------------


@dataclass(frozen=True)
class Declared:
    """A type the page's markup declares (schema.org `@type`, OpenGraph `og:type`), and what it
    weighs for which page type. A declaration weighs more the fewer kinds of page carry it."""

    type: HtmlPageType
    weight: float
    why: str


_SCHEMA: Final[dict[str, Declared]] = {
    "product": Declared("product", 4.0, "a shop's own declaration of the product the page sells"),
    "productgroup": Declared("product", 4.0, "one product in its variants (sizes, colours)"),
    "individualproduct": Declared("product", 4.0, "one item for sale (second-hand, unique)"),
    "car": Declared("product", 2.0, "a vehicle for sale; also on reviews and spec pages"),
    "book": Declared("product", 1.0, "a book is sold, reviewed and listed alike"),
    "newsarticle": Declared("article", 2.5, "a news story; also on live pages and roundups"),
    "article": Declared("article", 1.5, "the generic story type templates stamp on any page"),
    "blogposting": Declared("article", 2.5, "a blog post; also on a blog's index templates"),
    "reportagenewsarticle": Declared("article", 2.5, "as NewsArticle"),
    "analysisnewsarticle": Declared("article", 2.5, "as NewsArticle"),
    "opinionnewsarticle": Declared("article", 2.5, "as NewsArticle"),
    "scholarlyarticle": Declared("article", 2.0, "a paper; its landing page is often a stub"),
    "recipe": Declared("article", 2.0, "a recipe is read as prose, steps and lists"),
    "review": Declared("article", 1.0, "also marks reviews inside product and shop pages"),
    "techarticle": Declared("documentation", 2.5, "schema.org's documentation article"),
    "apireference": Declared("documentation", 3.0, "an API reference is nothing but docs"),
    "softwaresourcecode": Declared("documentation", 1.0, "code also sits in posts and blogs"),
    "discussionforumposting": Declared("forum", 4.0, "the thread declares itself"),
    "qapage": Declared("forum", 4.0, "a question and its answers declare themselves"),
    "question": Declared("forum", 2.0, "also marks single questions in FAQ blocks"),
    "socialmediaposting": Declared("forum", 1.5, "a post, alone or in a thread"),
    "collectionpage": Declared("collection", 1.5, "also used by blogs for category pages"),
    "itemlist": Declared("listing", 1.0, "also marks carousels and breadcrumb-like lists"),
    "offercatalog": Declared("collection", 2.0, "a shop's catalogue of offers"),
    "searchresultspage": Declared("listing", 2.0, "a page of results is a list"),
    "service": Declared("service", 2.5, "a business describing what it offers"),
    "professionalservice": Declared("service", 2.0, "a firm's page, often its front page"),
    "softwareapplication": Declared("service", 1.5, "an app's page; also in reviews and stores"),
    "webapplication": Declared("service", 1.5, "as SoftwareApplication"),
    "faqpage": Declared("service", 1.0, "FAQ blocks sit on service pages, and on others"),
    "localbusiness": Declared("service", 1.0, "sites stamp it on every page, stories included"),
}
_OG: Final[dict[str, Declared]] = {
    "product": Declared("product", 3.0, "a shop's card for one product"),
    "og:product": Declared("product", 3.0, "as product (a prefix some shops write)"),
    "product.item": Declared("product", 3.0, "as product (Facebook's catalogue type)"),
    "product.group": Declared("collection", 1.5, "a group of products: a category page"),
    "article": Declared("article", 1.0, "many templates stamp it on every page, hubs included"),
}


@dataclass(frozen=True)
class UrlRule:
    """A URL path pattern, the type it points to and its weight: the address a site gives a
    page says what kind it is, more weakly than markup (sites share path words)."""

    name: str
    pattern: str
    type: HtmlPageType
    weight: float
    why: str


_URL_RULES_TABLE: Final[tuple[UrlRule, ...]] = (
    UrlRule("url:thread-path",
            r"/(t|threads?|topics?|forums?|discussions?|community|viewtopic|showthread)(/|\.|$)",
            "forum", 2.0, "forum software's thread paths (Discourse /t/, phpBB viewtopic)"),
    UrlRule("url:question-path", r"/questions/\d+|/comments/[a-z0-9]+/|/r/\w+/comments/",
            "forum", 3.0, "a numbered question or comment thread: no other kind of page"),
    UrlRule("url:docs-path",
            r"/(docs?|documentation|manual|reference|api|sdk|guides?|tutorials?|handbook|learn|"
            r"wiki|man)(/|$)",
            "documentation", 2.0, "a documentation section's path words"),
    UrlRule("url:versioned-page", r"/(en|latest|stable|v\d+(\.\d+)*)/.*\.html?$",
            "documentation", 1.0, "Sphinx and Read the Docs pages: a version, then a file"),
    UrlRule("url:product-path", r"/(products?|p|dp|item|items|sku|buy)/[^/]+",
            "product", 2.0, "shops' product paths (/p/…, /dp/…)"),
    UrlRule("url:product-id", r"-p-\d+|/\d{6,}\.html$",
            "product", 1.0, "a product number in the address; also some stories' ids"),
    UrlRule("url:shop-path", r"/(collections?|c|catalog|catalogue|department|shop|store)(/|$)",
            "collection", 2.0, "a shop's category paths"),
    UrlRule("url:category-path", r"/(category|categories)(/|$)",
            "collection", 1.0, "a category: of products in a shop,"),
    UrlRule("url:category-path", r"/(category|categories)(/|$)",
            "listing", 1.0, "of posts in a blog (both count, as much)"),
    UrlRule("url:archive-path", r"/(tags?|topics?|authors?|archives?|search|page/\d+)(/|$)",
            "listing", 1.5, "a blog's tag, author, archive, search or paged index"),
    UrlRule("url:section-index",
            r"/(blog|news|articles|posts|stories|insights|resources|press|events|jobs|careers)/?$",
            "listing", 2.0, "a section's own index (the address ends at the section)"),
    UrlRule("url:service-path",
            r"/(pricing|plans|services?|solutions?|features|enterprise|platform|integrations|"
            r"consulting|agency|contact|about)(/|$|-)",
            "service", 2.0, "a business's pages about what it offers"),
    UrlRule("url:story-path", r"/(19|20)\d\d/\d\d?/|/(article|story|post|news|blog)s?/[^/]+",
            "article", 1.5, "a dated path or a story under its section: one story"),
    # a front page shows the whole site: one cart button on it is a featured product's (1.0 let
    # a cart button win; 1.6 reads 2 more WCXB collection front pages as blocks, a card grid or
    # two cart buttons still win)
    UrlRule("url:home", r"^/$", "service", 1.6, "a site's front page shows the whole site"),
)  # fmt: skip
_URL_RULES: Final = tuple(
    (rule, re.compile(rule.pattern, re.IGNORECASE)) for rule in _URL_RULES_TABLE
)
HOME: Final = "url:home"

# --- the page's shape --------------------------------------------------------------------


@dataclass(frozen=True)
class CountRule:
    """A rule that counts something in the body: from `least` found on, it weighs
    `base + per_item * count` for its type, at most `cap` (a few more make it surer, never
    more than a declaration)."""

    signal: str
    type: HtmlPageType
    least: int
    base: float
    per_item: float
    cap: float
    why: str
    where: SignalSource = "body"

    def weight(self, count: int) -> float:
        return min(self.cap, self.base + self.per_item * count)


_CARD_RUN = 6  # same-shaped linked siblings: fewer are a menu's or a footer's columns
POSTS: Final = CountRule(
    "dom:posts", "forum", 3, 1.0, 0.25, 4.0,
    "three same-shaped blocks that name an author are a thread's posts (two are a quote)",
)  # fmt: skip
FEED_ITEMS: Final = CountRule(
    "dom:feed-items", "listing", 3, 1.0, 0.25, 4.0,
    "authored blocks that each head a story of their own: what counted for a thread, as much",
)  # fmt: skip
LISTED_ITEMS: Final = CountRule(
    "schema:items", "listing", _CARD_RUN, 1.0, 0.25, 4.0,
    "sibling schema.org items declared one by one: as strong as as many posts",
    "microdata",
)  # fmt: skip
CODE_BLOCKS: Final = CountRule(
    "dom:code-blocks", "documentation", 2, 0.0, 0.5, 3.0,
    "code blocks: one is a snippet in a story, several are docs",
)  # fmt: skip
CART_BUTTONS: Final = CountRule(
    "dom:cart-buttons", "product", 1, 1.0, 0.5, 2.5,
    "'add to cart', 'in stock' in buttons and links: a buy box",
)  # fmt: skip
PRICE_MARKUP: Final = CountRule(
    "microdata:price", "product", 1, 1.5, 0.0, 1.5,
    "an itemprop price, offers or sku: the page marks up what it sells",
    "microdata",
)  # fmt: skip
PRICED_CARDS: Final = CountRule(
    "dom:priced-cards", "collection", _CARD_RUN, 1.0, 0.125, 3.5,
    "a run of cards of which three or more show a price: a shop's category grid",
)  # fmt: skip
CARDS: Final = CountRule(
    "dom:cards", "listing", _CARD_RUN, 1.0, 0.125, 3.0,
    "a run of same-shaped linked cards without prices: a list of stories or items",
)  # fmt: skip
PLAN_WORDS: Final = CountRule(
    "dom:plan-words", "service", 2, 0.0, 0.5, 2.5,
    "'per month', 'book a demo' in headings and controls: a business's offer (one is a footer)",
)  # fmt: skip
LONG_PARAGRAPHS: Final = CountRule(
    "dom:long-paragraphs", "article", 5, 0.0, 0.25, 3.0,
    "five or more paragraphs of 25 words or more: a run of prose, as a story has",
)  # fmt: skip
BYLINE: Final = CountRule(
    "dom:byline", "article", 1, 0.5, 0.0, 0.5,
    "a <time datetime>, rel=author or itemprop=author: someone wrote it, on some date",
)  # fmt: skip
_PRICED_CARDS_LEAST = 3  # priced cards that make a card run a shop's grid (a few are promos)
_FEED_SHARE = 0.8  # of the posts: this many heading a story of their own make a feed (a
# thread's posts head none, or all the same "Re: subject"; a few linked headings are quotes)
_TITLE_WORDS = 3  # words in a title link: fewer are an author's name or a "#12" permalink
_LONG_PARAGRAPH_WORDS = 25  # a paragraph this long is prose, not a caption or a teaser
_LONG_PARAGRAPH_CHARS = 2 * _LONG_PARAGRAPH_WORDS - 1  # the fewest characters 25 words take
_PLAN_HEADINGS = HEADING_TAGS[:3]  # plans and offers are named in the page's top headings
_CONTROL_CHARS = 20_000  # of buttons' and links' text searched for cart and plan words: a
# buy box or a pricing table is near the top; a page's long tail of links adds only cost
_LINKED_SHARE = 0.8  # of a card run's siblings that hold a link: fewer are a text's blocks
_CARD_WORDS = (4, 80)  # mean words a card: fewer are bare menu links, more are posts
_PRICED_RUN = 2  # same-shaped priced siblings counted by count_priced_blocks: a pair or more
# two declarations that it is a story and none for another type: the body's shape has not
# overturned that on any of the 1,638 bench pages, so the walk over it (most of the cost) is
# skipped
_DECLARED_STORY = 2
_UNSIGNED_TEXT = 500  # characters: below this a page with no evidence has nothing to read
_ARTICLE_SHARE = 0.5  # of an unsigned page's text in outermost <article>s: it is a story
# the block pages, in the order ties go (service first): read as their blocks (blocks.py)
BLOCK_PAGE_TYPES: Final[tuple[HtmlPageType, ...]] = ("service", "listing", "collection")

# class and id names are lower-cased before these (faster than a case-insensitive search)
_POST_CLASS = re.compile(
    r"(?:^|[-_\s])(?:post|message|reply|comment|answer|topic-post|postbit|forum-post|"
    r"thread-item|cooked|usertext)(?:$|[-_\s\d])"
)
_AUTHOR_CLASS = re.compile(r"author|username|user-name|poster|member|byline|user-info")
# matched against lower-cased text: a case-insensitive alternation is several times slower
_CART = re.compile(
    r"add to (?:cart|bag|basket|trolley)|buy (?:it )?now|in den warenkorb|ajouter au panier|"
    r"add to wishlist|in stock|out of stock|select (?:a )?size"
)
_PLAN = re.compile(
    r"per (?:month|year|user|seat)|/\s?(?:mo|month|yr|year)\b|billed (?:annually|monthly)|"
    r"free trial|get started|book a demo|request a demo|contact sales|our services"
)


def _declared_types(tree: etree._Element) -> list[tuple[str, SignalSource]]:
    """Top-level schema.org types from JSON-LD, then microdata, lower-cased, with their source."""
    types: list[tuple[str, SignalSource]] = [
        (name.rsplit("/", 1)[-1].lower(), "json-ld")
        for obj in json_ld_objects(tree)
        for name in type_names(obj)
    ]
    for node in tree.xpath("//*[@itemtype][not(ancestor::*[@itemtype])]"):
        for value in (node.get("itemtype") or "").split():
            types.append((value.rstrip("/").rsplit("/", 1)[-1].lower(), "microdata"))
    return types


def schema_types(tree: etree._Element) -> list[str]:
    """Top-level schema.org types from JSON-LD and microdata, lower-cased."""
    return [name for name, _ in _declared_types(tree)]


def _totals(evidence: Iterable[Evidence]) -> dict[HtmlPageType, float]:
    """Total weight per type, in the order each type was first seen: a tie goes to the type
    seen first."""
    totals: dict[HtmlPageType, float] = {}
    for ev in evidence:
        totals[ev.type] = totals.get(ev.type, 0.0) + ev.weight
    return totals


class _Evidence:
    """The evidence, in the order it is found."""

    def __init__(self) -> None:
        self.found: list[Evidence] = []

    def add(
        self, kind: HtmlPageType, weight: float, signal: str, seen: str, where: SignalSource
    ) -> None:
        self.found.append(Evidence(signal, seen, kind, weight, where))

    def count(self, rule: CountRule, count: int, seen: str | None = None) -> None:
        """Add `rule`'s weight for `count` when it reaches the rule's least."""
        if count >= rule.least:
            seen = str(count) if seen is None else seen
            self.add(rule.type, rule.weight(count), rule.signal, seen, rule.where)


def classify_page(tree: etree._Element, url: str | None = None) -> Classification:
    """Decide the page type of a parsed HTML document; pure and fast (one walk over the body)."""
    ev = _Evidence()
    _declarations(tree, url, ev)
    declared = sum(1 for e in ev.found if e.declares_story)
    if not (declared >= _DECLARED_STORY and {e.type for e in ev.found} == {"article"}):
        _dom_signals(tree, ev, url)
    evidence = tuple(ev.found)
    scores = _totals(evidence)
    if not scores:
        body = next(tree.iterdescendants("body"), tree)
        text = _text_length(body)
        if text < _UNSIGNED_TEXT or _text_length(body, "article") >= _ARTICLE_SHARE * text:
            return Classification("article", 0.0, evidence, "default")
        # text that nothing calls a story (nor anything else), not even HTML5 article elements
        # holding most of it, is unsigned prose at its least: a landing, schedule or catalogue
        # page that names no type reads as its blocks
        return Classification("service", 0.0, evidence, "unsigned-text")
    kind, best = max(scores.items(), key=lambda item: item[1])
    total = sum(scores.values())
    decision: Decision = "highest"
    if kind == "article" and not (_signed(evidence) and _told(evidence)):
        # prose that no publisher markup, dated address or byline calls a story is an about,
        # landing or category page; a front page, or one that only OpenGraph calls a story
        # with no byline and no run of long paragraphs (a category or tag page in a blog's
        # template), has no one story: either way its blocks are the content (ties go to
        # service, the first)
        decision = "thin-story" if _signed(evidence) else "unsigned-story"
        kind = max(BLOCK_PAGE_TYPES, key=lambda k: scores.get(k, 0.0))
        best = scores.get(kind, 0.0)
    return Classification(kind, round(best / total, 2), evidence, decision)


def _declarations(tree: etree._Element, url: str | None, ev: _Evidence) -> None:
    """What the page's markup and address declare: schema.org types (each once), og:type and
    the URL path's rules."""
    seen: set[str] = set()
    for name, where in _declared_types(tree):
        if name in _SCHEMA and name not in seen:
            seen.add(name)
            row = _SCHEMA[name]
            ev.add(row.type, row.weight, "schema", name, where)
    for og in tree.xpath("//meta[@property='og:type']/@content")[:1]:
        value = str(og).strip().lower()
        if value in _OG:
            row = _OG[value]
            ev.add(row.type, row.weight, "og:type", value, "opengraph")
    if url:
        path = urlsplit(url).path or "/"
        for rule, pattern in _URL_RULES:
            if pattern.search(path):
                ev.add(rule.type, rule.weight, rule.name, path, "url")


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


def _signed(evidence: tuple[Evidence, ...]) -> bool:
    """Whether anything names the page a story: schema.org, OpenGraph, a dated URL or a byline."""
    return any(e.declares_story or e.signal == BYLINE.signal for e in evidence)


def _told(evidence: tuple[Evidence, ...]) -> bool:
    """Whether a story is there to read: not a site's front page (that shows many), and a body
    of long paragraphs, a byline, or schema.org or the URL calling it one (OpenGraph's article
    type alone is stamped on every page of many templates, category and tag pages included)."""
    if any(e.signal == HOME for e in evidence):
        return False
    return any(
        e.signal in (LONG_PARAGRAPHS.signal, BYLINE.signal)
        or (e.declares_story and e.where != "opengraph")
        for e in evidence
    )


def publication_marks(classification: Classification) -> int:
    """How many independent declarations (schema.org, OpenGraph, a dated URL) call it an article.

    The page's shape can look like an article's on a service or listing page; a publisher's own
    markup saying so, twice over, is what makes a news or blog story.
    """
    return sum(1 for e in classification.evidence if e.declares_story)


def _control_text(body: etree._Element) -> list[str]:
    """The text of the buttons and links in `body`, in document order, until `_CONTROL_CHARS`
    are held: what `.//button//text() | .//a//text()` selects, without libxml2 merging each
    link's text nodes into one set (quadratic: 0.8 CPU s for bench/hostile.py's 25,000 links)."""
    texts: list[str] = []
    size, inside = 0, None
    for control in body.iterdescendants("button", "a"):
        if inside is not None and any(a is inside for a in control.iterancestors()):
            continue  # a link inside a button: its text was taken with the button's
        inside = control
        for text in control.itertext():
            texts.append(text)
            size += len(text) + 1
        if size > _CONTROL_CHARS:
            break
    return texts


_INPUT_VALUES = etree.XPath(".//input/@value", smart_strings=False)


def _dom_signals(tree: etree._Element, ev: _Evidence, url: str | None = None) -> None:
    """The page's shape: the rules that count something in the body (`CountRule`s)."""
    body = next(tree.iterdescendants("body"), tree)  # find(".//body") walks in Python
    shape = _scan(body)
    if shape.posts >= POSTS.least:
        titled = _titled_items(shape.post_nodes, url)
        if titled >= _FEED_SHARE * shape.posts:
            # authored blocks that each head a different story are a feed's cards, not posts
            ev.count(FEED_ITEMS, shape.posts, f"{titled}/{shape.posts}")
        else:
            ev.count(POSTS, shape.posts)
    items, item_type = _item_run(shape.listed)
    ev.count(LISTED_ITEMS, items, f"{items} {item_type}")
    ev.count(CODE_BLOCKS, shape.code_blocks)
    controls = _control_text(body)
    text = " ".join(controls + _INPUT_VALUES(body))[:_CONTROL_CHARS]
    ev.count(CART_BUTTONS, len(_CART.findall(text.lower())))
    if shape.price_markup:
        ev.count(PRICE_MARKUP, 1, "")
    cards, priced = _repeated_cards(body)
    ev.count(PRICED_CARDS if priced >= _PRICED_CARDS_LEAST else CARDS, cards)
    plans = len(_PLAN.findall(" ".join(shape.headings).lower()))
    plans += len(_PLAN.findall(" ".join(controls)[:_CONTROL_CHARS].lower()))
    ev.count(PLAN_WORDS, plans)
    ev.count(LONG_PARAGRAPHS, shape.long_paragraphs)
    if shape.byline:
        ev.count(BYLINE, 1, "")


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
            # shorter paragraphs than the fewest characters the words take skip the split
            text = " ".join(node.itertext())
            if len(text) >= _LONG_PARAGRAPH_CHARS and words_in(text) >= _LONG_PARAGRAPH_WORDS:
                shape.long_paragraphs += 1
        elif tag == "pre":
            shape.code_blocks += 1
        elif tag in _PLAN_HEADINGS:
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
    for heading in post.iter(HEADING_TAGS):
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
        if len(linked) < _LINKED_SHARE * len(same):
            continue
        mean_words = sum(word_count(c) for c in linked) / len(linked)
        if not _CARD_WORDS[0] <= mean_words <= _CARD_WORDS[1]:
            continue
        best = linked
    return best


def _repeated_cards(body: etree._Element) -> tuple[int, int]:
    """The largest run of cards, and how many of them show a price."""
    cards = card_run(body)
    return len(cards), sum(1 for c in cards if PRICE.search(" ".join(c.itertext())))


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
        if len(parent) < _PRICED_RUN:
            continue
        shapes = Counter(
            f"{c.tag}.{(c.get('class') or '').split()[:1]}"
            for c in parent
            if isinstance(c.tag, str) and PRICE.search(" ".join(c.itertext()))
        )
        for _, count in shapes.most_common(1):
            best = max(best, count)
    return best
