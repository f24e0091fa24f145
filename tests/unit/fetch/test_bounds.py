"""The structure caps: past each, the rest of the page is dropped and the cut is reported, and
the work stays linear (time(2n)/time(n) near 2, never a wall-clock bound)."""

from __future__ import annotations

from collections.abc import Callable

from netsift.fetch import bounds
from netsift.fetch.extract import extract
from netsift.fetch.html import extract_html, parse_html
from netsift.fetch.links import MAX_LINKS
from tests.offline_web.hostile import many_links, nested_divs, unclosed_divs, wide_element
from tests.timing import least_cpu

# time(4n)/time(n): ~4 when linear, ~16 when quadratic; the margin absorbs a busy host
LINEAR = 8.0


def test_an_element_past_the_attribute_cap_keeps_its_first_attributes():
    text = wide_element(bounds.MAX_ATTRIBUTES + 500).decode()
    cut, warnings = bounds.bound_attributes(text)
    tree = parse_html(cut)
    assert tree is not None
    div = tree.find(".//div")
    assert div is not None and len(div.attrib) == bounds.MAX_ATTRIBUTES
    assert div.get("a999") == "999" and div.get("a1000") is None
    assert div.text == "wide"  # the element and what follows it are still read
    assert warnings == ["an element has 1,500 attributes; netsift read its first 1,000"]


def test_pages_under_the_caps_are_returned_as_they_are():
    text = (
        "<html><body><img src='data:image/png;base64," + "A" * 50_000 + "'><p>x</p></body></html>"
    )
    assert bounds.bound_attributes(text) == (text, [])
    extraction = extract_html(nested_divs(200).decode(), url=None, format="markdown")
    assert extraction.warnings == () and extraction.read_html is None


def test_reading_a_wide_element_is_linear():
    """Both parsers check each attribute against the others: 20,000 took 0.5 s, 40,000 2 s."""

    def read(n: int) -> Callable[[], object]:
        text = wide_element(n).decode()
        return lambda: extract_html(text, url=None, format="markdown")

    small, large = read(20_000), read(80_000)
    small()
    assert least_cpu(large) / max(least_cpu(small), 1e-6) < LINEAR


def test_elements_past_the_cap_are_dropped_and_reported():
    page = extract(many_links(bounds.MAX_ELEMENTS), url="http://links.test/")
    total = bounds.MAX_ELEMENTS * 2 + 5  # li and a per link; html, head, title, body, ul
    assert page.warnings == [  # and of the links read, the first MAX_LINKS are kept
        f"netsift read the first {bounds.MAX_ELEMENTS:,} of {total:,} elements",
        f"netsift kept the first {MAX_LINKS:,} of {bounds.MAX_ELEMENTS // 2 - 3:,} links",
    ]
    assert "link 24996" in page.content and "link 24998" not in page.content


def test_nesting_at_the_parser_limit_is_reported_and_metadata_reads_the_same_tree():
    """libxml2 stops at depth 256; lexbor (metadata) is quadratic in depth, so it reads the
    tree as cut: 40,000 unclosed divs took it 1.5 s, and each doubling four times that."""
    page = extract(unclosed_divs(40_000), url="http://deep.test/")
    assert page.warnings == [
        "the page nests elements 256 deep; netsift read it up to the first element that deep"
    ]
    assert page.title == "t"

    def read(n: int) -> Callable[[], object]:
        body = unclosed_divs(n)
        return lambda: extract(body, url="http://deep.test/")

    small, large = read(40_000), read(160_000)
    small()
    assert least_cpu(large) / max(least_cpu(small), 1e-6) < LINEAR


def test_long_tag_names_cost_what_long_tags_with_spaces_cost():
    """A name pattern before the tag's run let the two trade characters: each 4,000-character
    name backtracked over 2,000 splits, a thousand times the cost of a tag with spaces."""
    names = ("<" + "a" * 4000 + ">") * 200
    spaced = ("<a " + "a " * 1998 + ">") * 200
    bounds.bound_attributes(names)
    assert least_cpu(lambda: bounds.bound_attributes(names)) < 5 * max(
        least_cpu(lambda: bounds.bound_attributes(spaced)), 1e-6
    )


def test_text_that_only_looks_like_a_wide_tag_is_left_alone():
    """In a script, a comment, a title or a quoted value `<` starts no tag: `i<n` then 2,000
    words is code, and a data: URI's SVG is the value of one attribute."""
    code = "var i<n " + "x=1; " * 2000
    svg = "d=&quot;1&quot; " * 1500
    for text in (
        f"<html><head><script>{code}</script></head><body><p>x</p></body></html>",
        f"<html><body><!-- <div {'a ' * 2000}> --><p>x</p></body></html>",
        f"<html><head><title>{code}",
        f"<html><body><img src='data:image/svg+xml,<svg {svg}>'></body></html>",
    ):
        assert bounds.bound_attributes(text) == (text, [])
