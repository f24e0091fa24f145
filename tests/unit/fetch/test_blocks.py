from __future__ import annotations

import lxml.html
from lxml import etree

from netsift.fetch.blocks import prune_controls


def _node(html: str) -> etree._Element:
    return lxml.html.fromstring(html)


def _text(node: etree._Element) -> str:
    return " ".join(" ".join(node.itertext()).split())


CARDS = "".join(
    f'<li class="card"><h3>Trail shoe model {n}</h3><span>${n}9.00</span>'
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


def test_prune_controls_keeps_a_region_that_is_all_filter() -> None:
    region = _node('<div><div class="filter-results"><p>Every result we found.</p></div></div>')
    prune_controls(region)
    assert "Every result" in _text(region)
