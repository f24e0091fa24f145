"""parse_sitemap: the protocol's shapes, its limits, and the XML and gzip attacks; pure."""

from __future__ import annotations

import gzip
import time
import tracemalloc
import zlib

from netsift.crawl.feeds import MAX_FEEDS, feed_links
from netsift.crawl.sitemaps import SITEMAP_MAX_URLS, parse_sitemap

NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'


def urlset(*rows: str) -> bytes:
    return f'<?xml version="1.0"?><urlset {NS}>{"".join(rows)}</urlset>'.encode()


def test_urlset_with_lastmod():
    parsed = parse_sitemap(
        urlset(
            "<url><loc> https://a.test/x </loc><lastmod>2026-01-02</lastmod></url>",
            "<url><loc>https://a.test/y</loc></url>",
        )
    )
    assert parsed.kind == "urlset" and parsed.problem is None
    assert [(e.url, e.lastmod) for e in parsed.entries] == [
        ("https://a.test/x", "2026-01-02"),
        ("https://a.test/y", None),
    ]


def test_index_gzip_and_plain_text():
    index = f"<sitemapindex {NS}><sitemap><loc>https://a.test/s1.xml</loc></sitemap></sitemapindex>"
    parsed = parse_sitemap(gzip.compress(index.encode()))
    assert parsed.kind == "index" and [e.url for e in parsed.entries] == ["https://a.test/s1.xml"]
    text = parse_sitemap(b"https://a.test/1\n\nhttps://a.test/2\njavascript:alert(1)\n")
    assert text.kind == "text" and [e.url for e in text.entries] == [
        "https://a.test/1",
        "https://a.test/2",
    ]


def test_non_http_locs_are_dropped():
    parsed = parse_sitemap(urlset("<url><loc>file:///etc/passwd</loc></url>"))
    assert parsed.entries == []


def test_external_entities_are_never_resolved():
    body = (
        b'<?xml version="1.0"?><!DOCTYPE urlset [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>'
        + urlset(
            "<url><loc>https://a.test/&xxe;</loc></url>", "<url><loc>https://a.test/ok</loc></url>"
        ).split(b"?>", 1)[1]
    )
    parsed = parse_sitemap(body)
    assert [e.url for e in parsed.entries] == ["https://a.test/ok"]


def test_billion_laughs_is_refused_not_expanded():
    entities = '<!ENTITY lol "lol">' + "".join(
        f'<!ENTITY lol{n} "{("&lol" + (str(n - 1) if n > 1 else "") + ";") * 10}">'
        for n in range(1, 10)
    )
    body = (
        f'<?xml version="1.0"?><!DOCTYPE urlset [{entities}]>'
        f"<urlset {NS}><url><loc>https://a.test/&lol9;</loc></url></urlset>"
    ).encode()
    started = time.process_time()
    parsed = parse_sitemap(body)
    assert time.process_time() - started < 2  # a billion "lol"s would take minutes
    assert parsed.entries == [] and parsed.problem


def test_gzip_bomb_stops_at_the_cap():
    bomb = gzip.compress(urlset("<url><loc>https://a.test/</loc></url>") + b" " * 5_000_000)
    parsed = parse_sitemap(bomb, max_bytes=1_000_000)
    assert parsed.problem and "inflates past" in parsed.problem


def test_a_gzip_bomb_is_never_inflated_whole_in_memory():
    """A 300 MB bomb (300 KB compressed) stops at the cap with memory to match: the inflated
    pieces are read one at a time, not gathered first (peak RSS grew by the bomb's size)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)  # 31: gzip framing
    zeros = b" " * (1 << 20)
    body = packer.compress(urlset("<url><loc>https://a.test/</loc></url>"))
    body += b"".join(packer.compress(zeros) for _ in range(300)) + packer.flush()
    tracemalloc.start()
    try:
        parsed = parse_sitemap(body, max_bytes=4_000_000)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert parsed.problem and "inflates past" in parsed.problem
    assert peak < 40_000_000


def test_at_most_the_protocols_50000_urls():
    rows = "".join(f"<url><loc>https://a.test/{n}</loc></url>" for n in range(SITEMAP_MAX_URLS + 3))
    parsed = parse_sitemap(f"<urlset {NS}>{rows}</urlset>".encode())
    assert len(parsed.entries) == SITEMAP_MAX_URLS and parsed.dropped == 3


def test_broken_xml_keeps_what_was_read():
    parsed = parse_sitemap(urlset("<url><loc>https://a.test/1</loc></url>")[:-5])
    assert [e.url for e in parsed.entries] == ["https://a.test/1"] and parsed.problem


def test_feed_links_announced_by_a_page():
    html = (
        '<html><head><base href="https://a.test/blog/">'
        '<link rel="alternate" type="application/rss+xml" href="feed.xml">'
        '<link rel="alternate" type="application/atom+xml" href="https://a.test/atom">'
        '<link rel="alternate" hreflang="de" href="https://a.test/de/">'
        '<link rel="stylesheet" type="application/rss+xml" href="nope.xml">'
        "</head><body></body></html>"
    )
    assert feed_links(html, "https://a.test/") == [
        "https://a.test/blog/feed.xml",
        "https://a.test/atom",
    ]
    many = "".join(
        f'<link rel="alternate" type="application/rss+xml" href="/f{n}">' for n in range(9)
    )
    assert len(feed_links(many, "https://a.test/")) == MAX_FEEDS
