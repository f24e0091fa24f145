"""extract_html: main content kept with its structure, page clutter dropped, in every format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from netsift.errors import InvalidInput
from netsift.fetch.html import extract_html
from netsift.models import ContentFormat

ARTICLE = """<!doctype html><html lang="en"><head><title>Rivers of the North | Daily</title></head>
<body>
<nav><a href="/">Home</a> <a href="/world">World</a> <a href="/sport">Sport</a></nav>
<div class="cookie-banner" id="cookie-consent">We use cookies. <button>Accept all</button></div>
<main><article>
<h1>Rivers of the North</h1>
<p>The northern rivers carry <em>melt water</em> from the glaciers to the sea every spring,
and their flow has been measured at the same gauges for more than a century.</p>
<h2>Measurements</h2>
<p>Researchers at the <a href="https://example.org/institute">institute</a> compared the records
with satellite data and found that peak flow now arrives two weeks earlier than in 1950.</p>
<ul><li>Gauges read every hour</li><li>Satellite passes every three days</li></ul>
<table><tr><th>River</th><th>Peak</th></tr><tr><td>Alta</td><td>May 2</td></tr>
<tr><td>Tana</td><td>May 9</td></tr></table>
<pre><code>flow = volume / seconds</code></pre>
<p>The team will publish the full dataset next year so that others can check the trend.</p>
</article></main>
<aside class="related"><h3>Related</h3>
<a href="/a">Other story one</a><a href="/b">Other two</a></aside>
<div class="advert">Buy the best shoes now, 50% off</div>
<footer>Copyright 2024 Daily News. All rights reserved. Privacy policy</footer>
</body></html>"""


def test_markdown_keeps_structure_and_drops_clutter() -> None:
    result = extract_html(ARTICLE, url="https://news.example/rivers", format="markdown")
    md = result.content
    assert "melt water" in md
    assert "## Measurements" in md or "Measurements" in md
    assert "- Gauges read every hour" in md
    assert "| Alta" in md
    assert "flow = volume / seconds" in md
    assert "[institute](https://example.org/institute)" in md
    assert "Accept all" not in md
    assert "All rights reserved" not in md
    assert "50% off" not in md
    assert result.title and "Rivers of the North" in result.title


def test_text_has_no_markup() -> None:
    text = extract_html(ARTICLE, url=None, format="text").content
    assert "melt water" in text
    assert "[institute]" not in text and "*" not in text
    assert "All rights reserved" not in text


def test_html_is_clean_main_html() -> None:
    html = extract_html(ARTICLE, url=None, format="html").content
    assert "<p>" in html and "melt water" in html
    assert "cookie" not in html.lower()


def test_empty_document() -> None:
    result = extract_html("   ", url=None, format="markdown")
    assert result.content == "" and result.title is None


FORUM = """<html><head><title>Pump advice</title></head><body>
<nav class="navbar"><a href="/">Forum home</a><a href="/login">Log in</a></nav>
<main><h1>Which pump for a small pond?</h1>
<div class="post"><div class="meta"><span class="username">ana</span>
<time datetime="2024-04-01">1 April 2024</time></div>
<div class="post-body"><p>My pond holds about two thousand litres. Which pump size works?</p></div>
<div class="post-actions"><button>Reply</button><a class="share" href="#">Share post</a></div></div>
<div class="post"><div class="meta"><span class="username">ben</span>
<time datetime="2024-04-02">2 April 2024</time></div>
<div class="post-body"><p>Turn the whole volume over once an hour: a 2000 l/h pump.</p></div>
<div class="post-actions"><button>Reply</button></div></div>
<div class="post"><div class="meta"><span class="username">cara</span>
<time datetime="2024-04-03">3 April 2024</time></div>
<div class="post-body"><p>Add a UV filter too if the water turns green in summer.</p></div></div>
</main><footer>Forum rules. Privacy.</footer></body></html>"""


def test_forum_thread_keeps_every_post_with_author_and_date() -> None:
    result = extract_html(FORUM, url="https://garden.example/t/pond-pump/7", format="markdown")
    md = result.content
    assert result.page_type == "forum"
    assert "### ana · 1 April 2024" in md and "### ben · 2 April 2024" in md
    assert "### cara · 3 April 2024" in md
    assert md.index("two thousand litres") < md.index("2000 l/h") < md.index("UV filter")
    assert "Share post" not in md and "Log in" not in md and "Forum rules" not in md
    text = extract_html(FORUM, url="https://garden.example/t/pond-pump/7", format="text")
    assert "ana\n1 April 2024\n\nMy pond holds" in text.content


PRODUCT = """<html><head><title>Kettle</title>
<script type="application/ld+json">{"@context": "https://schema.org", "@type": "Product",
"name": "Steel Kettle", "brand": {"@type": "Brand", "name": "Boilwell"}, "sku": "K-17",
"description": "A 1.7 litre kettle with a steel body.",
"offers": {"@type": "Offer", "price": "39.90", "priceCurrency": "EUR",
"availability": "https://schema.org/InStock"}}</script></head><body>
<nav><a href="/">Shop</a><a href="/cart">Cart</a></nav>
<main><h1>Steel Kettle</h1><p class="price">39,90 €</p><button>Add to cart</button>
<div class="description"><p>The Steel Kettle boils a full litre in under three minutes and switches
itself off when the water boils or the base runs dry.</p>
<h2>Specifications</h2><table><tr><th>Capacity</th><td>1.7 l</td></tr>
<tr><th>Power</th><td>2200 W</td></tr></table></div></main>
<footer>Returns. Shipping. Privacy.</footer></body></html>"""


def test_product_page_reads_as_facts_then_description() -> None:
    result = extract_html(PRODUCT, url="https://shop.example/products/kettle", format="markdown")
    md = result.content
    assert result.page_type == "product"
    assert "- **Brand:** Boilwell" in md
    assert "- **Price:** 39.90 EUR" in md
    assert "- **Availability:** InStock" in md
    assert "- **SKU:** K-17" in md
    assert md.index("**Price:**") < md.index("boils a full litre")
    assert "| Capacity | 1.7 l |" in md
    assert "Returns. Shipping" not in md


DOCS = """<html><head><title>Client - Quarry docs</title></head><body>
<div class="sidebar"><ul><li><a href="/guide">Guide</a></li>
<li><a href="/api">API</a></li></ul></div>
<div role="main"><h1>Client</h1>
<p>The client holds the connection pool and the retry policy for every query you send.</p>
<h2>Create one</h2>
<pre><code class="language-python">client = Client("https://db.example", retries=3)</code></pre>
<div class="admonition note"><p class="admonition-title">Note</p>
<p>Share one client between threads; building the pool is expensive.</p></div>
<h2>Parameters</h2>
<table><tr><th>Name</th><th>Default</th></tr><tr><td>retries</td><td>0</td></tr>
<tr><td>timeout</td><td>10.0</td></tr></table>
<pre><code>client.close()</code></pre></div>
<footer class="footer">Built with a docs generator.</footer></body></html>"""


def test_docs_keep_code_tables_admonitions_and_headings() -> None:
    result = extract_html(DOCS, url="https://quarry.example/docs/client", format="markdown")
    md = result.content
    assert result.page_type == "documentation"
    assert '`client = Client("https://db.example", retries=3)`' in md
    assert "## Create one" in md and "## Parameters" in md
    assert "| retries | 0 |" in md
    assert "building the pool is expensive" in md
    assert "Built with a docs generator" not in md


LISTING = (
    """<html><head><title>Field notes</title></head><body>
<header class="site-header"><nav><a href="/">Journal</a><a href="/about">About</a></nav></header>
<main><h1>Field notes</h1>
<aside class="filters"><ul class="facets"><li><a href="?season=spring">Spring (12)</a></li>
<li><a href="?sort=oldest">Sort: oldest first</a></li></ul></aside>
<div class="post-list">"""
    + "".join(
        f"""<article class="card"><h2><a href="/notes/{i}">Note number {i} title</a></h2>
<p>Summary of note {i} in one line.</p></article>"""
        for i in range(7)
    )
    + """</div><nav class="pagination"><a href="?page=2">Next page</a></nav></main>
<footer>Subscribe to the newsletter.</footer></body></html>"""
)


def test_listing_keeps_items_and_drops_facets() -> None:
    result = extract_html(LISTING, url="https://journal.example/blog/", format="markdown")
    md = result.content
    assert result.page_type == "listing"
    for i in range(7):
        assert f"## [Note number {i} title](https://journal.example/notes/{i})" in md
        assert f"Summary of note {i} in one line." in md
    assert "Spring (12)" not in md and "Sort: oldest" not in md
    assert "Next page" not in md and "newsletter" not in md


PRICING = """<html><head><title>Pricing</title></head><body>
<header><nav><a href="/">Ledgerly</a><a href="/login">Sign in</a></nav></header>
<main><h1>Pricing</h1><p>Every plan includes invoicing and a free trial.</p>
<div class="plans">
<div class="plan"><h2>Starter</h2><p>$12 per month</p><ul><li>One user</li></ul>
<a href="/signup">Start free trial</a></div>
<div class="plan"><h2>Team</h2><p>$39 per month</p><ul><li>Five users</li></ul>
<a href="/signup">Start free trial</a></div>
<div class="plan"><h2>Business</h2><p>$89 per month</p><ul><li>Unlimited users</li></ul>
<a href="/contact">Contact sales</a></div></div></main>
<footer>Terms. Privacy.</footer></body></html>"""


def test_pricing_page_keeps_every_plan_with_price_and_features() -> None:
    result = extract_html(PRICING, url="https://ledgerly.example/pricing", format="markdown")
    md = result.content
    assert result.page_type == "service"
    for plan, price, feature in (
        ("Starter", "$12 per month", "- One user"),
        ("Team", "$39 per month", "- Five users"),
        ("Business", "$89 per month", "- Unlimited users"),
    ):
        assert f"## {plan}" in md and price in md and feature in md
    assert "Sign in" not in md and "Terms. Privacy" not in md


def test_requested_page_type_overrides_classification() -> None:
    result = extract_html(
        LISTING, url="https://journal.example/blog/", format="text", page_type="article"
    )
    assert result.page_type == "article"
    assert result.classification is not None
    assert result.classification.decision == "requested"


def test_unknown_page_type_is_invalid_input() -> None:
    with pytest.raises(InvalidInput) as info:
        extract_html(ARTICLE, url=None, format="text", page_type="recipe")
    assert info.value.code == "invalid_input"


def test_page_type_reaches_the_public_extract_and_params() -> None:
    import netsift
    from netsift.params import FetchParams

    page = netsift.extract(LISTING, url="https://journal.example/x", page_type="article")
    assert page.page_type == "article"
    assert netsift.extract(LISTING, url="https://journal.example/blog/").page_type == "listing"
    assert FetchParams(url="https://a.example", page_type="forum").page_type == "forum"
    with pytest.raises(ValueError):
        FetchParams.model_validate({"url": "https://a.example", "page_type": "recipe"})


def test_cli_extract_takes_page_type(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from netsift.cli import app

    html = tmp_path / "plans.html"
    html.write_text(PRICING, encoding="utf-8")
    args = ["extract", str(html), "--url", "https://ledgerly.example/pricing", "--json"]
    auto = CliRunner().invoke(app, args)
    assert auto.exit_code == 0, auto.output
    assert json.loads(auto.output)["page_type"] == "service"
    forced = CliRunner().invoke(app, [*args, "--page-type", "forum"])
    assert json.loads(forced.output)["page_type"] == "forum"
    bad = CliRunner().invoke(app, [*args, "--page-type", "recipe"])
    assert bad.exit_code == 2


COLLECTION = (
    """<html><head><title>Kettles</title></head><body>
<header><nav><a href="/">Brewhaus</a><a href="/cart">Cart</a></nav></header>
<main><h1>Kettles</h1><ul class="products">"""
    + "".join(
        f"""<li class="product"><a href="/p/kettle-{i}">Kettle model {i}</a>
<span class="price">${20 + i}.00</span></li>"""
        for i in range(8)
    )
    + """</ul></main><footer>Shipping. Returns. Newsletter.</footer></body></html>"""
)


def test_collection_keeps_every_product_card() -> None:
    result = extract_html(COLLECTION, url="https://brewhaus.example/kettles", format="text")
    assert result.page_type == "collection"
    for i in range(8):
        assert f"Kettle model {i}" in result.content and f"${20 + i}.00" in result.content
    assert "Shipping. Returns" not in result.content


def test_parser_repairs_what_libxml2_rejects() -> None:
    page = (
        '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" '
        '"http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">\n'
        "<html><body><main><p>Control\x0b characters\x00 and \ufffe non-characters are "
        "dropped, the text around them kept, in a paragraph long enough to count.</p>"
        "</main></body></html>"
    )
    result = extract_html(page, url=None, format="text")
    assert "Control characters and non-characters are dropped" in result.content


def _story_paragraphs(topic: str, count: int) -> str:
    return "".join(
        f"<p>Paragraph {i} about {topic} carries enough plain words to read as prose in a story "
        f"body, with a detail numbered {i} that no other paragraph repeats.</p>"
        for i in range(count)
    )


def test_article_body_split_around_ads_reads_every_chunk() -> None:
    chunks = "".join(
        f'<div class="grid"><div class="article__body">{_story_paragraphs(f"part{n}", 4)}</div>'
        f'<aside class="ad-rail">Advertisement</aside></div>'
        for n in range(3)
    )
    page = (
        '<html><head><title>Split story</title><meta property="og:type" content="article"></head>'
        f'<body><main><article><h1>Split story</h1><div class="chunks">{chunks}</div>'
        "</article></main></body></html>"
    )
    text = extract_html(page, url="https://news.example/2024/01/02/split", format="text").content
    for n in range(3):
        assert f"about part{n}" in text


def test_teasers_after_a_related_heading_are_dropped() -> None:
    teasers = "".join(
        f'<article class="post teaser"><p>Teaser {i} for another post on this site, a long '
        f"enough excerpt of someone else's story that ends in the middle …</p></article>"
        for i in range(5)
    )
    page = (
        "<html><head><title>One post</title></head><body><main>"
        f'<article class="post">{_story_paragraphs("the post", 2)}</article>'
        f'<section class="post"><h3 class="relatedposts-title">You may like</h3>{teasers}</section>'
        "</main></body></html>"
    )
    text = extract_html(page, url="https://blog.example/one-post", format="text").content
    assert "about the post" in text
    assert "Teaser" not in text


def test_plain_text_leaves_the_headline_to_the_title() -> None:
    result = extract_html(ARTICLE, url="https://news.example/rivers", format="text")
    assert result.title == "Rivers of the North | Daily"
    assert not result.content.startswith("Rivers of the North")
    assert result.content.startswith("The northern rivers carry melt water")
    markdown = extract_html(ARTICLE, url="https://news.example/rivers", format="markdown")
    assert "Rivers of the North" in markdown.content


def test_first_body_is_trafilaturas_first_body_container() -> None:
    from trafilatura.xpaths import BODY_XPATH

    from netsift.fetch.article import _first_body
    from netsift.fetch.html import parse_html

    page = (
        '<html><body><div id="wrap"><section class="teaser-list"><p>Teaser</p></section>'
        '<div class="layout"><div class="c-article-body main">'
        '<div class="post-content">Inner</div></div></div>'
        '<div class="entry">Later</div></div></body></html>'
    )
    tree = parse_html(page)
    assert tree is not None
    first = _first_body(tree)
    assert first is not None and first.get("class") == "c-article-body main"
    assert first is next(n for n in BODY_XPATH[0](tree) if n is not None)
    assert _first_body(parse_html("<html><body><div class='x'>No body</div></body></html>")) is None


def test_elements_trafilatura_never_reads_are_dropped_unless_they_hold_the_content() -> None:
    from lxml import etree

    from netsift.fetch.html import _drop_unread, parse_html

    story = _story_paragraphs("the story", 6)
    page = (
        "<html><body><nav><a href='/'>Home</a></nav>Kept tail<main>"
        "<svg><path d='M0 0'/><text>icon</text></svg><p>Lead</p>"
        f"<button>Share</button></main><fieldset>{story}</fieldset></body></html>"
    )
    tree = parse_html(page)
    assert tree is not None
    _drop_unread(tree)
    html = etree.tostring(tree, encoding="unicode")
    assert "<nav" not in html and "<svg" not in html and "<button" not in html
    assert "Kept tail" in html and "Lead" in html
    assert "about the story" in html  # a fieldset holding the page's text is no control group


def test_own_copy_resolves_relative_links_and_fragments_and_keeps_absolute_ones() -> None:
    from netsift.fetch.dom import own_copy
    from netsift.fetch.html import parse_html

    tree = parse_html(
        "<html><body><a href='../b/c'>Up</a><a href='https://other.example/x?'>Away</a>"
        "<a href='#top'>Top</a></body></html>"
    )
    assert tree is not None
    hrefs = [a.get("href") for a in own_copy(tree, "https://site.example/a/page").iter("a")]
    assert hrefs == [
        "https://site.example/b/c",
        "https://other.example/x?",
        "https://site.example/a/page#top",
    ]


def test_block_pages_keep_dates_trafilatura_would_drop() -> None:
    from lxml import etree

    from netsift.fetch.html import _UNREAD_CHROME, _drop_unread, parse_html

    tree = parse_html(
        "<html><body><nav><a href='/'>Home</a></nav><main><ul>"
        + "".join(f"<li><a href='/e{i}'>Event {i}</a> <time>May {i}</time></li>" for i in range(8))
        + "</ul></main></body></html>"
    )
    assert tree is not None
    _drop_unread(tree, _UNREAD_CHROME)
    html = etree.tostring(tree, encoding="unicode")
    assert "<nav" not in html and "<time>May 3</time>" in html


def test_inert_scripts_go_and_json_ld_stays() -> None:
    from lxml import etree

    from netsift.fetch.html import _drop_inert, parse_html

    tree = parse_html(
        '<html><head><script type="application/ld+json">{"@type": "NewsArticle"}</script>'
        "<style>p{}</style></head><body><p>Before<script>track()</script> after</p></body></html>"
    )
    assert tree is not None
    _drop_inert(tree)
    html = etree.tostring(tree, encoding="unicode")
    assert [s.get("type") for s in tree.iter("script")] == ["application/ld+json"]
    assert "track()" not in html and "<style" not in html
    assert "NewsArticle" in html and "Before after" in html


@pytest.mark.parametrize("page_type", ["forum", "listing", "auto"])
def test_a_link_holding_a_control_character_is_kept_as_written(page_type: str) -> None:
    # lxml accepts `&#1;` in an attribute but refuses to write it back: resolving that link
    # against the page URL must not turn a hostile page into a crash
    html = (
        "<html><body>"
        '<div class="post"><span class="author">ann</span><p>First post text here.</p>'
        '<a href="p&#1;x">odd link</a></div>'
        '<div class="post"><span class="author">bob</span><p>A reply to it.</p></div>'
        "</body></html>"
    )
    result = extract_html(
        html, url="https://forum.example/t/1", format="markdown", page_type=page_type
    )
    assert "First post text here." in result.content


_STORY = "".join(
    f"<p>Paragraph {i} of the report tells how the harbour, the ferries and the fish market "
    f"changed over the decades, with numbers, names and places, sentence after sentence.</p>"
    for i in range(8)
)
_STAGED_PAGES = {
    "article": ARTICLE,
    "pruned": (
        "<html><body><main><article><h1>Harbour report</h1>" + _STORY + "</article>"
        "<div class='comment-list'><p>First! Great report on the harbour and the market.</p>"
        "</div><div class='infinite-scroll'><article><p>Next story: the bridge.</p></article>"
        "</div><ol id='comments'><li>A reader wrote a long comment about ferries.</li></ol>"
        "</main></body></html>"
    ),
    "short": "<html><body><div><span>Opening hours</span> Monday to Friday, 9 to 5.</div>"
    "<ul><li><a href='/a'>About</a></li><li><a href='/b'>Contact</a></li></ul></body></html>",
    "thin": (
        "<html><body><div class='menu'>"
        + "".join(f"<a href='/s{i}'>Section number {i} of the site</a> " for i in range(60))
        + "</div><p>A single short line of actual content on this page here.</p>"
        "<iframe src='https://video.example/embed/1'></iframe></body></html>"
    ),
    "forum": (
        "<html><head><script type='application/ld+json'>"
        '{"@type": "DiscussionForumPosting", "headline": "Ferry times"}</script></head><body>'
        + "".join(
            f"<div class='comment'><p>Reply {i}: the early ferry leaves at six and the late "
            f"one at ten, except on holidays when it does not run at all.</p></div>"
            for i in range(5)
        )
        + "</body></html>"
    ),
}


@pytest.mark.parametrize("page", sorted(_STAGED_PAGES))
@pytest.mark.parametrize(
    "options",
    [
        {"include_comments": False},
        {"include_comments": True},
        {"include_comments": False, "favor_precision": True},
    ],
)
@pytest.mark.parametrize("fmt", ["text", "markdown", "html"])
def test_trafilatura_stages_match_trafilatura_extract(
    page: str, options: dict[str, bool], fmt: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """netsift runs trafilatura's stages itself to skip discarded work: never another output,
    except where trafilatura's flattening `baseline` would read the page, which netsift's
    structured fallback replaces (compared with trafilatura's own run without a baseline)."""
    from copy import deepcopy

    import trafilatura
    import trafilatura.core
    from lxml import etree

    from netsift.fetch.dom import run_trafilatura
    from netsift.fetch.fallback import read_fallback
    from netsift.fetch.html import parse_html

    tree = parse_html(_STAGED_PAGES[page])
    assert tree is not None
    before = etree.tostring(tree)
    monkeypatch.setattr(trafilatura.core, "baseline", lambda _: (etree.Element("body"), "", 0))
    expected = trafilatura.extract(
        deepcopy(tree),
        url="https://site.example/p",
        output_format={"text": "txt"}.get(fmt, fmt),
        include_tables=True,
        include_links=fmt != "text",
        include_formatting=fmt != "text",
        include_images=False,
        deduplicate=False,
        include_comments=options["include_comments"],
        favor_precision=options.get("favor_precision", False),
    )
    got = run_trafilatura(tree, "https://site.example/p", fmt, options)  # type: ignore[arg-type]
    fallback = read_fallback(deepcopy(tree), fmt)  # type: ignore[arg-type]
    assert got in ((expected or "").strip(), fallback.content)
    assert etree.tostring(tree) == before  # the caller's tree is left as it was


def test_readability_is_skipped_only_when_it_cannot_win(monkeypatch: pytest.MonkeyPatch) -> None:
    from netsift.fetch import dom, stages
    from netsift.fetch.html import parse_html

    if not stages.SUPPORTED:
        pytest.skip("this trafilatura release is run through its public call")

    def no_readability(*args: object) -> None:
        raise AssertionError("readability ran")

    monkeypatch.setattr(stages, "try_readability", no_readability)
    story = parse_html(f"<html><body><main>{_STORY}</main></body></html>")
    assert story is not None
    assert "Paragraph 7" in dom.run_trafilatura(story, None, "text", {"include_comments": False})
    thin = parse_html(_STAGED_PAGES["thin"])
    assert thin is not None
    with pytest.raises(AssertionError, match="readability ran"):
        dom.run_trafilatura(thin, None, "text", {"include_comments": False})


_FILLER = "<p>" + "Tidewater keeps every queue on disk and replays it after a crash. " * 4 + "</p>"


def _article(inner: str, fmt: str = "markdown") -> str:
    html = f"<html><body><article><h1>Queues</h1>{_FILLER}{inner}{_FILLER}</article></body></html>"
    return extract_html(html, url="https://site.example/docs/q.html", format=fmt).content  # type: ignore[arg-type]


_CAPTIONED = (
    "<table><caption>Prices</caption><tr><th>Plan</th><th>Price</th></tr>"
    "<tr><td>Free</td><td>0</td></tr><tr><td>Pro</td><td>10</td></tr></table>"
)


@pytest.mark.parametrize("page_type", ["article", "listing"])
def test_a_captioned_table_has_one_separator_and_its_caption_above(page_type: str) -> None:
    html = f"<html><body><main><h1>Plans</h1>{_FILLER}{_CAPTIONED}{_FILLER}</main></body></html>"
    md = extract_html(html, url=None, format="markdown", page_type=page_type).content
    assert "Prices\n\n| Plan | Price |\n" in md
    assert md.count("|---|") + md.count("| --- |") == 1


def test_text_has_no_pipe_tables() -> None:
    text = _article(_CAPTIONED, "text")
    assert "Plan\tPrice\nFree\t0\nPro\t10" in text  # cells separated by tabs
    assert "|" not in text


@pytest.mark.parametrize("fmt", ["markdown", "text"])
def test_inline_emphasis_on_its_own_source_line_stays_in_its_paragraph(fmt: str) -> None:
    content = _article("<div>\n  Start the worker\n  <em>before</em>\n  the broker.\n</div>", fmt)
    expected = (
        "Start the worker *before* the broker."
        if fmt == "markdown"
        else ("Start the worker before the broker.")
    )
    assert expected in content


def test_preformatted_text_keeps_its_line_breaks() -> None:
    md = _article("<pre><code>line one\n    line two</code></pre>")
    assert "line one\n    line two" in md


_FERRIES = (
    "The harbour ferries now run on batteries charged from the tidal array, the council said."
)


@pytest.mark.parametrize("wrapper", ["article", "main", "section", "header"])
@pytest.mark.parametrize("fmt", ["markdown", "text", "html"])
def test_a_page_without_a_body_tag_is_read(wrapper: str, fmt: ContentFormat) -> None:
    # libxml2 kept an HTML5 element it did not know in the head when no <body> came first
    html = f"<title>Ferries</title><{wrapper}><h1>Harbour news</h1><p>{_FERRIES}</p></{wrapper}>"
    content = extract_html(html, url=None, format=fmt).content
    assert "tidal array" in content and "Harbour news" in content


def test_a_lone_element_is_html_and_text_without_tags_is_not() -> None:
    assert "tidal array" in extract_html(f"<p>{_FERRIES}</p>", url=None, format="text").content
    assert extract_html(_FERRIES, url=None, format="text").content == ""
