"""Page.links: a page's way onward, as a browser would follow it, bounded."""

from __future__ import annotations

import netsift
from netsift.fetch.fetcher import extract_content
from netsift.fetch.links import MAX_LINKS, MAX_TEXT

PAGE = "https://site.example/docs/guide.html"
FEED = "https://site.example/feed.xml"


def links_of(body: str, url: str | None = PAGE) -> list[tuple[str, str]]:
    return [(link.url, link.text) for link in netsift.extract(body, url=url).links]


def test_links_resolve_against_the_page_and_lose_their_fragment() -> None:
    body = '<a href="other.html#x">Other</a> <a href="../api/?q=1">API</a> <a href="#top">Top</a>'
    assert links_of(body) == [
        ("https://site.example/docs/other.html", "Other"),
        ("https://site.example/api/?q=1", "API"),
        (PAGE, "Top"),
    ]


def test_base_href_wins_over_the_page_url() -> None:
    body = '<head><base href="https://cdn.example/v2/"></head><a href="x">X</a>'
    assert links_of(body) == [("https://cdn.example/v2/x", "X")]


def test_only_http_links_are_kept_each_once_with_the_first_text_that_says_something() -> None:
    body = (
        '<a href="mailto:a@b.c">mail</a><a href="javascript:go()">js</a>'
        '<a href="tel:123">tel</a><a href="data:text/html,x">data</a>'
        '<a href="/a"><img src="i.png"></a><a href="/a">  The   A  page </a><a href="/a">again</a>'
        '<a href="http://[::1">broken</a>'
    )
    assert links_of(body) == [("https://site.example/a", "The A page")]


def test_without_a_page_url_only_absolute_links_survive() -> None:
    body = '<a href="rel.html">r</a><a href="https://x.example/">x</a>'
    assert links_of(body, url=None) == [("https://x.example/", "x")]


def test_anchor_text_is_capped() -> None:
    body = f'<a href="/long">{"word " * 200}</a>'
    (link,) = links_of(body)
    assert len(link[1]) == MAX_TEXT


def test_a_link_farm_keeps_the_first_links_and_says_how_many_it_dropped() -> None:
    body = "".join(f'<a href="/p{i}">{i}</a>' for i in range(MAX_LINKS + 7))
    page = netsift.extract(body, url=PAGE)
    assert len(page.links) == MAX_LINKS
    assert page.links[-1].url == f"https://site.example/p{MAX_LINKS - 1}"
    assert f"netsift kept the first {MAX_LINKS:,} of {MAX_LINKS + 7:,} links" in page.warnings


def test_a_feed_lists_its_entries_as_links() -> None:
    feed = (
        '<?xml version="1.0"?><rss version="2.0"><channel><title>T</title>'
        "<item><title>One</title><link>https://site.example/1</link></item>"
        "<item><title>Two</title><link>https://site.example/2</link></item>"
        "<item><title>Dup</title><link>https://site.example/1</link></item>"
        "<item><title>Bad</title><link>javascript:alert(1)</link></item>"
        "</channel></rss>"
    )
    content = extract_content(
        feed.encode(), content_type="application/rss+xml", url=FEED, format="markdown"
    )
    assert content.page_type == "feed"
    assert [(link.url, link.text) for link in content.links] == [
        ("https://site.example/1", "One"),
        ("https://site.example/2", "Two"),
    ]
