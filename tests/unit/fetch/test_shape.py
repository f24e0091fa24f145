"""Short pages keep their shape, bylines become metadata, structured data stays metadata.

Fresh pages, written for these tests (none of them was used to tune the rules)."""

from __future__ import annotations

import pytest

from netsift.fetch.extract import extract


def _page(body: str, head: str = "", title: str = "A page") -> str:
    return (
        f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{title}</title>"
        f"{head}</head><body><nav><a href='/'>Home</a> <a href='/login'>Sign in</a></nav>"
        f"{body}<footer>© 2026 Example Press</footer></body></html>"
    )


SHORT_STORY = _page(
    "<main><article><h1>Ferry service resumes on the north route</h1>"
    "<p class='byline'>By Maren Holt, transport reporter</p>"
    "<p>The north ferry runs again from Monday after a month of repairs to its landing.</p>"
    "<p>Tickets bought for the cancelled crossings are valid until June.</p>"
    "</article></main>",
    title="Ferry service resumes",
)


def test_a_short_story_keeps_its_heading_and_paragraphs() -> None:
    page = extract(SHORT_STORY, url="https://harbour.test/ferry")
    blocks = page.content.split("\n\n")
    assert blocks[0] == "# Ferry service resumes on the north route"
    assert blocks[1].startswith("The north ferry runs again from Monday")
    assert blocks[2].startswith("Tickets bought for the cancelled crossings")


def test_a_byline_is_metadata_not_the_first_sentence() -> None:
    page = extract(SHORT_STORY, url="https://harbour.test/ferry")
    assert "Maren Holt" not in page.content
    assert page.metadata.author == "Maren Holt"


def test_a_dateline_block_gives_the_date() -> None:
    html = _page(
        "<article><h1>Library opens late on Thursdays</h1>"
        "<div class='article-meta'><span class='author-name'>Ines Baptiste</span> · "
        "<time datetime='2026-02-11'>11 February 2026</time></div>"
        "<p>From next week the central library stays open until nine on Thursday evenings, "
        "the council said, after a trial last autumn drew more readers than expected.</p>"
        "</article>"
    )
    page = extract(html, url="https://town.test/library")
    assert "Ines Baptiste" not in page.content
    assert page.metadata.author == "Ines Baptiste"
    assert page.metadata.published == "2026-02-11"


def test_a_by_line_inside_the_story_text_stays() -> None:
    html = _page(
        "<article><h1>How the bridge was built</h1>"
        "<p>The bridge was finished in 1932 after four years of work on both banks of the "
        "river, and it still carries most of the traffic into the old town today.</p>"
        "<p>By the end of the decade it was painted green, the colour it keeps.</p></article>"
    )
    page = extract(html, url="https://history.test/bridge")
    assert "By the end of the decade it was painted green" in page.content


@pytest.mark.parametrize(
    ("markup", "expected"),
    [
        ("<ul><li>Flour, 200 g</li><li>Two eggs</li><li>Milk, 300 ml</li></ul>", "- Two eggs"),
        ("<ol><li>Whisk the eggs</li><li>Fold in the flour</li></ol>", "2. Fold in the flour"),
        (
            "<table><tr><th>Size</th><th>Price</th></tr><tr><td>Small</td><td>4 EUR</td></tr>"
            "</table>",
            "| Small | 4 EUR |",
        ),
        ("<pre><code>make pancakes --thin</code></pre>", "```\nmake pancakes --thin\n```"),
        ("<blockquote><p>Never flip twice.</p></blockquote>", "> Never flip twice."),
        ("<h2>Serving</h2>", "## Serving"),
    ],
)
def test_a_short_page_keeps_lists_tables_code_and_quotes(markup: str, expected: str) -> None:
    html = _page(
        f"<main><h1>Pancakes</h1><p>A quick batter for four people.</p>{markup}</main>",
        title="Pancakes",
    )
    page = extract(html, url="https://kitchen.test/pancakes")
    assert expected in page.content


def test_json_ld_never_replaces_or_precedes_the_body() -> None:
    faq = (
        '<script type="application/ld+json">{"@context": "https://schema.org", "@type": '
        '"FAQPage", "mainEntity": [{"@type": "Question", "name": "Do you deliver on '
        'Sundays?", "acceptedAnswer": {"@type": "Answer", "text": "We deliver every day of '
        'the week, Sundays included, between eight in the morning and eight at night."}}]}'
        "</script>"
    )
    html = _page(
        "<main><h1>Delivery at Fennel Grocers</h1><p>Orders placed before noon arrive the "
        "same day.</p><p>Deliveries are free over 40 euros.</p></main>",
        head=faq,
        title="Delivery",
    )
    page = extract(html, url="https://fennel.test/delivery")
    assert page.content.startswith("# Delivery at Fennel Grocers")
    assert "Orders placed before noon arrive the same day." in page.content
    assert "Sundays included" not in page.content
    assert page.metadata.json_ld and page.metadata.json_ld[0]["@type"] == "FAQPage"
    assert not any(w.startswith("structured_data_only") for w in page.warnings)


def test_article_body_in_json_ld_is_metadata_only() -> None:
    ld = (
        '<script type="application/ld+json">{"@type": "NewsArticle", "headline": "Dam '
        'works", "articleBody": "The dam will be closed to walkers for the whole summer while '
        'the spillway is rebuilt, the water board announced on Tuesday."}</script>'
    )
    html = _page("<main><h1>Dam works</h1><p>See the notice board.</p></main>", head=ld)
    page = extract(html, url="https://water.test/dam")
    assert "spillway" not in page.content
    assert "See the notice board." in page.content


def test_a_page_of_structured_data_only_says_so() -> None:
    ld = (
        '<script type="application/ld+json">{"@type": "Recipe", "name": "Plum cake", '
        '"recipeInstructions": "Mix the flour with the butter, add the plums and bake for '
        'forty minutes until golden."}</script>'
    )
    html = (
        f"<html><head><title>Plum cake</title>{ld}</head><body><div id='app'></div></body></html>"
    )
    page = extract(html, url="https://cake.test/plum")
    assert "forty minutes" not in page.content
    assert any(w.startswith("structured_data_only:") for w in page.warnings)
    assert page.metadata.json_ld[0]["name"] == "Plum cake"
