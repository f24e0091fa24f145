"""Listing pages keep their item cards: a card run is the content of a listing page, whatever
a card's field classes say about hidden labels, whatever a wrapper's name says, and even when
trafilatura's pick is as long as the region but read the text around the grid instead."""

from __future__ import annotations

import lxml.html

from netsift.fetch.boilerplate import prune_boilerplate
from netsift.fetch.html import extract_html
from netsift.fetch.pagetype import card_run, classify_page

COURSES = [
    ("Data Science: Probability", "Learn probability theory with a case study on a crisis."),
    ("Fundamentals of TinyML", "Machine learning on embedded systems such as phones."),
    ("Business Analytics", "Interpret and communicate data for real business problems."),
    ("AI Essentials for Business", "A foundational understanding of what models can do."),
    ("Advanced Bioconductor", "Genomic visualization and reproducible analysis at scale."),
    ("Leadership in Health", "Turn patient data into knowledge that changes practice."),
    ("Introduction to Python", "Harness and analyze data with the Python language."),
]


def _drupal_listing() -> str:
    """Drupal's card markup: every field whose label is not printed says
    `field--label-hidden`, the title and summary among them."""
    cards = "".join(
        f'<div class="views-row"><article class="node--teaser"><div class="field '
        f'field--name-title field--label-hidden"><h3><a href="/course/{n}">{title}</a></h3>'
        f'</div><div class="field field--name-summary field--label-hidden">{summary}</div>'
        f'<div class="field field--name-price"><div class="field__label">Price</div>'
        f"<div>Free</div></div></article></div>"
        for n, (title, summary) in enumerate(COURSES)
    )
    return (
        "<html><head><title>Courses</title></head><body><nav><a href='/'>Home</a></nav>"
        f"<main><h1>Data Science Courses</h1><div class='view-content'>{cards}</div></main>"
        "<footer>Copyright</footer></body></html>"
    )


def test_hidden_label_fields_are_not_hidden_elements() -> None:
    root = lxml.html.fromstring(
        '<div><div class="field field--label-hidden">Shown text</div>'
        '<div class="field__label visually-hidden">Only for screen readers</div>'
        '<div class="is-hidden">Hidden text</div></div>'
    )
    prune_boilerplate(root)
    text = " ".join(root.itertext())
    assert "Shown text" in text
    assert "Hidden text" not in text and "Only for screen readers" not in text


def test_a_listing_keeps_every_card_title_and_summary() -> None:
    page = extract_html(_drupal_listing(), url="https://school.test/courses", format="text")
    for title, summary in COURSES:
        assert title in page.content and summary in page.content


MOWERS = 24


def _grid_in_a_related_section() -> str:
    """A shop's category page whose whole product grid sits in a section its template names
    `related-product` (holding most of the page: no chrome is that large), with a shop's
    copy of prose about the category beside it, nearly as long as the grid."""
    kind = "acres, with obstacle and rain sensors and a quiet blade"
    models = [(f"KR{160 + n}", f"Robotic lawn mower for {n + 1} {kind}") for n in range(MOWERS)]
    cards = "".join(
        f'<div class="col-md-4 items-listing"><a class="item" href="/p/{sku}">'
        f'<div class="box-sku"><h4>{sku}</h4></div><div class="item-title">{name}</div>'
        f'<div class="item-price">$ {n + 2},099.99</div></a></div>'
        for n, (sku, name) in enumerate(models)
    )
    copy = "".join(
        f"<p>Paragraph {n} of the copy: a robotic mower keeps the lawn short every day, "
        "so the clippings stay small and feed the soil instead of piling up.</p>"
        for n in range(14)
    )
    return (
        "<html><head><title>Robotic lawn mowers</title>"
        '<meta property="og:type" content="article"></head><body>'
        f"<main><h1>Robotic lawn mowers</h1><p>({MOWERS} results)</p>"
        f'<section class="related-product"><div class="row">{cards}</div></section></main>'
        f"<div class='category-copy'>{copy}</div></body></html>"
    )


def test_cards_in_a_chrome_named_section_holding_the_page_are_cards() -> None:
    tree = lxml.html.fromstring(_grid_in_a_related_section())
    body = tree.find("body")
    assert body is not None
    assert len(card_run(body)) == MOWERS
    found = [e for e in classify_page(tree, None).evidence if e.signal == "dom:priced-cards"]
    assert [(e.seen, e.type) for e in found] == [(str(MOWERS), "collection")]


def test_a_listing_read_as_its_cards_when_the_pick_left_them_out() -> None:
    page = extract_html(
        _grid_in_a_related_section(), url="https://shop.test/mowers", format="text",
        page_type="listing",
    )  # fmt: skip
    for n in range(MOWERS):
        assert f"KR{160 + n}" in page.content
        assert f"$ {n + 2},099.99" in page.content
