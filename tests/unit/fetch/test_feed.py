"""Feeds: RSS 2.0, RSS 1.0 and Atom into entries and Markdown; feedparser never fetches or opens."""

from __future__ import annotations

from pathlib import Path

import pytest

from netsift.errors import DecodeError
from netsift.fetch.feed import MAX_ENTRIES, extract_feed

RSS2 = b"""<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/">
  <channel>
    <title>Field Notes &amp; Sketches</title>
    <link>https://blog.example/</link>
    <description>Notes on &lt;b&gt;birds&lt;/b&gt; and rivers</description>
    <item>
      <title>Herons [part 1]</title>
      <link>/posts/herons (draft)</link>
      <pubDate>Tue, 05 Mar 2024 10:00:00 +0200</pubDate>
      <author>ada@blog.example (Ada Birdwatcher)</author>
      <description>&lt;p&gt;Grey herons &lt;b&gt;wait&lt;/b&gt;.&lt;/p&gt;
        &lt;p&gt;Then strike.&lt;/p&gt;&lt;script&gt;alert(1)&lt;/script&gt;</description>
    </item>
    <item>
      <title>Kingfishers</title>
      <link>https://blog.example/posts/kingfishers</link>
      <dc:creator>Bo</dc:creator>
    </item>
    <item>
      <description>An entry with no title and no link.</description>
    </item>
  </channel>
</rss>"""

ATOM = b"""<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title type="text">Release notes</title>
  <subtitle>What changed, version by version</subtitle>
  <link href="https://docs.example/"/>
  <updated>2024-05-02T08:00:00Z</updated>
  <entry>
    <title>Version 2.0</title>
    <link rel="alternate" href="releases/2.0.html"/>
    <id>urn:uuid:1</id>
    <published>2024-05-01T12:30:00-04:00</published>
    <updated>2024-05-02T08:00:00Z</updated>
    <author><name>Release Bot</name></author>
    <summary type="html">&lt;i&gt;Faster&lt;/i&gt; and smaller.</summary>
  </entry>
  <entry>
    <title>Version 1.9</title>
    <link href="javascript:alert(1)"/>
    <id>urn:uuid:2</id>
    <updated>2024-04-01T00:00:00Z</updated>
  </entry>
</feed>"""

RSS1 = b"""<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"
         xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">
  <channel rdf:about="https://rdf.example/">
    <title>RDF Site</title><link>https://rdf.example/</link><description>Old school</description>
  </channel>
  <item rdf:about="https://rdf.example/a">
    <title>A</title><link>https://rdf.example/a</link>
    <dc:date>2024-03-04T05:06:07+01:00</dc:date><dc:creator>Carol</dc:creator>
  </item>
</rdf:RDF>"""


def test_rss2_entries_and_markdown() -> None:
    feed = extract_feed(RSS2, "https://blog.example/feed.rss")
    assert feed.title == "Field Notes & Sketches"
    assert feed.description == "Notes on birds and rivers"
    first, second, third = feed.entries
    assert first.title == "Herons [part 1]"
    assert first.url == "https://blog.example/posts/herons (draft)"
    assert first.published == "2024-03-05T08:00:00+00:00"
    assert first.author == "Ada Birdwatcher"
    assert first.summary == "Grey herons wait. Then strike."
    assert (second.author, second.summary, second.published) == ("Bo", None, None)
    assert (third.title, third.url) == (None, None)
    assert feed.markdown == (
        "# Field Notes & Sketches\n"
        "\n"
        "Notes on birds and rivers\n"
        "\n"
        "- [Herons \\[part 1\\]](https://blog.example/posts/herons%20%28draft%29) — 2024-03-05\n"
        "  Grey herons wait. Then strike.\n"
        "- [Kingfishers](https://blog.example/posts/kingfishers)\n"
        "- (untitled)\n"
        "  An entry with no title and no link.\n"
    )


def test_atom_relative_links_resolve_against_the_feed_url() -> None:
    feed = extract_feed(ATOM, "https://docs.example/feeds/releases.atom")
    assert feed.title == "Release notes"
    assert feed.description == "What changed, version by version"
    v2, v19 = feed.entries
    assert v2.url == "https://docs.example/feeds/releases/2.0.html"
    assert v2.published == "2024-05-01T16:30:00+00:00"
    assert (v2.author, v2.summary) == ("Release Bot", "Faster and smaller.")
    assert v19.url is None  # javascript: is not a link
    assert v19.published == "2024-04-01T00:00:00+00:00"
    assert "- [Version 2.0](https://docs.example/feeds/releases/2.0.html) — 2024-05-01" in (
        feed.markdown
    )
    assert "- Version 1.9 — 2024-04-01" in feed.markdown


def test_rss1_rdf() -> None:
    feed = extract_feed(RSS1, "https://rdf.example/rss")
    assert feed.title == "RDF Site"
    [entry] = feed.entries
    assert (entry.url, entry.author) == ("https://rdf.example/a", "Carol")
    assert entry.published == "2024-03-04T04:06:07+00:00"


def test_a_bozo_feed_that_still_parsed_is_fine() -> None:
    broken = RSS2.replace(b"<title>Kingfishers</title>", b"<title>Kingfishers &nbsp; &</title>")
    feed = extract_feed(broken, "https://blog.example/feed.rss")
    assert feed.title == "Field Notes & Sketches"
    assert len(feed.entries) == 3


def test_entries_are_capped_and_the_markdown_says_so() -> None:
    items = b"".join(
        b"<item><title>T%d</title><link>https://x.example/%d</link></item>" % (n, n)
        for n in range(MAX_ENTRIES + 10)
    )
    body = b'<rss version="2.0"><channel><title>Many</title>' + items + b"</channel></rss>"
    feed = extract_feed(body, "https://x.example/feed")
    assert len(feed.entries) == MAX_ENTRIES
    assert feed.markdown.endswith(
        f"*[netsift listed the first {MAX_ENTRIES} of {MAX_ENTRIES + 10} entries]*\n"
    )


def test_long_summaries_are_one_bounded_line() -> None:
    long = ("word " * 5000).encode()
    body = b'<rss version="2.0"><channel><title>L</title><item><title>T</title><description>'
    body += long + b"</description></item></channel></rss>"
    [entry] = extract_feed(body, "https://x.example/feed").entries
    assert entry.summary is not None
    assert len(entry.summary) <= 300
    assert "\n" not in entry.summary


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"<html><head><title>A page</title></head><body><p>Not a feed</p></body></html>",
        b"\x00\x01\x02 binary junk",
        b'{"version": "https://jsonfeed.org/version/1.1", "items": []}',
    ],
)
def test_unparseable_bodies_are_a_decode_error(body: bytes) -> None:
    with pytest.raises(DecodeError, match="not a readable RSS or Atom feed"):
        extract_feed(body, "https://x.example/feed")


def test_a_body_naming_a_local_file_is_not_opened(tmp_path: Path) -> None:
    local = tmp_path / "secret-feed.xml"
    local.write_bytes(RSS2)
    with pytest.raises(DecodeError):
        extract_feed(str(local).encode(), "https://x.example/feed")


def test_a_body_naming_a_url_is_not_fetched() -> None:
    # pytest-socket would turn any connection into an error other than DecodeError.
    with pytest.raises(DecodeError):
        extract_feed(b"http://127.0.0.1:9/feed.xml", "https://x.example/feed")
