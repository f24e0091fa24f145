"""The article reader: trafilatura's modes chosen by what each one keeps of the page's prose."""

from __future__ import annotations

import lxml.html

from netsift.fetch.article import _prose_chunks
from netsift.fetch.html import extract_html

STORY_URL = "https://news.example/2024/03/18/keyboards"


def _paragraphs(topic: str, count: int) -> str:
    return "".join(
        f"<p>Paragraph {n} about {topic} is a long sentence written for the reader, with enough "
        f"words in it to count as the prose of a story and not as a menu or a card.</p>"
        for n in range(count)
    )


def _story(body: str) -> str:
    return (
        '<html><head><title>Keyboards</title><meta property="og:type" content="article"></head>'
        f"<body><main><article><h1>Keyboards</h1>{body}</article></main></body></html>"
    )


def test_text_after_an_empty_inline_element_survives_the_precise_run() -> None:
    items = "".join(
        f'<li><span class="icon check"></span>Point {n}: each switch pulls out with a small '
        f"tool, so a broken one is replaced in a minute.</li>"
        for n in range(4)
    )
    page = _story(f"{_paragraphs('switches', 3)}<ul>{items}</ul>{_paragraphs('keycaps', 2)}")
    for fmt in ("text", "markdown"):
        content = extract_html(page, url=STORY_URL, format=fmt).content
        assert "about switches" in content
        for n in range(4):
            assert f"Point {n}: each switch pulls out" in content


def test_a_story_inside_an_element_trafilatura_deletes_is_read_with_recall() -> None:
    # an unclosed newsletter popup wraps the rest of the page, its header holding the story
    page = (
        '<html><head><title>Shops</title><meta property="og:type" content="article"></head>'
        '<body><aside class="popup">'
        '<div><p>Subscribe to our letter</p></div><header class="site">'
        f'<article class="entry"><h1>Shops</h1>{_paragraphs("shops", 8)}</article>'
        "</header></aside></body></html>"
    )
    result = extract_html(page, url="https://blog.example/shops", format="text")
    assert result.page_type == "article"
    for n in range(8):
        assert f"Paragraph {n} about shops" in result.content


def test_a_story_in_a_wrapper_named_like_chrome_is_read() -> None:
    # a theme names the wrapper of its entries like a footer: trafilatura deletes the container
    venues = "".join(
        f'<div class="venue"><h3>Venue {n}</h3>{_paragraphs(f"venue {n}", 2)}</div>'
        for n in range(8)
    )
    more = "".join(
        f'<li><a href="/guide/{n}">Another guide to the city, number {n}</a></li>'
        for n in range(15)
    )
    page = (
        '<html><head><title>Venues</title><meta property="og:type" content="article"></head>'
        "<body><div class='page'><h1>Venues</h1><p>Where to eat this year.</p>"
        f"<div class='page-footer'>{venues}</div></div><div class='more'><ul>{more}</ul></div>"
        "</body></html>"
    )
    for fmt in ("text", "markdown", "html"):
        result = extract_html(page, url=STORY_URL, format=fmt)
        assert result.page_type == "article"
        for n in range(8):
            assert f"Paragraph 1 about venue {n}" in result.content


def test_prose_split_over_cards_is_found_by_its_containers() -> None:
    cards = "".join(
        f'<div class="card c{n}"><div class="rich-text">{_paragraphs(f"step {n}", 2)}</div>'
        f'<p class="rich-text">Short note {n}.</p></div>'
        for n in range(4)
    )
    tree = lxml.html.fromstring(
        f'<html><body><div class="intro"><p>Welcome.</p></div>{cards}'
        f'<div class="aside">{_paragraphs("elsewhere", 1)}</div></body></html>'
    )
    chunks = _prose_chunks(tree)
    assert [c.getparent().get("class") for c in chunks] == [f"card c{n}" for n in range(4)]
    one = lxml.html.fromstring(
        f'<html><body><div class="rich-text">{_paragraphs("a", 3)}</div></body></html>'
    )
    assert _prose_chunks(one) == []
