"""classify_page: the page type from structure, with the signals that decided it."""

from __future__ import annotations

import json

import pytest
from lxml import etree

from netsift.fetch.html import parse_html
from netsift.fetch.pagetype import (
    Classification,
    Evidence,
    classify_page,
    count_priced_blocks,
    schema_types,
)


def _tree(html: str) -> etree._Element:
    tree = parse_html(html)
    assert tree is not None
    return tree


def _found(result: Classification, signal: str) -> Evidence:
    """The evidence `signal` left in the classification (it must have counted)."""
    found = [e for e in result.evidence if e.signal == signal]
    assert found, f"no {signal} in {[str(e) for e in result.evidence]}"
    return found[0]


def _page(body: str, head: str = "") -> str:
    return f"<html><head><title>t</title>{head}</head><body>{body}</body></html>"


def _ld(obj: dict[str, object]) -> str:
    return f'<script type="application/ld+json">{json.dumps(obj)}</script>'


PARAGRAPH = "<p>" + "The council voted to rebuild the old bridge over the river next year. " * 4
ARTICLE = _page(
    "<nav><a href='/'>Home</a></nav><article><h1>Bridge vote</h1>"
    + "".join(PARAGRAPH + f" Part {i}.</p>" for i in range(6))
    + "<time datetime='2024-01-01'>1 Jan</time></article>",
    _ld({"@context": "https://schema.org", "@type": "NewsArticle", "headline": "Bridge vote"}),
)
FORUM = _page(
    "<h1>Which pump?</h1>"
    + "".join(
        f"<div class='post'><span class='username'>user{i}</span>"
        f"<div class='post-body'><p>Reply number {i} about pumps.</p></div></div>"
        for i in range(4)
    )
)
PRODUCT = _page(
    "<h1>Kettle</h1><p class='price'>$40</p><button>Add to cart</button>",
    _ld({"@type": "Product", "name": "Kettle", "offers": {"price": "40", "priceCurrency": "USD"}}),
)
DOCS = _page(
    "<div role='main'><h1>Install</h1><pre><code>pip install quarry</code></pre>"
    "<p>Then import it.</p><pre><code>import quarry</code></pre>"
    "<pre><code>quarry.connect()</code></pre></div>"
)
LISTING = _page(
    "<h1>Stories</h1><div class='list'>"
    + "".join(
        f"<article class='card'><h2><a href='/s/{i}'>Story {i} headline</a></h2>"
        f"<p>A short summary of story {i}.</p></article>"
        for i in range(8)
    )
    + "</div>"
)
COLLECTION = _page(
    "<h1>Kettles</h1><ul class='grid'>"
    + "".join(
        f"<li class='tile'><a href='/p/{i}'>Kettle model {i}</a><span>${20 + i}.00</span></li>"
        for i in range(8)
    )
    + "</ul>"
)
PRICING = _page(
    "<h1>Plans</h1><div class='plans'>"
    "<div class='plan'><h2>Solo</h2><p>$9 per month</p><a href='/s'>Get started</a></div>"
    "<div class='plan'><h2>Team</h2><p>$29 per month</p><a href='/t'>Get started</a></div>"
    "</div>"
)


@pytest.mark.parametrize(
    ("html", "url", "expected"),
    [
        (ARTICLE, "https://paper.example/2024/01/bridge-vote", "article"),
        (FORUM, "https://community.example/t/which-pump/42", "forum"),
        (PRODUCT, "https://shop.example/products/kettle", "product"),
        (DOCS, "https://quarry.example/docs/install", "documentation"),
        (LISTING, "https://paper.example/news/", "listing"),
        (COLLECTION, "https://shop.example/collections/kettles", "collection"),
        (PRICING, "https://app.example/pricing", "service"),
    ],
)
def test_each_type_is_recognized(html: str, url: str, expected: str) -> None:
    result = classify_page(_tree(html), url)
    assert result.type == expected, result.evidence
    assert 0 < result.confidence <= 1
    assert result.evidence and result.decision == "highest"


def test_structure_decides_without_a_telling_url() -> None:
    # Same pages at neutral addresses: schema.org types and DOM shape still decide.
    assert classify_page(_tree(FORUM), "https://x.example/page").type == "forum"
    assert classify_page(_tree(PRODUCT), "https://x.example/page").type == "product"
    assert classify_page(_tree(LISTING), "https://x.example/page").type == "listing"
    assert classify_page(_tree(COLLECTION), "https://x.example/page").type == "collection"


def test_signals_explain_the_decision() -> None:
    result = classify_page(_tree(PRODUCT), "https://shop.example/products/kettle")
    schema = _found(result, "schema")
    assert (schema.seen, schema.where, schema.type, schema.weight) == (
        "product",
        "json-ld",
        "product",
        4.0,
    )
    assert _found(result, "url:product-path").where == "url"
    assert _found(result, "dom:cart-buttons").where == "body"
    explained = result.explain()
    assert explained.type == "product" and explained.runner_up is None
    assert [s.signal for s in explained.signals][:2] == [
        "schema=product",
        "url:product-path=/products/kettle",
    ]


def test_empty_page_defaults_to_article() -> None:
    result = classify_page(_tree("<html><body><p>hi</p></body></html>"), None)
    assert result.type == "article"
    assert result.confidence == 0.0


def test_schema_types_reads_json_ld_graph_and_microdata() -> None:
    html = _page(
        "<div itemscope itemtype='https://schema.org/Recipe'>x</div>",
        _ld({"@graph": [{"@type": "WebPage"}, {"@type": ["Product", "Thing"]}]})
        + '<script type="application/ld+json">{broken</script>',
    )
    assert schema_types(_tree(html)) == ["webpage", "product", "thing", "recipe"]


def test_priced_blocks_counts_plan_grids_only() -> None:
    assert count_priced_blocks(_tree(PRICING)) == 2
    assert count_priced_blocks(_tree(ARTICLE)) == 0


def test_names_and_button_words_match_in_any_case() -> None:
    # Class names and control text are lower-cased before matching: capitals count the same.
    shouting = FORUM.replace("'post'", "'Post'").replace("'username'", "'UserName'")
    assert _found(classify_page(_tree(shouting), None), "dom:posts").seen == "4"
    cart = _page("<h1>Kettle</h1><p>Steel.</p><button>ADD TO CART</button>")
    assert _found(classify_page(_tree(cart), None), "dom:cart-buttons").seen == "1"
    plans = PRICING.replace("Get started", "GET STARTED").replace("Solo", "Solo, Billed Monthly")
    assert _found(classify_page(_tree(plans), None), "dom:plan-words").seen == "3"


ABOUT_PROSE = "".join(
    f"<p>Our workshop in the valley has repaired looms, mills and presses since 1952, and "
    f"every machine that leaves it is tested by the same small team of engineers. {i}</p>"
    for i in range(6)
)


def test_prose_nobody_signed_reads_as_blocks() -> None:
    # Long paragraphs but no article markup, dated URL or byline: an about or landing page.
    result = classify_page(_tree(_page(f"<h1>About us</h1>{ABOUT_PROSE}")), "https://x.example/a")
    assert result.type == "service"
    assert result.decision == "unsigned-story"
    assert result.runner_up == ("article", 1.5)  # what the long paragraphs alone said


def test_prose_with_a_byline_or_markup_stays_an_article() -> None:
    byline = _page(f"<h1>Mill</h1><time datetime='2024-05-01'>1 May</time>{ABOUT_PROSE}")
    assert classify_page(_tree(byline), "https://x.example/a").type == "article"
    og = _page(f"<h1>Mill</h1>{ABOUT_PROSE}", "<meta property='og:type' content='article'>")
    assert classify_page(_tree(og), "https://x.example/a").type == "article"
    dated = _page(f"<h1>Mill</h1>{ABOUT_PROSE}")
    assert classify_page(_tree(dated), "https://x.example/2024/05/mill").type == "article"


def test_unsigned_prose_goes_to_the_block_type_with_evidence() -> None:
    cards = "".join(
        f"<li class='card'><a href='/m/{i}'>Machine {i}</a> restored loom with notes</li>"
        for i in range(6)
    )
    html = _page(f"<h1>Workshop</h1>{ABOUT_PROSE}{ABOUT_PROSE}<ul class='grid'>{cards}</ul>")
    result = classify_page(_tree(html), "https://x.example/a")
    found = _found(result, "dom:cards")
    assert (found.seen, found.type, found.weight) == ("6", "listing", 1.75)
    assert result.type == "listing", result.evidence


def test_long_paragraph_count_starts_at_twenty_five_words() -> None:
    # 25 one-letter words are the shortest long paragraph (49 characters): the cheap length
    # check that skips splitting short paragraphs must still count it, and 24 words must not
    body = "".join(f"<p>{' '.join(['a'] * n)}</p>" for n in (25, 25, 25, 25, 25, 24, 24))
    found = _found(classify_page(_tree(_page(body)), None), "dom:long-paragraphs")
    assert (found.seen, found.type, found.weight) == ("5", "article", 1.25)


def test_cards_inside_chrome_are_not_counted_twice_or_missed() -> None:
    # two card runs under one footer share ancestors (judged once); a run in the main column
    # beside them still counts
    card = "<li><a href='/x{0}'>Read the whole guide number {0} here</a></li>"
    footer = "".join(
        "<div><ul>" + "".join(card.format(i) for i in range(8)) + "</ul></div>" for _ in range(2)
    )
    main = "<main><ul>" + "".join(card.format(i) for i in range(7)) + "</ul></main>"
    result = classify_page(_tree(_page(main + f"<footer>{footer}</footer>")), None)
    assert _found(result, "dom:cards").seen == "7"


TEASERS = "".join(
    f"<h2><a href='/blog/mill-{i}'>Restoring mill number {i}</a></h2>"
    f"<p>A short note on the gears we rebuilt.</p>"
    for i in range(4)
)
OG_ARTICLE = "<meta property='og:type' content='article'>"


def test_og_article_without_a_story_body_reads_as_blocks() -> None:
    # A blog template stamps og:type=article on its tag and category pages too: with no
    # byline and no run of long paragraphs there is no story, the teasers are the content.
    html = _page(f"<h1>Tag: mills</h1>{TEASERS}", OG_ARTICLE)
    result = classify_page(_tree(html), "https://x.example/tag-mills")
    assert result.type == "service", result.evidence
    assert result.decision == "thin-story"


def test_short_story_with_schema_dated_url_or_byline_stays_an_article() -> None:
    short = f"<h1>Mill reopens</h1><p>The old mill reopened today.</p>{ABOUT_PROSE[:300]}</p>"
    schema = _ld({"@context": "https://schema.org", "@type": "NewsArticle", "headline": "Mill"})
    assert classify_page(_tree(_page(short, schema)), "https://x.example/a").type == "article"
    dated = classify_page(_tree(_page(short, OG_ARTICLE)), "https://x.example/2024/05/mill")
    assert dated.type == "article"
    signed = _page(f"<time datetime='2024-05-01'>1 May</time>{short}", OG_ARTICLE)
    assert classify_page(_tree(signed), "https://x.example/a").type == "article"
    assert classify_page(_tree(_page(short, OG_ARTICLE)), "https://x.example/a").type == "service"


def test_front_page_prose_reads_as_blocks_even_when_signed() -> None:
    # A site's front page with a dated feature and prose is still many things, not one story.
    html = _page(f"<h1>Mill Co.</h1><time datetime='2024-05-01'>1 May</time>{ABOUT_PROSE}")
    assert classify_page(_tree(html), "https://x.example/a").type == "article"
    result = classify_page(_tree(html), "https://x.example/")
    assert result.type == "service", result.evidence
    assert result.decision == "thin-story"


def test_text_with_no_evidence_of_any_type_reads_as_blocks() -> None:
    # A schedule: rows of short entries, no markup, no telling URL, no long paragraphs.
    rows = "".join(
        f"<tr><td>Week {i}</td><td>Riverside Hawks at Valley Mills</td><td>7:30 PM</td></tr>"
        for i in range(12)
    )
    html = _page(f"<h1>Season schedule</h1><table>{rows}</table>")
    result = classify_page(_tree(html), "https://x.example/schedule")
    assert result.type == "service", result.evidence
    assert (result.decision, result.evidence) == ("unsigned-text", ())


def test_script_text_does_not_make_an_empty_shell_readable() -> None:
    # An app shell: all its characters are in a script, so it stays the default article.
    shell = _page("<div id='app'></div><script>" + "var x = 1; " * 200 + "</script>")
    result = classify_page(_tree(shell), "https://x.example/app")
    assert result.type == "article"
    assert (result.decision, result.evidence) == ("default", ())


def test_article_elements_holding_the_text_keep_the_default_article() -> None:
    story = "".join(
        f"<p>Paragraph {i} tells how the mill was rebuilt after the flood of that spring.</p>"
        for i in range(8)
    )
    html = _page(f"<nav><a href='/'>Home</a></nav><article><h1>The mill</h1>{story}</article>")
    result = classify_page(_tree(html), "https://x.example/the-mill")
    assert result.type == "article"
    assert (result.decision, result.evidence) == ("default", ())


def test_one_cart_button_on_a_front_page_is_a_featured_product() -> None:
    intro = (
        "<h1>Valley Looms</h1><p>Restored looms and spare parts from our workshop.</p>"
        "<h2>Featured</h2><p>Oak table loom, 60 cm, restored</p>"
    )
    one = _page(intro + "<button>Add to cart</button>")
    result = classify_page(_tree(one), "https://looms.example/")
    cart = _found(result, "dom:cart-buttons")
    assert (cart.seen, cart.type, cart.weight) == ("1", "product", 1.5)
    assert result.type == "service", result.evidence
    assert result.runner_up == ("product", 1.5)
    two = _page(intro + "<button>Add to cart</button><button>Add to cart</button>")
    assert classify_page(_tree(two), "https://looms.example/").type == "product"
