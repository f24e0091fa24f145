"""One small page per page-type rule (fetch/pagetype.py): each page is decided by its rule, so
removing the rule (a table row, a count rule, a decision) fails its case. Each page holds the
rule's signal and, where needed, a weaker foil of another type that wins without it.

The expectations are written here, not read from pagetype's tables: a row dropped or re-weighed
there shows up as a failure here."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest

from netsift.fetch.html import parse_html
from netsift.fetch.pagetype import Classification, classify_page

NEUTRAL = "https://site.example/page"
# text in plain blocks: more than the 500 characters a page with no evidence needs to be read
# as its blocks, and no paragraph long enough to count as prose
FILLER = "".join(
    f"<div>Note {i} on the season, the tides and the harbour.</div>" for i in range(12)
)
BYLINE = "<time datetime='2024-05-01'>1 May 2024</time>"  # article +0.5
CODE = "<pre>make</pre><pre>make install</pre>"  # documentation +1.0
CART = "<button>Add to basket</button>"  # product +1.5
PROSE = "".join(
    f"<p>The harbour board met on Tuesday to weigh the cost of dredging the channel before "
    f"the autumn storms, and the fishermen asked for a vote on the plan this year. {i}</p>"
    for i in range(5)
)  # five paragraphs of 25 words or more: article +1.25


def _ld(kind: str) -> str:
    return f'<script type="application/ld+json">{json.dumps({"@type": kind})}</script>'


def _og(kind: str) -> str:
    return f"<meta property='og:type' content='{kind}'>"


def _page(body: str, head: str = "") -> str:
    return f"<html><head><title>t</title>{head}</head><body>{body}</body></html>"


def _classify(html: str, url: str) -> Classification:
    tree = parse_html(html)
    assert tree is not None
    return classify_page(tree, url)


@dataclass(frozen=True)
class Case:
    """A page, the type it must read as, and the evidence its rule leaves (signal, type and
    weight), or the decision that must have decided."""

    html: str
    url: str
    type: str
    signal: str | None = None
    weight: float | None = None
    decision: str = "highest"


def _declared(kind: str, page_type: str, weight: float) -> Case:
    """A schema.org type declared in JSON-LD over a foil that wins without it: code blocks
    (documentation) under a story type, a byline (article) under any other."""
    foil = CODE if page_type == "article" else BYLINE
    return Case(_page(FILLER + foil, _ld(kind)), NEUTRAL, page_type, "schema", weight)


SCHEMA = {
    "Product": ("product", 4.0),
    "ProductGroup": ("product", 4.0),
    "IndividualProduct": ("product", 4.0),
    "Car": ("product", 2.0),
    "Book": ("product", 1.0),
    "NewsArticle": ("article", 2.5),
    "Article": ("article", 1.5),
    "BlogPosting": ("article", 2.5),
    "ReportageNewsArticle": ("article", 2.5),
    "AnalysisNewsArticle": ("article", 2.5),
    "OpinionNewsArticle": ("article", 2.5),
    "ScholarlyArticle": ("article", 2.0),
    "Recipe": ("article", 2.0),
    "Review": ("article", 1.0),
    "TechArticle": ("documentation", 2.5),
    "APIReference": ("documentation", 3.0),
    "SoftwareSourceCode": ("documentation", 1.0),
    "DiscussionForumPosting": ("forum", 4.0),
    "QAPage": ("forum", 4.0),
    "Question": ("forum", 2.0),
    "SocialMediaPosting": ("forum", 1.5),
    "CollectionPage": ("collection", 1.5),
    "ItemList": ("listing", 1.0),
    "OfferCatalog": ("collection", 2.0),
    "SearchResultsPage": ("listing", 2.0),
    "Service": ("service", 2.5),
    "ProfessionalService": ("service", 2.0),
    "SoftwareApplication": ("service", 1.5),
    "WebApplication": ("service", 1.5),
    "FAQPage": ("service", 1.0),
    "LocalBusiness": ("service", 1.0),
}


def _url(path: str, page_type: str, signal: str, weight: float) -> Case:
    """A URL rule's path over the foil that wins without it (as `_declared`)."""
    foil = CODE if page_type == "article" else BYLINE
    url = f"https://site.example{path}"
    return Case(_page(FILLER + foil), url, page_type, signal, weight)


def _cards(priced: bool) -> str:
    price = " from $12" if priced else ""
    items = "".join(
        f"<li class='card'><a href='/item/{i}'>Harbour lamp number {i}{price}</a> in brass</li>"
        for i in range(6)
    )
    return f"<ul class='grid'>{items}</ul>"


def _posts(titled: bool) -> str:
    """Three blocks classed as posts that name their author; `titled`: each heads a story of
    its own (a feed's cards) instead of replying on the page (a thread's posts)."""
    return "".join(
        f"<div class='post'><span class='username'>sailor{i}</span>"
        + (f"<h3><a href='/story/{i}'>Storm season story number {i}</a></h3>" if titled else "")
        + f"<div>Reply {i} on the mooring lines.</div></div>"
        for i in range(3)
    )


BOOKS = "".join(
    f"<div itemscope itemtype='https://schema.org/Book'><span itemprop='name'>Tide tables "
    f"volume {i}</span></div>"
    for i in range(6)
)
SHORT_STORY = "<h1>Ferry late</h1><div>The morning ferry was late again today.</div>"

CASES: dict[str, Case] = {
    **{f"schema:{k}": _declared(k, t, w) for k, (t, w) in SCHEMA.items()},
    "schema in microdata": Case(
        _page("<div itemscope itemtype='https://schema.org/QAPage'>" + FILLER + "</div>" + BYLINE),
        NEUTRAL,
        "forum",
        "schema",
        4.0,
    ),
    "og:type=product": Case(
        _page(FILLER + BYLINE, _og("product")), NEUTRAL, "product", "og:type", 3.0
    ),
    "og:type=og:product": Case(
        _page(FILLER + BYLINE, _og("og:product")), NEUTRAL, "product", "og:type", 3.0
    ),
    "og:type=product.item": Case(
        _page(FILLER + BYLINE, _og("product.item")), NEUTRAL, "product", "og:type", 3.0
    ),
    "og:type=product.group": Case(
        _page(FILLER + BYLINE, _og("product.group")), NEUTRAL, "collection", "og:type", 1.5
    ),
    # og:type=article alone does not tell a story: with long paragraphs it does
    "og:type=article": Case(
        _page(FILLER + PROSE, _og("article")), NEUTRAL, "article", "og:type", 1.0
    ),
    "url:thread-path": _url("/t/mooring-lines/12", "forum", "url:thread-path", 2.0),
    "url:question-path": _url("/questions/4821/knots", "forum", "url:question-path", 3.0),
    "url:docs-path": _url("/docs/install", "documentation", "url:docs-path", 2.0),
    "url:versioned-page": _url("/v2/intro.html", "documentation", "url:versioned-page", 1.0),
    "url:product-path": _url("/p/brass-lamp", "product", "url:product-path", 2.0),
    "url:product-id": _url("/brass-lamp-p-4821", "product", "url:product-id", 1.0),
    "url:shop-path": _url("/store/lamps", "collection", "url:shop-path", 2.0),
    "url:category-path": _url("/category/lamps", "collection", "url:category-path", 1.0),
    "url:archive-path": _url("/tag/lamps", "listing", "url:archive-path", 1.5),
    "url:section-index": _url("/news/", "listing", "url:section-index", 2.0),
    "url:service-path": _url("/pricing", "service", "url:service-path", 2.0),
    "url:story-path": _url("/2024/05/ferry-late", "article", "url:story-path", 1.5),
    "url:home": _url("/", "service", "url:home", 1.6),
    "dom:posts": Case(_page(_posts(titled=False)), NEUTRAL, "forum", "dom:posts", 1.75),
    "dom:feed-items": Case(_page(_posts(titled=True)), NEUTRAL, "listing", "dom:feed-items", 1.75),
    "schema:items": Case(_page(FILLER + BOOKS), NEUTRAL, "listing", "schema:items", 2.5),
    "dom:code-blocks": Case(_page(FILLER + CODE), NEUTRAL, "documentation", "dom:code-blocks", 1.0),
    "dom:cart-buttons": Case(_page(FILLER + CART), NEUTRAL, "product", "dom:cart-buttons", 1.5),
    "microdata:price": Case(
        _page(FILLER + "<span itemprop='price'>12</span>"),
        NEUTRAL,
        "product",
        "microdata:price",
        1.5,
    ),
    "dom:priced-cards": Case(
        _page(_cards(priced=True)), NEUTRAL, "collection", "dom:priced-cards", 1.75
    ),
    "dom:cards": Case(_page(_cards(priced=False)), NEUTRAL, "listing", "dom:cards", 1.75),
    "dom:plan-words": Case(
        _page(FILLER + "<h2>Solo: 9 per month</h2><h2>Crew: 29 per month</h2>"),
        NEUTRAL,
        "service",
        "dom:plan-words",
        1.0,
    ),
    # og:type=article calls it a story; the long paragraphs tell one (without them: thin)
    "dom:long-paragraphs": Case(
        _page(PROSE, _og("article")), NEUTRAL, "article", "dom:long-paragraphs", 1.25
    ),
    # og:type=article calls it a story; the byline tells one (without it: thin)
    "dom:byline": Case(
        _page(SHORT_STORY + BYLINE, _og("article")), NEUTRAL, "article", "dom:byline", 0.5
    ),
    "decision:unsigned-story": Case(_page(PROSE), NEUTRAL, "service", decision="unsigned-story"),
    "decision:thin-story": Case(
        _page(SHORT_STORY, _og("article")), NEUTRAL, "service", decision="thin-story"
    ),
    "decision:unsigned-text": Case(_page(FILLER), NEUTRAL, "service", decision="unsigned-text"),
    "decision:default (little text)": Case(
        _page(SHORT_STORY), NEUTRAL, "article", decision="default"
    ),
    "decision:default (text in <article>)": Case(
        _page(f"<article>{FILLER}</article>"), NEUTRAL, "article", decision="default"
    ),
    # two declarations that it is a story: the body's posts (forum +4, more than the two
    # declarations' 3.5) are not weighed
    "declared story skips the body": Case(
        _page(
            "".join(
                f"<div class='post'><span class='username'>sailor{i}</span>Reply {i}</div>"
                for i in range(12)
            ),
            _ld("NewsArticle") + _og("article"),
        ),
        NEUTRAL,
        "article",
        "schema",
        2.5,
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_each_rule_decides_its_page(name: str) -> None:
    case = CASES[name]
    result = _classify(case.html, case.url)
    trace = [str(e) for e in result.evidence]
    assert result.type == case.type, (name, result.decision, trace)
    assert result.decision == case.decision, (name, trace)
    if case.signal is not None:
        found = [(e.type, e.weight) for e in result.evidence if e.signal == case.signal]
        assert (case.type, case.weight) in found, (name, trace)


def test_the_front_page_rule_reads_signed_prose_as_blocks() -> None:
    """A front page with a byline and a run of prose is still the whole site, not one story."""
    result = _classify(_page(BYLINE + PROSE), "https://site.example/")
    assert (result.type, result.decision) == ("service", "thin-story")
    assert result.runner_up == ("article", 1.75)


def test_evidence_says_where_each_signal_was_found() -> None:
    html = _page(
        "<div itemscope itemtype='https://schema.org/Recipe'>x</div>" + FILLER + CART,
        _ld("Product") + _og("product"),
    )
    result = _classify(html, "https://site.example/p/lamp")
    where = {(e.signal, e.seen): e.where for e in result.evidence}
    assert where[("schema", "product")] == "json-ld"
    assert where[("schema", "recipe")] == "microdata"
    assert where[("og:type", "product")] == "opengraph"
    assert where[("url:product-path", "/p/lamp")] == "url"
    assert where[("dom:cart-buttons", "1")] == "body"
