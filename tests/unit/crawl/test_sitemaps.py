"""parse_sitemap: the protocol's shapes, its limits, and the XML and gzip attacks; pure."""

from __future__ import annotations

import gzip
import time
import tracemalloc
import zlib

from protego import Protego

from netsift.crawl.feeds import MAX_FEEDS, feed_links
from netsift.crawl.scope import Scope
from netsift.crawl.sitemap_parse import BLOCK, Sieve, origin_of, read_sitemap
from netsift.crawl.sitemaps import SITEMAP_MAX_URLS, _Prefix, parse_sitemap
from netsift.net.http import StopBody

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
    # reading stops at the limit: the rest is neither parsed nor counted
    assert len(parsed.entries) == SITEMAP_MAX_URLS and parsed.dropped == 1


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


def big_urlset(count: int) -> bytes:
    rows = "".join(
        f"<url><loc>https://big.test/docs/sec{n // 1000:03d}/p{n:06d}.html</loc>"
        "<lastmod>2026-01-02</lastmod></url>"
        for n in range(count)
    )
    return f'<?xml version="1.0"?><urlset {NS}>{rows}</urlset>'.encode()


def test_a_sitemap_over_libxml2s_10_mb_feed_is_read():
    """A body arrives whole; fed to libxml2 in one piece past 10 MB it was a parse error."""
    parsed = parse_sitemap(big_urlset(SITEMAP_MAX_URLS + 100))
    assert parsed.problem is None and len(parsed.entries) == SITEMAP_MAX_URLS


def test_reading_stops_once_want_urls_are_kept():
    body = big_urlset(200_000)
    started = time.process_time()
    part = read_sitemap(body, Sieve(), 50)
    spent = time.process_time() - started
    whole = read_sitemap(body, Sieve())
    assert part.kept == 50 and part.more and part.read == 50
    assert whole.kept == SITEMAP_MAX_URLS and not whole.more and whole.dropped == 1
    # kept entries cross in blocks of BLOCK lines, each with its canonical key
    assert len(whole.blocks) == SITEMAP_MAX_URLS // BLOCK
    entry, key = next(whole.entries(whole.blocks[0]))
    assert entry.lastmod == "2026-01-02" and key == entry.url
    assert spent < 0.25  # 50 of 200,000 entries: a sliver of the whole parse


def test_the_sieve_says_why_each_url_is_left_out():
    rows = [
        "<url><loc>http://xn--localhost-/p</loc></url>",  # a malformed IDNA name
        "<url><loc>https://a.test/guide/one?utm_source=x</loc></url>",
        "<url><loc>https://a.test/guide/one</loc></url>",  # the same page
        "<url><loc>https://a.test/blog/two</loc></url>",  # no include pattern
        "<url><loc>https://a.test/guide/private/x</loc></url>",  # robots.txt
        "<url><loc>https://b.a.test/guide/three</loc></url>",  # another origin: not judged
        "<url><loc>https://a.test/guide/seen</loc></url>",  # in hand before
        "<url><loc>https://a.test/guide/four\tx</loc></url>",  # a tab: no URL
    ]
    robots = Protego.parse("User-agent: *\nDisallow: /guide/private/\n")
    sieve = Sieve(
        scope=Scope.of("https://a.test/", subdomains=True, include=["^/guide/"]),
        robots={origin_of("https://a.test/"): robots},
        user_agent="netsift",
        seen=frozenset({"https://a.test/guide/seen"}),
    )
    part = read_sitemap(urlset(*rows), sieve)
    kept = [entry.url for block in part.blocks for entry, _ in part.entries(block)]
    assert kept == ["https://a.test/guide/one?utm_source=x", "https://b.a.test/guide/three"]
    assert part.left_out == {"invalid": 2, "duplicate": 2, "scope": 1, "robots": 1}
    assert read_sitemap(urlset(rows[4]), Sieve(robots={"https://a.test": False})).kept == 0


def test_an_index_lists_sitemaps_unsieved_and_unbounded_by_want():
    index = "".join(f"<sitemap><loc>https://a.test/s{n}.xml</loc></sitemap>" for n in range(5))
    part = read_sitemap(
        f"<sitemapindex {NS}>{index}</sitemapindex>".encode(),
        Sieve(scope=Scope.of("https://a.test/", include=["^/guide/"])),
        2,
    )
    assert part.kind == "index" and part.kept == 5 and not part.more


def test_a_text_sitemap_is_read_line_by_line_and_a_giant_line_dropped():
    body = b"https://a.test/1\n" + b"https://a.test/" + b"x" * 100_000 + b"\nhttps://a.test/2\n"
    parsed = parse_sitemap(body)
    assert parsed.kind == "text"
    assert [e.url for e in parsed.entries] == ["https://a.test/1", "https://a.test/2"]


def _fed(prefix: _Prefix, body: bytes, size: int) -> None:
    """Feed `body` to `prefix` in pieces of `size` bytes until it stops the download."""
    for start in range(0, len(body), size):
        try:
            prefix(body[start : start + size])
        except StopBody:
            return


def test_a_urlset_prefix_stops_at_its_locs_even_with_tags_split_across_pieces():
    body = urlset(*(f"<url><loc>https://a.test/p{n}</loc></url>" for n in range(100)))
    thirtieth = body.index(b"<loc>https://a.test/p29<") + len(b"<loc>")  # where it ends
    for size in (1, 3, 7, 64, 1000):
        written = bytearray()
        prefix = _Prefix(written.extend, 30)
        _fed(prefix, body, size)
        assert prefix.cut, size
        # it stops on the piece that completes the 30th tag
        assert thirtieth <= len(written) < thirtieth + size, size
        assert read_sitemap(bytes(written)).read >= 29, size  # every entry before it is whole


def test_a_prefix_never_cuts_an_index_a_short_urlset_or_an_unsaid_body():
    index = (
        f'<?xml version="1.0"?><sitemapindex {NS}>'
        + "".join(f"<sitemap><loc>https://a.test/s{n}.xml</loc></sitemap>" for n in range(5_000))
        + "</sitemapindex>"
    ).encode()
    short = urlset(*(f"<url><loc>https://a.test/p{n}</loc></url>" for n in range(10)))
    text = "\n".join(f"https://a.test/p{n}" for n in range(5_000)).encode()
    for body in (index, short, text, gzip.compress(short)):
        written = bytearray()
        prefix = _Prefix(written.extend, 30)
        _fed(prefix, body, 4096)
        assert not prefix.cut and bytes(written) == body
    unbounded = _Prefix(bytearray().extend, None)
    _fed(unbounded, short * 10, 64)
    assert not unbounded.cut
