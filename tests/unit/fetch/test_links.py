"""resolve_links and link_base: links as a browser would follow them."""

from __future__ import annotations

import lxml.html
import pytest

from netsift.fetch.dom import link_base, resolve_links, run_trafilatura
from netsift.fetch.markdown import render

PAGE = "https://site.example/docs/guide.html"


def resolved(href: str, base: str | None = PAGE) -> str | None:
    tree = lxml.html.fromstring(f'<div><p>see <a href="{href}">this</a> now</p></div>')
    resolve_links(tree, base)
    link = tree.find(".//a")
    return None if link is None else link.get("href")


@pytest.mark.parametrize(
    ("href", "expected"),
    [
        ("other.html", "https://site.example/docs/other.html"),
        ("#install", "https://site.example/docs/guide.html#install"),
        ("?page=2#top", "https://site.example/docs/guide.html?page=2#top"),
        ("../api/x.html?a=1&b=2", "https://site.example/api/x.html?a=1&b=2"),
        ("/root.html", "https://site.example/root.html"),
        ("//cdn.example/lib.js", "https://cdn.example/lib.js"),
        ("  other.html\n", "https://site.example/docs/other.html"),
        ("oth\ter.html", "https://site.example/docs/other.html"),
        ("https://elsewhere.example/a b", "https://elsewhere.example/a b"),  # kept as written
        ("https://elsewhere.example/a\t", "https://elsewhere.example/a"),  # but for the noise
        (" https://elsewhere.example/b", "https://elsewhere.example/b"),
        ("mailto:a@b.example", "mailto:a@b.example"),
        ("tel:+15550100", "tel:+15550100"),
        ("data:text/plain,hi", "data:text/plain,hi"),
    ],
)
def test_hrefs_resolve_as_a_browser_would(href: str, expected: str) -> None:
    assert resolved(href) == expected


@pytest.mark.parametrize("href", ["javascript:void(0)", " JavaScript:go()", "#", ""])
def test_script_links_and_bare_hashes_stop_being_links_but_keep_their_text(href: str) -> None:
    tree = lxml.html.fromstring(f'<div><p>see <a href="{href}">this</a> now</p></div>')
    resolve_links(tree, PAGE)
    link = tree.find(".//a")
    assert link is not None and link.get("href") is None  # still an `a` for link density
    assert render(tree, "markdown") == "see this now"


def test_trafilatura_writes_a_dead_link_as_its_text() -> None:
    filler = "<p>" + "Tidewater keeps every queue on disk and replays it after a crash. " * 4
    html = (
        f"<html><body><article>{filler}</p><p>Open the <a href='javascript:go()'>menu</a>, "
        f"run <code>q[0]</code>, see <a href='#'>top</a>.</p>{filler}</p></article></body></html>"
    )
    tree = lxml.html.fromstring(html)
    resolve_links(tree, PAGE)
    md = run_trafilatura(tree, PAGE, "markdown", {})
    assert "Open the menu, run `q[0]`, see top." in md


def test_without_a_base_relative_links_stay_as_written() -> None:
    assert resolved("other.html", None) == "other.html"
    assert resolved("javascript:x()", None) is None  # dead with or without a base


def test_resolving_twice_changes_nothing() -> None:
    tree = lxml.html.fromstring('<div><a href="a.html">a</a><a href="#b">b</a></div>')
    resolve_links(tree, PAGE)
    once = lxml.html.tostring(tree)
    resolve_links(tree, PAGE)
    assert lxml.html.tostring(tree) == once


def page(head: str) -> lxml.html.HtmlElement:
    return lxml.html.fromstring(f"<html><head>{head}</head><body><p>x</p></body></html>")


def test_link_base_is_the_base_href_resolved_against_the_page() -> None:
    assert link_base(page('<base href="/v3/">'), PAGE) == "https://site.example/v3/"
    assert link_base(page('<base href="https://cdn.example/">'), PAGE) == "https://cdn.example/"
    assert link_base(page('<base href="https://cdn.example/">'), None) == "https://cdn.example/"


def test_link_base_ignores_a_base_that_is_not_http() -> None:
    assert link_base(page('<base href="javascript:alert(1)">'), PAGE) == PAGE
    assert link_base(page('<base href="file:///etc/">'), PAGE) == PAGE
    assert link_base(page('<base target="_blank">'), PAGE) == PAGE  # no href: the next counts
    assert link_base(page(""), PAGE) == PAGE
    assert link_base(page('<base href="/v3/">'), None) is None
