"""`Client.fetch` against the offline web: every kind of page, every way a fetch can fail.

Real HTTP to 127.0.0.1 with the guard on (loopback allowed only through `web_settings`), so
each test runs the production path: pinned resolution, connect-time address checks, redirects,
caps, decoding, dispatch by content type and extraction. Server-side counts prove retries,
caching and robots behaviour; nothing here patches netsift or httpx.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
import tracemalloc
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from netsift.client import Client
from netsift.errors import NetsiftError
from netsift.fetch.fetcher import FetchHooks
from netsift.models import Page
from netsift.params import FetchOptions
from tests.offline_web import documents as docs
from tests.offline_web.fixtures import OfflineWeb, WebSettingsFactory
from tests.offline_web.site import GZIP_OK_TEXT, PAGES

MiB = 1024 * 1024


async def fetch_error(client: Client, url: str, **options: Any) -> NetsiftError:
    with pytest.raises(NetsiftError) as caught:
        await client.fetch(url, **options)
    return caught.value


# Pages ----------------------------------------------------------------------------------------


async def test_article_becomes_markdown_without_clutter(
    web_client: Client, offline_web: OfflineWeb
):
    page = await web_client.fetch(offline_web.url("news.test", "/article"))
    md = page.content
    assert page.status == 200
    assert page.format == "markdown"
    assert page.content_type == "text/html"
    assert page.title == "Harbour town switches its ferries to batteries"
    # structure kept: headings, emphasis, a list, a table, a code block, links
    assert "## How the crossing changed" in md
    assert "### Checking the timetable" in md
    assert "*ninety years*" in md or "_ninety years_" in md
    assert "**Ingrid Solberg**" in md
    assert re.search(r"^[-*] The crossing is quieter", md, re.M)
    assert re.search(r"\|\s*Fuel or energy cost\s*\|\s*£1\.9 million\s*\|\s*£0\.6 million\s*\|", md)
    assert re.search(r"\|\s*Measure\s*\|\s*Diesel \(2022\)\s*\|", md)
    assert "```" in md
    assert 'print(ship["name"], ship["next_departure"])' in md
    assert "[Clean Maritime Fund](https://gov.example/clean-maritime)" in md
    assert f"(http://news.test:{offline_web.port}/kelby/harbour-plan)" in md
    assert "repay its share within eleven years" in md
    # clutter gone: cookie banner, navigation, ads, newsletter, related, comments, footer
    for clutter in (
        "We use cookies",
        "Accept all",
        "Subscribe from £1 a week",
        "Luxury cruise deals",
        "Best broadband deals",
        "Morning Tide newsletter",
        "Related stories",
        "Tidal array completes its first winter",
        "seadog_72",
        "Still waiting for the extra Sunday sailing",
        "Most read",
        "Share on Social",
        "Registered in Scotland",
        "Privacy policy",
        "dataLayer",
    ):
        assert clutter not in md, clutter


async def test_article_metadata_card(web_client: Client, offline_web: OfflineWeb) -> None:
    url = offline_web.url("news.test", "/article")
    page = await web_client.fetch(url)
    card = page.metadata
    origin = f"http://news.test:{offline_web.port}"
    assert card.title == "Harbour town switches its ferries to batteries"
    assert card.description and card.description.startswith("Kelby's three harbour ferries")
    assert card.site_name == "The Coastal Courier"
    assert card.type == "article"
    assert card.author == "Marta Lindqvist"
    assert card.published and card.published.startswith("2024-05-14")
    assert card.lang and card.lang.lower() == "en-gb"
    assert card.canonical == "https://news.example/2024/05/14/kelby-electric-ferries"
    # relative URLs in the page come back absolute, against the page's URL
    assert card.image == f"{origin}/images/kelby-ferry-1200.jpg"
    assert card.favicon == f"{origin}/static/favicon-32.png"
    assert card.twitter.get("twitter:card") == "summary_large_image"
    assert card.twitter.get("twitter:site") == "@coastalcourier"
    assert card.opengraph.get("og:locale") == "en_GB"
    assert [block["@type"] for block in card.json_ld] == ["NewsArticle"]
    assert card.json_ld[0]["author"][0]["name"] == "Marta Lindqvist"


async def test_meta_returns_the_same_card(web_client: Client, offline_web: OfflineWeb) -> None:
    card = await web_client.meta(offline_web.url("blog.test", "/post"))
    assert card.title == "Why our sourdough starter lives in the fridge"
    assert card.site_name == "Crumb & Crust"
    assert card.author == "Priya Natarajan"
    assert card.published and card.published.startswith("2023-11-02")
    assert card.favicon == f"http://blog.test:{offline_web.port}/favicon.ico"
    assert card.image == "https://blog.example/img/starter-jar.jpg"


async def test_blog_post_keeps_the_post_and_drops_the_sidebar(
    web_client: Client, offline_web: OfflineWeb
) -> None:
    page = await web_client.fetch(offline_web.url("blog.test", "/post"))
    assert "## The weekly routine" in page.content
    assert re.search(r"^1\. Take the jar out on Thursday evening", page.content, re.M)
    assert "**two feeds**" in page.content
    for clutter in ("Join 12,000 bakers", "Stand mixers at half price", "Mine went grey"):
        assert clutter not in page.content


async def test_docs_guide_keeps_code_tables_and_heading_tree(
    web_client: Client, offline_web: OfflineWeb
) -> None:
    page = await web_client.fetch(offline_web.url("docs.test", "/guide"))
    md = page.content
    headings = re.findall(r"^(#{1,6}) (Configuration|Queues|Retry policies|Workers)", md, re.M)
    assert [(len(h), name) for h, name in headings] == [
        (1, "Configuration"),
        (2, "Queues"),
        (3, "Retry policies"),
        (2, "Workers"),
    ]
    assert 'backoff = "exponential"' in md
    assert "$ tidewater worker --queues emails,reports --concurrency 4" in md
    assert re.search(r"\|\s*`?exponential`?\s*\|\s*`?base \* 2 \*\* n`?\s*\|", md)
    assert "Environment variables always win over the file" in md  # admonition kept
    assert "API reference" not in md  # sidebar navigation gone
    assert "Built with Sphinx" not in md


@pytest.mark.parametrize("fmt", ["text", "html"])
async def test_other_formats(web_client: Client, offline_web: OfflineWeb, fmt: str) -> None:
    page = await web_client.fetch(offline_web.url("news.test", "/article"), format=fmt)  # type: ignore[arg-type]
    assert page.format == fmt
    assert "How the crossing changed" in page.content
    assert "We use cookies" not in page.content
    if fmt == "text":
        assert "## " not in page.content and "**Ingrid Solberg**" not in page.content
    else:
        assert re.search(r"<h2[^>]*>\s*How the crossing changed", page.content)
        assert "<table" in page.content


@pytest.mark.parametrize("name", list(docs.CHARSET_TEXT))
async def test_charsets_decode_to_the_right_characters(
    web_client: Client, offline_web: OfflineWeb, name: str
) -> None:
    page = await web_client.fetch(offline_web.url("news.test", f"/{name}"))
    assert docs.CHARSET_TEXT[name] in page.content
    assert "\ufffd" not in page.content
    if name == "sjis":
        assert page.title == "日本語のページ"


async def test_pdf_text_and_pages(web_client: Client, offline_web: OfflineWeb) -> None:
    page = await web_client.fetch(offline_web.url("files.test", "/report.pdf"))
    assert page.content_type == "application/pdf"
    assert page.page_type == "pdf"
    assert page.page_count == 2
    assert page.title == docs.PDF_TITLE
    for line in docs.PDF_TEXT:
        assert line in page.content
    assert page.content.index(docs.PDF_TEXT[0]) < page.content.index(docs.PDF_TEXT[1])


async def test_rss_feed(web_client: Client, offline_web: OfflineWeb) -> None:
    page = await web_client.fetch(offline_web.url("blog.test", "/feed.rss"))
    assert page.page_type == "feed"
    assert page.title == "Crumb & Crust"
    assert [entry.title for entry in page.entries] == [
        "Why our sourdough starter lives in the fridge",
        "Rye bread for beginners",
        "Ten ways to get more oven spring",
    ]
    assert page.entries[0].url == "https://blog.example/posts/fridge-starter"
    assert page.entries[0].published and page.entries[0].published.startswith("2023-11-02")
    items = re.findall(r"^[-*] .*$", page.content, re.M)
    assert len(items) == 3
    assert "https://blog.example/posts/rye-basics" in items[1]


async def test_atom_feed(web_client: Client, offline_web: OfflineWeb) -> None:
    page = await web_client.fetch(offline_web.url("blog.test", "/feed.atom"))
    assert page.page_type == "feed"
    assert [entry.title for entry in page.entries] == [
        "Why our sourdough starter lives in the fridge",
        "Scoring patterns for round loaves",
    ]
    assert page.entries[1].author == "Priya Natarajan"
    assert page.entries[1].summary == "Wheat ears, crosses and a single confident slash."
    assert len(re.findall(r"^[-*] .*$", page.content, re.M)) == 2


async def test_json_is_pretty_printed(web_client: Client, offline_web: OfflineWeb) -> None:
    page = await web_client.fetch(offline_web.url("files.test", "/data.json"))
    assert page.page_type == "json"
    pretty = json.dumps(json.loads(docs.DATA_JSON), indent=2, ensure_ascii=False)
    assert pretty in page.content
    assert '\n  "ferries": [' in page.content


async def test_plain_text_and_markdown_come_back_as_they_are(
    web_client: Client, offline_web: OfflineWeb
) -> None:
    text = await web_client.fetch(offline_web.url("files.test", "/notes.txt"))
    assert text.content == docs.NOTES_TXT
    assert text.content_type == "text/plain"
    markdown = await web_client.fetch(offline_web.url("files.test", "/readme.md"))
    assert markdown.content == docs.README_MD
    assert markdown.content_type == "text/markdown"


@pytest.mark.parametrize(
    ("path", "mime"), [("/logo.png", "image/png"), ("/archive.bin", "application/octet-stream")]
)
async def test_binary_types_are_refused_by_name(
    web_client: Client, offline_web: OfflineWeb, path: str, mime: str
) -> None:
    error = await fetch_error(web_client, offline_web.url("files.test", path))
    assert error.code == "unsupported_content_type"
    assert mime in error.message
    assert error.details["content_type"] == mime


async def test_html_served_as_octet_stream_is_sniffed(
    web_client: Client, offline_web: OfflineWeb
) -> None:
    page = await web_client.fetch(offline_web.url("files.test", "/untyped-html"))
    assert page.title == "Served without a content type"
    assert "still recognises it as a web page" in page.content


async def test_gzip_encoded_page_is_decoded(web_client: Client, offline_web: OfflineWeb) -> None:
    page = await web_client.fetch(offline_web.url("big.test", "/gzip-ok"))
    assert GZIP_OK_TEXT in page.content


async def test_page_facts(web_client: Client, offline_web: OfflineWeb) -> None:
    before = datetime.now(UTC)
    page = await web_client.fetch(offline_web.url("news.test", "/article"))
    assert page.url == page.final_url == offline_web.url("news.test", "/article")
    assert page.bytes == len((PAGES / "article.html").read_bytes())
    assert page.content_sha256 == hashlib.sha256(page.content.encode()).hexdigest()
    assert before - timedelta(seconds=1) <= page.fetched_at <= datetime.now(UTC)
    assert page.fetched_at.tzinfo is not None
    assert 0 < page.elapsed_ms < 30_000
    assert page.redirects == []
    assert page.cached is False
    assert page.truncated is False and page.next_start_index is None
    assert page.total_length == len(page.content)


# Pagination -----------------------------------------------------------------------------------


async def test_pagination_is_explicit_and_served_from_the_page_cache(
    web_client: Client, offline_web: OfflineWeb
) -> None:
    url = offline_web.url("files.test", "/long.txt")
    total = len(docs.LONG_TEXT)
    pages: list[Page] = []
    start: int | None = 0
    while start is not None:
        page = await web_client.fetch(url, max_length=20_000, start_index=start)
        pages.append(page)
        start = page.next_start_index
    assert [p.start_index for p in pages] == [0, 20_000, 40_000]
    assert [p.next_start_index for p in pages] == [20_000, 40_000, None]
    assert [p.truncated for p in pages] == [True, True, False]
    assert all(p.total_length == total for p in pages)
    assert "".join(p.content for p in pages) == docs.LONG_TEXT
    assert [p.cached for p in pages] == [False, True, True]
    # the sha is of the whole content, so every slice names the same document
    assert len({p.content_sha256 for p in pages}) == 1
    assert offline_web.state.hits("files.test", "/long.txt") == 1


async def test_start_index_past_the_end_is_invalid(
    web_client: Client, offline_web: OfflineWeb
) -> None:
    url = offline_web.url("files.test", "/notes.txt")
    error = await fetch_error(web_client, url, start_index=10_000)
    assert error.code == "invalid_input"


# Redirects ------------------------------------------------------------------------------------


async def test_redirect_chain_is_recorded(web_client: Client, offline_web: OfflineWeb) -> None:
    page = await web_client.fetch(offline_web.url("redirect.test", "/hop/3"))
    assert page.url == offline_web.url("redirect.test", "/hop/3")
    assert page.final_url == offline_web.url("redirect.test", "/hop/0")
    assert [(r.url, r.status, r.location) for r in page.redirects] == [
        (offline_web.url("redirect.test", "/hop/3"), 302, "/hop/2"),
        (offline_web.url("redirect.test", "/hop/2"), 302, "/hop/1"),
        (offline_web.url("redirect.test", "/hop/1"), 302, "/hop/0"),
    ]
    assert page.title == "Arrived"


async def test_relative_location_and_307(web_client: Client, offline_web: OfflineWeb) -> None:
    page = await web_client.fetch(offline_web.url("redirect.test", "/relative"))
    assert page.final_url == offline_web.url("redirect.test", "/hop/0")
    assert [(r.status, r.location) for r in page.redirects] == [(301, "hop/1"), (302, "/hop/0")]
    page = await web_client.fetch(offline_web.url("redirect.test", "/307"))
    assert page.final_url == offline_web.url("redirect.test", "/hop/0")
    assert [r.status for r in page.redirects] == [307]


async def test_redirect_to_another_pinned_host(web_client: Client, offline_web: OfflineWeb):
    target = offline_web.url("news.test", "/article")
    page = await web_client.fetch(offline_web.url("redirect.test", f"/to?url={target}"))
    assert page.final_url == target
    assert page.title == "Harbour town switches its ferries to batteries"


async def test_redirect_limits(web_settings: WebSettingsFactory, offline_web: OfflineWeb):
    async with Client(web_settings(max_redirects=3)) as client:
        page = await client.fetch(offline_web.url("redirect.test", "/hop/3"))
        assert len(page.redirects) == 3
        error = await fetch_error(client, offline_web.url("redirect.test", "/hop/4"))
        assert error.code == "too_many_redirects"
        assert offline_web.state.hits("redirect.test", "/hop/0") == 1  # only the allowed chain
        error = await fetch_error(client, offline_web.url("redirect.test", "/loop-a"))
        assert error.code == "too_many_redirects"


async def test_redirect_loop_with_default_limit(web_client: Client, offline_web: OfflineWeb):
    error = await fetch_error(web_client, offline_web.url("redirect.test", "/loop-a"))
    assert error.code == "too_many_redirects"
    assert offline_web.state.hits("redirect.test", "/loop-a") <= 6


# Statuses and retries -------------------------------------------------------------------------


@pytest.mark.parametrize("status", [404, 410, 500])
async def test_error_statuses(
    web_settings: WebSettingsFactory, offline_web: OfflineWeb, status: int
) -> None:
    async with Client(web_settings(retries=0)) as client:
        error = await fetch_error(client, offline_web.url("status.test", f"/{status}"))
    assert error.code == "http_error"
    assert error.details["status"] == status
    assert str(status) in error.message
    assert offline_web.state.hits("status.test", f"/{status}") == 1


@pytest.mark.parametrize("status", [404, 500])
async def test_error_pages_are_read_as_pages_when_asked_and_only_then(
    web_settings: WebSettingsFactory, offline_web: OfflineWeb, status: int
) -> None:
    url = offline_web.url("status.test", f"/{status}")
    async with Client(web_settings(retries=0)) as client:
        page = await client.fetch(url, error_pages=True)
        error = await fetch_error(client, url)  # not served from the error page just read
    assert page.status == status and page.url == url
    assert error.code == "http_error" and error.details["status"] == status
    assert offline_web.state.hits("status.test", f"/{status}") == 2


@pytest.mark.parametrize("status", [503, 429])
async def test_retry_after_is_honoured_then_reported(
    web_settings: WebSettingsFactory, offline_web: OfflineWeb, status: int
) -> None:
    async with Client(web_settings(retries=1)) as client:
        started = time.monotonic()
        error = await fetch_error(client, offline_web.url("status.test", f"/{status}"))
        elapsed = time.monotonic() - started
    assert error.code == "http_error"
    assert error.details["status"] == status
    assert error.retryable is True
    assert offline_web.state.hits("status.test", f"/{status}") == 2
    assert elapsed >= 0.9  # Retry-After: 1 was waited out


async def test_flaky_page_succeeds_after_a_retry(web_client: Client, offline_web: OfflineWeb):
    page = await web_client.fetch(offline_web.url("status.test", "/flaky"))
    assert page.title == "Flaky but fine"
    assert offline_web.state.hits("status.test", "/flaky") == 2


# Time and size caps ---------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/drip", "/stall"])
async def test_slow_bodies_time_out_within_the_deadline(
    web_client: Client, offline_web: OfflineWeb, path: str
) -> None:
    deadline = 2.0
    started = time.monotonic()
    error = await fetch_error(web_client, offline_web.url("slow.test", path), timeout=deadline)
    elapsed = time.monotonic() - started
    assert error.code == "timeout"
    assert elapsed < deadline + 2


async def test_slow_answer_inside_the_deadline(web_client: Client, offline_web: OfflineWeb):
    page = await web_client.fetch(offline_web.url("slow.test", "/slow?delay=0.5"), timeout=5)
    assert "took 0.5 seconds" in page.content


async def test_settings_timeout_applies(web_settings: WebSettingsFactory, offline_web: OfflineWeb):
    async with Client(web_settings(timeout=1.5, retries=0)) as client:
        started = time.monotonic()
        error = await fetch_error(client, offline_web.url("slow.test", "/slow?delay=5"))
    assert error.code == "timeout"
    assert time.monotonic() - started < 3.5


@pytest.mark.parametrize("path", ["/huge", "/huge-declared"])
async def test_huge_bodies_are_too_large(
    web_client: Client, offline_web: OfflineWeb, path: str
) -> None:
    started = time.monotonic()
    error = await fetch_error(web_client, offline_web.url("big.test", path), max_bytes=MiB)
    assert error.code == "too_large"
    assert time.monotonic() - started < 10


async def test_default_cap_refuses_a_20_mib_page(
    web_settings: WebSettingsFactory, offline_web: OfflineWeb
) -> None:
    async with Client(web_settings(max_bytes=10 * MiB)) as client:
        error = await fetch_error(client, offline_web.url("big.test", "/huge"))
    assert error.code == "too_large"


@pytest.mark.parametrize("path", ["/gzip-bomb", "/brotli-bomb", "/zstd-bomb"])
async def test_compression_bombs_are_too_large_in_bounded_memory(
    web_client: Client, offline_web: OfflineWeb, path: str
) -> None:
    tracemalloc.start()
    try:
        error = await fetch_error(web_client, offline_web.url("big.test", path))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert error.code == "too_large"
    assert peak < 64 * MiB, f"peak {peak / MiB:.1f} MiB while inflating {path}"


async def test_a_digest_is_computed_where_the_page_is_extracted(
    web_client: Client, offline_web: OfflineWeb
) -> None:
    """A crawl's fingerprint comes back with the extraction (the compute pool's worker, for an
    HTML page); a page served from the recent copies was not extracted again: no value."""
    from netsift.crawl import dedupe
    from netsift.fetch.content import Digest

    url = offline_web.url("links.test", "/docs/guide.html")
    digest = Digest(dedupe.page_digest)
    page = await web_client.fetcher.fetch(FetchOptions(url=url), FetchHooks(digest=digest))
    anchors = [link.text for link in page.links]
    assert digest.value == dedupe.page_digest(page.content, anchors)
    again = Digest(dedupe.page_digest)
    again_page = await web_client.fetcher.fetch(FetchOptions(url=url), FetchHooks(digest=again))
    assert again_page.content == page.content
    assert again.value is None
