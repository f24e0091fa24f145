from __future__ import annotations

import lxml.html
from lxml import etree

from netsift.fetch.blocks import _region, drop_repeats, prune_controls
from netsift.fetch.boilerplate import prune_boilerplate


def _node(html: str) -> etree._Element:
    return lxml.html.fromstring(html)


def _text(node: etree._Element) -> str:
    return " ".join(" ".join(node.itertext()).split())


CARDS = "".join(
    f'<li class="card"><h3><a href="/p/{n}">Trail shoe model {n}</a></h3><span>${n}9.00</span>'
    f'<a href="/p/{n}">Quick view</a><a href="/tag/running">Running</a></li>'
    for n in range(1, 5)
)


def test_prune_controls_drops_filter_panels_and_card_buttons() -> None:
    region = _node(
        '<div><aside class="x"></aside><div class="product-filters"><h4>Colour</h4>'
        f"<ul><li>Red</li><li>Blue</li></ul></div><ul>{CARDS}</ul></div>"
    )
    prune_controls(region)
    text = _text(region)
    assert "Colour" not in text and "Blue" not in text
    assert "Quick view" not in text
    assert "Trail shoe model 3" in text and "$39.00" in text


def test_prune_controls_keeps_repeated_links_to_one_place_and_prices() -> None:
    region = _node(f"<div><ul>{CARDS}</ul></div>")
    prune_controls(region)
    text = _text(region)
    assert text.count("Running") == 4  # a tag every card links to is what the card is about
    assert "$19.00" in text


def test_prune_controls_keeps_swatch_runs_but_drops_lone_buttons() -> None:
    swatches = "".join(
        f'<li><a href="/cup-{{n}}?colour={c}">{c}</a></li>' for c in ("Sand", "Ink", "Moss")
    )
    cards = "".join(
        f"<li><h3>Cup size {n}</h3><ul>{swatches.format(n=n)}</ul>"
        f'<a href="/cup-{n}">Shop now</a></li>'
        for n in "ABCD"
    )
    region = _node(f"<div><ul>{cards}</ul></div>")
    prune_controls(region)
    text = _text(region)
    assert text.count("Moss") == 4 and "Cup size D" in text
    assert "Shop now" not in text


def test_prune_controls_keeps_a_region_that_is_all_filter() -> None:
    region = _node('<div><div class="filter-results"><p>Every result we found.</p></div></div>')
    prune_controls(region)
    assert "Every result" in _text(region)


def test_utility_classes_do_not_say_chrome() -> None:
    from netsift.fetch.boilerplate import looks_like_boilerplate

    assert not looks_like_boilerplate(_node('<div class="relative overflow-hidden">x</div>'))
    assert not looks_like_boilerplate(_node('<div class="block md:hidden">x</div>'))
    assert looks_like_boilerplate(_node('<div class="hidden">x</div>'))
    assert looks_like_boilerplate(_node('<div class="site-footer overflow-x-hidden">x</div>'))


def test_open_accordions_keeps_questions_and_shows_answers() -> None:
    from netsift.fetch.blocks import open_accordions
    from netsift.fetch.boilerplate import prune_boilerplate

    page = _node(
        "<div><div><button type='button'><h5>How long does setup take?</h5></button>"
        "<div class='text-sm hidden'><p>About a day for most teams.</p></div></div>"
        "<h3><button aria-expanded='false'>Can I cancel</button></h3>"
        "<div hidden><p>Yes, at any time.</p></div>"
        "<button type='submit'>Send</button></div>"
    )
    open_accordions(page)
    prune_boilerplate(page)
    text = _text(page)
    assert "How long does setup take?" in text and "About a day" in text
    assert "Can I cancel" in text and "at any time" in text
    assert "Send" not in text


def test_css_module_and_responsive_classes_say_chrome_by_component_only() -> None:
    from netsift.fetch.boilerplate import looks_like_boilerplate

    assert not looks_like_boilerplate(_node('<div class="PlanCard_header__x1Y2z">x</div>'))
    assert looks_like_boilerplate(_node('<div class="Footer_inner__x1Y2z">x</div>'))
    assert not looks_like_boilerplate(_node('<div class="_hidden_ab1 _hidden-lt-md_ab1">x</div>'))


def test_prune_boilerplate_prunes_inside_a_root_that_looks_like_chrome() -> None:
    page = _node(
        '<div><div class="post-header"><p>The answer is to restart the router.</p>'
        '<nav><a href="/">Home</a></nav><div class="share-bar">Share this</div></div></div>'
    )
    post = page[0]
    prune_boilerplate(post)  # a reader prunes one post, then renders it
    text = _text(post)
    assert "restart the router" in text
    assert "Home" not in text and "Share this" not in text


def test_prune_boilerplate_drops_chrome_nested_in_chrome_with_its_text() -> None:
    page = _node(
        '<div><div class="sidebar"><div class="widget">Popular</div> tail</div>'
        '<p>Body text <span class="social">Like</span>after.</p></div>'
    )
    prune_boilerplate(page)
    assert _text(page) == "Body text after."


def test_block_region_links_made_absolute_and_compared_resolved() -> None:
    cards = "".join(
        f'<li><h3><a href="/plans/{n}">Plan {n} with support</a></h3>'
        f'<a href="{"/compare" if n % 2 else "https://shop.example/compare"}">Compare</a></li>'
        for n in range(1, 5)
    )
    tree = _node(
        f"<html><body><nav><a href='/'>Home</a></nav><main><ul>{cards}</ul></main></body></html>"
    )
    markdown, *_ = _region(tree, "https://shop.example/pricing", "markdown")
    assert "(https://shop.example/plans/3)" in markdown
    text, *_ = _region(tree, "https://shop.example/pricing", "text")
    assert text.count("Compare") == 4  # one place however written: what the cards are about
    assert "Home" not in text


def test_drop_repeats_keeps_one_copy_of_a_responsive_twin() -> None:
    hero = "<h2>Plans built for growing teams</h2><p>Start free, upgrade when you need more.</p>"
    region = _node(
        f'<div><section><div class="hero-wide">{hero}</div><div class="hero-narrow">{hero}'
        "</div></section><p>Compare every plan below.</p></div>"
    )
    drop_repeats(region)
    text = _text(region)
    assert text.count("Plans built for growing teams") == 1
    assert text.count("Start free") == 1 and "Compare every plan" in text


def test_drop_repeats_names_each_card_once_and_keeps_labels_cards_share() -> None:
    cards = "".join(
        f'<li><a href="/mug-{n}"><span>Enamel camp mug {n}2oz</span></a>'
        f'<h3><a href="/mug-{n}">Enamel camp mug {n}2oz</a></h3>'
        f"<p>Stoneware finish</p><span>${n}8.00</span></li>"
        for n in range(1, 5)
    )
    region = _node(f"<div><ul>{cards}</ul></div>")
    drop_repeats(region)
    text = _text(region)
    assert text.count("Enamel camp mug 32oz") == 1
    assert text.count("Stoneware finish") == 4  # each card's own word for its item
    assert "$48.00" in text


def test_drop_repeats_keeps_a_wrapper_and_its_only_child() -> None:
    region = _node("<div><div><p><a href='/a'>A single long enough title</a></p></div></div>")
    drop_repeats(region)
    assert _text(region) == "A single long enough title"


def test_drop_repeats_keeps_twins_far_apart() -> None:
    call = "<p>Talk to our sales team today</p>"
    body = "".join(
        f"<p>Plan detail number {n} with its own long description.</p>" for n in range(12)
    )
    region = _node(f"<div>{call}<div>{body}</div>{call}</div>")
    drop_repeats(region)
    assert _text(region).count("Talk to our sales team today") == 2


def test_accordion_toggles_survive_the_pruning_before_the_block_reader() -> None:
    from netsift.fetch.html import _UNREAD_CHROME, _drop_unread, parse_html

    faq = "".join(
        f"<li><h3><button aria-expanded='false' aria-controls='a{n}'>Is plan {n} billed "
        f"monthly?</button></h3><div id='a{n}' aria-hidden='true'><p>Plan {n} is billed each "
        "month and you can cancel at any time.</p></div></li>"
        for n in range(1, 4)
    )
    tree = parse_html(
        f"<html><body><nav><a href='/'>Home</a></nav><main><h1>Pricing</h1>"
        f"<p>Three plans for every team size.</p><ul>{faq}</ul></main></body></html>"
    )
    assert tree is not None
    _drop_unread(tree, _UNREAD_CHROME)
    text, *_ = _region(tree, None, "text")
    assert "Is plan 2 billed monthly?" in text and "Plan 2 is billed each month" in text
    assert "Home" not in text


def test_open_accordions_finds_the_panel_a_toggle_names() -> None:
    from netsift.fetch.blocks import open_accordions

    page = _node(
        "<div><div class='faq'><h3><button aria-expanded='false' aria-controls='p1'>Does the "
        "plan include support?</button></h3><span class='chevron'></span>"
        "<div id='p1' hidden><p>Yes, email support on every plan.</p></div></div>"
        "<div><button aria-controls='s1'>Next slide</button><p>First slide</p>"
        "<div id='s1' hidden><p>A slide clone</p></div></div></div>"
    )
    open_accordions(page)
    prune_boilerplate(page)
    text = _text(page)
    assert "Does the plan include support?" in text and "email support on every plan" in text
    assert "A slide clone" not in text  # a carousel's arrow names its slides, not an answer
