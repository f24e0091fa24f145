"""The structured fallback reads a short page's tiers where they are: one copy of the page,
and each tier rendered as one container of its nodes would be.

Fresh pages, written for these tests."""

from __future__ import annotations

from copy import deepcopy

import lxml.html
import pytest
from lxml import etree

from netsift.fetch import fallback
from netsift.fetch.html import parse_html
from netsift.fetch.markdown import TextFormat, render, render_nodes

TEAHOUSE = (
    "<html><head><title>Tea house</title></head><body><nav><a href='/'>Home</a></nav>"
    "<h1>The tea house on Quay Street</h1><p>Open from eight, with bread baked on the "
    "premises and tea from the same Darjeeling estate since 1987.</p>"
    "<ul><li>Scones until noon</li><li>Soup from noon</li></ul>"
    "<p>Tables by the window are kept for walk-ins.</p><q>Best scones</q><q>on the quay</q>"
    "</body></html>"
)


def test_the_fallback_copies_the_page_once(monkeypatch: pytest.MonkeyPatch) -> None:
    copies: list[etree._Element] = []

    def counted(node: etree._Element) -> etree._Element:
        copies.append(node)
        return deepcopy(node)

    monkeypatch.setattr(fallback, "deepcopy", counted)
    tree = parse_html(TEAHOUSE)
    assert tree is not None
    found = fallback.read_fallback(tree, "markdown")
    assert "# The tea house on Quay Street" in found.content
    assert "- Scones until noon" in found.content
    assert len(copies) == 1


@pytest.mark.parametrize("fmt", ["markdown", "text"])
def test_render_nodes_reads_as_one_container_of_copies(fmt: TextFormat) -> None:
    tree = parse_html(TEAHOUSE)
    assert tree is not None
    nodes = [n for n in tree.iter("h1", "p", "ul", "q")]
    container = etree.Element("div")
    for node in nodes:
        copy = deepcopy(node)
        copy.tail = None
        container.append(copy)
    assert render_nodes(nodes, fmt) == render(container, fmt)


def test_the_html_of_a_tier_is_one_div_of_its_nodes() -> None:
    tree = parse_html(TEAHOUSE)
    assert tree is not None
    found = fallback.read_fallback(tree, "html")
    assert found.content.startswith("<div><h1>The tea house")
    assert lxml.html.fromstring(found.content).tag == "div"
    assert "<nav>" not in found.content
