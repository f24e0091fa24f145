"""Link-preview metadata: every source, its fallback order, and pages that try to break it."""

from __future__ import annotations

import json
import time

import pytest

from netsift.fetch.dates import parse_date, read_date
from netsift.fetch.jsonld import MAX_JSON_LD_BLOCKS
from netsift.fetch.metadata import MAX_DESCRIPTION, extract_metadata

URL = "https://www.news.example/world/2024/story.html?ref=home"

ARTICLE = """<!DOCTYPE html>
<html lang="en-GB">
<head>
  <meta charset="utf-8">
  <title>Story title | Example News</title>
  <meta name="description" content="Plain meta description.">
  <meta name="author" content="Jane   Doe">
  <meta property="og:title" content="Rivers  rise &amp;amp; fall
     across the valley">
  <meta property="og:description" content="OpenGraph description &mdash; the best one.">
  <meta property="og:type" content="article">
  <meta property="og:url" content="https://www.news.example/world/story">
  <meta property="og:site_name" content="Example News">
  <meta property="og:image" content="/images/rivers.jpg">
  <meta property="og:image:width" content="1200">
  <meta property="og:locale" content="en_GB">
  <meta property="article:published_time" content="2024-03-05T08:30:00+01:00">
  <meta name="twitter:card" content="summary_large_image">
  <meta name="twitter:site" content="@examplenews">
  <meta property="twitter:title" content="Twitter title">
  <meta name="twitter:image" content="https://cdn.news.example/tw.jpg">
  <link rel="canonical" href="/world/story">
  <link rel="icon" type="image/png" href="/static/favicon-32.png">
  <link rel="apple-touch-icon" href="/static/touch.png">
  <script type="application/ld+json">
  {"@context": "https://schema.org", "@type": "NewsArticle",
   "headline": "Rivers rise", "datePublished": "2024-03-05T07:30:00Z",
   "author": [{"@type": "Person", "name": "Jane Doe"}, {"@type": "Person", "name": "Sam Roe"}],
   "publisher": {"@type": "Organization", "name": "Example News Group"},
   "image": ["https://www.news.example/images/ld.jpg"]}
  </script>
</head>
<body>
  <nav><a href="/">Home</a></nav>
  <article><h1>Rivers rise</h1><time datetime="2024-03-01">1 March</time><p>Text.</p></article>
</body>
</html>"""


def test_a_full_article_card() -> None:
    meta = extract_metadata(ARTICLE, URL)
    assert meta.title == "Rivers rise & fall across the valley"
    assert meta.description == "OpenGraph description — the best one."
    assert meta.site_name == "Example News"
    assert meta.image == "https://www.news.example/images/rivers.jpg"
    assert meta.url == URL
    assert meta.type == "article"
    assert meta.author == "Jane Doe"
    assert meta.published == "2024-03-05T08:30:00+01:00"
    assert meta.lang == "en-GB"
    assert meta.canonical == "https://www.news.example/world/story"
    assert meta.favicon == "https://www.news.example/static/favicon-32.png"
    assert meta.twitter == {
        "twitter:card": "summary_large_image",
        "twitter:site": "@examplenews",
        "twitter:title": "Twitter title",
        "twitter:image": "https://cdn.news.example/tw.jpg",
    }
    assert meta.opengraph["og:image"] == "https://www.news.example/images/rivers.jpg"
    assert meta.opengraph["og:image:width"] == "1200"
    assert meta.opengraph["article:published_time"] == "2024-03-05T08:30:00+01:00"
    assert len(meta.json_ld) == 1
    assert meta.json_ld[0]["headline"] == "Rivers rise"


def _page(head: str, body: str = "") -> str:
    return f"<html><head>{head}</head><body>{body}</body></html>"


def test_fallbacks_when_only_basic_html_is_there() -> None:
    html = _page(
        "<title>  Just a\n title </title><meta name='description' content='Desc'>",
        "<h1>Heading</h1>",
    )
    meta = extract_metadata(html, "https://blog.example.org/post")
    assert meta.title == "Just a title"
    assert meta.description == "Desc"
    assert meta.site_name == "blog.example.org"
    assert meta.favicon == "https://blog.example.org/favicon.ico"
    assert (meta.image, meta.author, meta.published, meta.lang, meta.type) == (None,) * 5
    assert meta.canonical is None


def test_site_name_drops_www_from_the_host() -> None:
    assert extract_metadata(_page(""), "https://www.example.org/a").site_name == "example.org"


def test_title_falls_back_to_twitter_then_title_then_h1() -> None:
    h1 = _page("", "<h1>The <em>H1</em></h1>")
    assert extract_metadata(h1, None).title == "The H1"
    title = _page("<title>Doc</title>", "<h1>The H1</h1>")
    assert extract_metadata(title, None).title == "Doc"
    twitter = _page('<meta name="twitter:title" content="Tw"><title>Doc</title>')
    assert extract_metadata(twitter, None).title == "Tw"


def test_description_order_twitter_before_meta() -> None:
    html = _page(
        '<meta name="description" content="meta"><meta name="twitter:description" content="tw">'
    )
    assert extract_metadata(html, URL).description == "tw"


def test_json_ld_graph_is_flattened_and_fills_the_gaps() -> None:
    graph = {
        "@context": "https://schema.org",
        "@graph": [
            {"@type": "WebSite", "name": "Graph Site", "url": "https://g.example/"},
            {"@type": "BreadcrumbList", "itemListElement": []},
            {
                "@type": ["BlogPosting"],
                "headline": "Post",
                "datePublished": "2023-11-02",
                "author": {"@type": "Person", "name": "Ada Lovelace"},
                "image": {"@type": "ImageObject", "url": "/img/post.png"},
                "description": "From JSON-LD",
            },
        ],
    }
    html = _page(f'<script type="application/ld+json">{json.dumps(graph)}</script>')
    meta = extract_metadata(html, "https://g.example/posts/1")
    assert [item["@type"] for item in meta.json_ld] == [
        "WebSite",
        "BreadcrumbList",
        ["BlogPosting"],
    ]
    assert meta.author == "Ada Lovelace"
    assert meta.published == "2023-11-02"
    assert meta.image == "https://g.example/img/post.png"
    assert meta.type == "BlogPosting"
    assert meta.description == "From JSON-LD"
    assert meta.site_name == "Graph Site"


def test_json_ld_nested_and_multiple_authors_and_publisher() -> None:
    data = {
        "@type": "Article",
        "author": [
            {"@type": "Person", "name": "A. One"},
            "B. Two",
            {"@type": "Organization", "name": ["C. Three"]},
            {"@type": "Person"},
            {"@type": "Person", "name": "A. One"},
        ],
        "publisher": [{"@type": "Organization", "name": "Pub &amp; Co"}],
    }
    html = _page(f'<script type="application/ld+json">{json.dumps(data)}</script>')
    meta = extract_metadata(html, URL)
    assert meta.author == "A. One, B. Two, C. Three"
    assert meta.site_name == "Pub & Co"


def test_broken_json_ld_is_repaired_or_skipped() -> None:
    head = (
        '<script type="application/ld+json">{"@type": "Thing", oops</script>'
        '<script type="application/ld+json">\n<!--\n{"@type": "Article", "headline": "A",'
        ' "author": {"name": "Commented"},}\n-->\n</script>'
        '<script type="application/ld+json">//<![CDATA[\n{"@type": "Event", "name": "E"}\n//]]>'
        "</script>"
        '<script type="APPLICATION/LD+JSON ">[{"@type": "Person", "name": "P"}, 3, "x"]</script>'
        '<script type="application/json">{"@type": "NotLd"}</script>'
    )
    meta = extract_metadata(_page(head), URL)
    assert [item["@type"] for item in meta.json_ld] == ["Article", "Event", "Person"]
    assert meta.author == "Commented"


def test_json_ld_is_bounded_in_count_and_size() -> None:
    big = json.dumps({"@type": "Thing", "blob": "x" * 150_000})
    blocks = [f'<script type="application/ld+json">{big}</script>']
    blocks += [
        f'<script type="application/ld+json">{{"@type": "Thing", "n": {i}}}</script>'
        for i in range(50)
    ]
    meta = extract_metadata(_page("".join(blocks)), URL)
    assert len(meta.json_ld) <= MAX_JSON_LD_BLOCKS
    assert all("blob" not in item for item in meta.json_ld)
    assert meta.json_ld[0]["n"] == 0


def test_hostile_urls_are_dropped_and_the_next_source_is_used() -> None:
    head = (
        '<meta property="og:image" content="javascript:alert(document.cookie)">'
        '<meta property="og:image:url" content="data:image/png;base64,AAAA">'
        '<meta name="twitter:image" content=" //cdn.example.net/safe.png ">'
        '<meta property="og:url" content="javascript:void(0)">'
        '<link rel="icon" href="data:image/x-icon;base64,AAAA">'
        '<link rel="shortcut icon" href="java&#09;script:alert(1)">'
        '<link rel="apple-touch-icon-precomposed" href="/touch.png">'
        '<link rel="canonical" href="file:///etc/passwd">'
    )
    meta = extract_metadata(_page(head), "https://site.example/a/b")
    assert meta.image == "https://cdn.example.net/safe.png"
    assert meta.favicon == "https://site.example/touch.png"
    assert meta.canonical is None
    assert "og:image" not in meta.opengraph
    assert "og:image:url" not in meta.opengraph
    assert "og:url" not in meta.opengraph
    assert meta.twitter["twitter:image"] == "https://cdn.example.net/safe.png"


def test_json_ld_javascript_image_is_dropped() -> None:
    data = {"@type": "Article", "image": ["javascript:alert(1)", {"url": "/ok.png"}]}
    html = _page(f'<script type="application/ld+json">{json.dumps(data)}</script>')
    assert extract_metadata(html, "https://s.example/x").image == "https://s.example/ok.png"


def test_base_href_is_used_to_resolve_urls() -> None:
    head = (
        '<base href="https://static.example.com/assets/">'
        '<meta property="og:image" content="img/a.png"><link rel="canonical" href="../page">'
    )
    meta = extract_metadata(_page(head), "https://site.example/dir/page")
    assert meta.image == "https://static.example.com/assets/img/a.png"
    assert meta.canonical == "https://static.example.com/page"


def test_a_javascript_base_href_is_ignored() -> None:
    head = '<base href="javascript:alert(1)//"><meta property="og:image" content="/a.png">'
    meta = extract_metadata(_page(head), "https://site.example/dir/page")
    assert meta.image == "https://site.example/a.png"


def test_without_a_page_url_only_absolute_urls_survive() -> None:
    head = (
        '<meta property="og:image" content="/relative.png">'
        '<meta name="twitter:image" content="https://abs.example/i.png">'
        '<link rel="canonical" href="/rel">'
    )
    meta = extract_metadata(_page(head), None)
    assert meta.image == "https://abs.example/i.png"
    assert (meta.canonical, meta.favicon, meta.url, meta.site_name) == (None, None, None, None)


def test_og_url_is_the_url_when_no_page_url_is_known() -> None:
    head = '<meta property="og:url" content="https://s.example/story">'
    assert extract_metadata(_page(head), None).url == "https://s.example/story"


def test_a_huge_description_is_bounded_and_fast() -> None:
    huge = ("word " * 2_100_000).strip()  # ≈ 10 MB
    html = _page(f'<meta property="og:description" content="{huge}"><title>T</title>')
    started = time.perf_counter()
    meta = extract_metadata(html, URL)
    elapsed = time.perf_counter() - started
    assert meta.description is not None
    assert len(meta.description) <= MAX_DESCRIPTION
    assert meta.description.endswith("…")
    assert len(meta.opengraph["og:description"]) <= 2000
    assert meta.title == "T"
    assert elapsed < 3.0


def test_entities_are_decoded_and_control_characters_dropped() -> None:
    head = (
        '<meta property="og:title" content="Tom &amp;amp; Jerry&#39;s &quot;day&quot;">'
        '<meta name="description" content="a\x01b\tc\n\n d">'
    )
    meta = extract_metadata(_page(head), URL)
    assert meta.title == 'Tom & Jerry\'s "day"'
    assert meta.description == "ab c d"


def test_meta_keys_are_case_insensitive_and_first_value_wins() -> None:
    head = (
        '<meta property="OG:Title" content="First"><meta property="og:title" content="Second">'
        '<meta property="og:title" content="">'
    )
    assert extract_metadata(_page(head), URL).title == "First"


def test_twitter_card_by_property_or_name() -> None:
    head = '<meta property="twitter:card" content="summary"><meta name="twitter:site" content="@s">'
    assert extract_metadata(_page(head), URL).twitter == {
        "twitter:card": "summary",
        "twitter:site": "@s",
    }


@pytest.mark.parametrize(
    ("head", "lang"),
    [
        ('<meta property="og:locale" content="pt_BR">', "pt-BR"),
        ('<meta http-equiv="content-language" content="de-AT, de">', "de-AT"),
        ('<meta property="og:locale" content="not a language!">', None),
    ],
)
def test_lang_fallbacks(head: str, lang: str | None) -> None:
    assert extract_metadata(_page(head), URL).lang == lang


def test_html_lang_wins() -> None:
    html = '<html lang="fr"><head><meta property="og:locale" content="en_US"></head></html>'
    assert extract_metadata(html, URL).lang == "fr"


def test_article_author_urls_are_not_names() -> None:
    html = _page(
        '<meta property="article:author" content="https://facebook.com/jane">'
        '<meta property="article:author" content="x">'
    )
    assert extract_metadata(html, URL).author is None
    html = _page('<meta property="article:author" content="Jane Roe">')
    assert extract_metadata(html, URL).author == "Jane Roe"


def test_published_falls_back_to_json_ld_then_time_then_meta() -> None:
    time_only = _page("", '<article><time datetime="2022-01-02T03:04:05Z">x</time></article>')
    assert extract_metadata(time_only, URL).published == "2022-01-02T03:04:05+00:00"
    meta_only = _page('<meta name="citation_publication_date" content="2021/7/9">')
    assert extract_metadata(meta_only, URL).published == "2021-07-09"
    ld = '<script type="application/ld+json">{"@type":"Article","datePublished":"2020-05-06"}'
    both = _page(ld + "</script>", '<article><time datetime="2022-01-02">x</time></article>')
    assert extract_metadata(both, URL).published == "2020-05-06"
    bad = _page('<meta property="article:published_time" content="sometime soon">', "")
    assert extract_metadata(bad, URL).published is None


@pytest.mark.parametrize(
    ("value", "iso"),
    [
        ("2024-03-05", "2024-03-05"),
        ("20240305", "2024-03-05"),
        ("2024/3/5", "2024-03-05"),
        ("2024-03", "2024-03"),
        ("2024-03-05T08:30:00Z", "2024-03-05T08:30:00+00:00"),
        ("2024-03-05T08:30:00.123456+02:00", "2024-03-05T08:30:00+02:00"),
        ("2024-03-05 08:30", "2024-03-05T08:30:00"),
        ("Tue, 05 Mar 2024 08:30:00 GMT", "2024-03-05T08:30:00+00:00"),
        ("  2024-03-05  ", "2024-03-05"),
        ("2024-13", None),
        ("2024-02-30", None),
        ("0001-01-01", None),
        ("yesterday", None),
        ("", None),
    ],
)
def test_parse_date(value: str, iso: str | None) -> None:
    assert parse_date(value) == iso


def test_not_html_at_all_gives_an_empty_card() -> None:
    meta = extract_metadata("just some words, no markup", "https://x.example/")
    assert meta.title is None
    assert meta.site_name == "x.example"
    assert meta.json_ld == []


def test_typical_page_is_fast() -> None:
    page = ARTICLE.replace(
        "<p>Text.</p>", "<p>Paragraph of text with <a href='/x'>links</a>.</p>" * 3000
    )
    started = time.perf_counter()
    for _ in range(10):
        extract_metadata(page, URL)
    assert (time.perf_counter() - started) / 10 < 0.1


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        ("3 March 2025", "2025-03-03"),
        ("Mar 3, 2025", "2025-03-03"),
        ("March 3 2025", "2025-03-03"),
        ("  3  Mar   2025 ", "2025-03-03"),
        ("2025-03-03T09:14:51+01:00", "2025-03-03T09:14:51+01:00"),
        ("3 March 1066", None),
        ("sometime in March", None),
    ],
)
def test_a_date_is_read_by_one_rule_for_bylines_and_providers(
    written: str, expected: str | None
) -> None:
    """A byline's date and a search provider's date are read with the same written formats:
    the card keeps what the page says (a time too); a result keeps its day."""
    from netsift.search.providers.dates import iso_date

    assert read_date(written) == expected
    if expected is not None:
        assert iso_date(written) == expected[:10]
