"""Text selections written as walks instead of XPath: libxml2 builds `.//p//text()` by merging
each element's text nodes into one set, checking each against all before (quadratic: seconds on
bench/hostile.py's 50,000 paragraphs). Each walk must select what its XPath selects."""

from __future__ import annotations

import pytest
from lxml import etree

from netsift.fetch.html import parse_html
from netsift.fetch.pagetype import _CONTROL_CHARS, _control_text
from netsift.fetch.stages import _has_paragraph_text

CONTROLS = etree.XPath(".//button//text() | .//a//text()", smart_strings=False)

PAGES = [
    "<p>plain</p>",
    "<div><p></p><p><!-- a comment --></p></div>",
    "<div><p><img src=x></p></div>",
    "<div><p><span><b>deep</b></span> tail</p></div>",
    "<div>no paragraph <a href=/a>a link</a> and <button>a button</button></div>",
    "<div><button>Buy <a href=/cart>now <b>here</b></a> today</button> after</div>",
    "<div><a href=/x>one<!-- c -->two</a><a href=/y></a><a href=/z> </a></div>",
    "<nav><a href=/1>Home</a></nav><main><a href=/2>Docs <span>and</span> more</a></main>",
]


def _body(fragment: str) -> etree._Element:
    tree = parse_html(f"<html><body>{fragment}</body></html>")
    assert tree is not None
    body = tree.find("body")
    assert body is not None
    return body


@pytest.mark.parametrize("fragment", PAGES)
def test_paragraph_text_is_found_as_the_xpath_finds_it(fragment: str) -> None:
    body = _body(fragment)
    assert _has_paragraph_text(body) == bool(body.xpath(".//p//text()"))


@pytest.mark.parametrize("fragment", PAGES)
def test_control_text_is_what_the_xpath_selects(fragment: str) -> None:
    body = _body(fragment)
    assert _control_text(body) == CONTROLS(body)


def test_control_text_stops_once_it_holds_what_is_searched() -> None:
    links = "".join(f"<a href=/p{i}>link number {i}</a>" for i in range(5_000))
    body = _body(f"<ul>{links}</ul><button>Add to cart</button>")
    texts = _control_text(body)
    everything = CONTROLS(body)
    assert len(texts) < len(everything)  # the button at the end is past what is searched
    assert " ".join(texts)[:_CONTROL_CHARS] == " ".join(everything)[:_CONTROL_CHARS]
