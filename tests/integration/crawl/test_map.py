"""Client.map against map.test (tests/offline_web/sitemaps.py): every source, every rule."""

from __future__ import annotations

import gc
import time
from urllib.parse import urlsplit

import pytest

from netsift.errors import BlockedAddress, InvalidInput, NetsiftError
from netsift.models import MapLink, MapResult
from netsift.usage import Usage, metering
from tests.offline_web.sitemaps import SLOW_SITEMAP_SECONDS


def paths(result: MapResult) -> list[str]:
    return [urlsplit(link.url).path for link in result.links]


def by_path(result: MapResult) -> dict[str, MapLink]:
    return {urlsplit(link.url).path: link for link in result.links}


async def test_every_source_each_url_once(web_client, offline_web):
    result = await web_client.map(offline_web.url("map.test", "/"))
    links = by_path(result)
    assert set(links) == {
        "/",
        "/pricing",
        "/pricing/enterprise",
        "/about",
        "/docs/start",
        "/docs/api-reference",
        "/blog/first-post",
        "/blog/second-post",
        "/blog/third-post",
        "/contact",
    }
    assert len(paths(result)) == len(set(paths(result))) == result.found
    # Where each came from: robots.txt's index (then nested, then gzipped), the feed, the page.
    assert links["/docs/api-reference"].source == "robots"
    assert links["/docs/api-reference"].found_in.endswith("/sitemaps/docs.xml.gz")
    assert links["/docs/api-reference"].lastmod == "2026-01-02"
    assert links["/blog/second-post"].found_in.endswith("/sitemaps/blog.xml")  # nested index
    assert links["/blog/third-post"].source == "feed"
    assert links["/blog/third-post"].title == "Third post: pricing changes"
    assert (links["/blog/third-post"].lastmod or "").startswith("2026-03-02")
    assert links["/contact"].source == "page" and links["/contact"].title == "Contact"
    # A URL found twice keeps its first source and gains what the later one knew.
    assert links["/pricing"].source == "robots" and links["/pricing"].title == "Pricing plans"
    assert result.feeds == [offline_web.url("map.test", "/feed.xml")]
    assert result.left_out["robots"] == 2  # /private/admin, from the sitemap and the page
    assert result.left_out["duplicate"] >= 3
    assert result.left_out["limit"] == 0


async def test_private_and_off_site_sitemaps_are_refused_never_fetched(web_client, offline_web):
    result = await web_client.map(offline_web.url("map.test", "/"))
    reports = {
        urlsplit(r.url).netloc.split(":")[0] + urlsplit(r.url).path: r for r in result.sitemaps
    }
    assert reports["169.254.169.254/latest/sitemap.xml"].status == "refused"
    assert "169.254.169.254" in (reports["169.254.169.254/latest/sitemap.xml"].reason or "")
    assert reports["other.test/sitemap.xml"].status == "refused"
    assert "another site" in (reports["other.test/sitemap.xml"].reason or "")
    # A sitemap that redirects off the site is refused at the hop, before it is requested.
    moved = reports["map.test/sitemaps/moved.xml"]
    assert moved.status == "refused" and "redirect" in (moved.reason or "")
    assert offline_web.state.hits("other.test") == 0
    assert reports["map.test/sitemaps/docs.xml.gz"].kind == "urlset"
    assert reports["map.test/sitemap_index.xml"].kind == "index"


async def test_scope_subdomains_include_exclude(web_client, offline_web):
    start = offline_web.url("map.test", "/")
    plain = await web_client.map(start)
    assert not any("blog.map.test" in link.url for link in plain.links)
    wide = await web_client.map(start, subdomains=True)
    assert any(urlsplit(link.url).hostname == "blog.map.test" for link in wide.links)
    docs = await web_client.map(start, include=["^/docs/"])
    assert sorted(paths(docs)) == ["/docs/api-reference", "/docs/start"]
    no_blog = await web_client.map(start, exclude=["^/blog"])
    assert not any(p.startswith("/blog") for p in paths(no_blog))
    assert no_blog.left_out["scope"] > plain.left_out["scope"]


async def test_limit_and_query_ranking(web_client, offline_web):
    start = offline_web.url("map.test", "/")
    blog_reads = offline_web.state.hits("map.test", "/sitemaps/blog.xml")
    few = await web_client.map(start, limit=3)
    assert len(few.links) == 3 and few.left_out["limit"] == few.found - 3
    # Reading stops once the limit is in hand: the sitemaps after are skipped, unread.
    assert "3 sitemap URLs were in hand: the rest were not read" in few.stopped_because
    skipped = [r for r in few.sitemaps if r.status == "skipped"]
    assert skipped and all(r.reason == "enough URLs were in hand" for r in skipped)
    assert offline_web.state.hits("map.test", "/sitemaps/blog.xml") == blog_reads
    whole = await web_client.map(start)
    assert whole.found == 10 and whole.left_out["limit"] == 0 and not whole.stopped_because
    ranked = await web_client.map(start, query="pricing plans", limit=3)
    assert paths(ranked)[0] == "/pricing"
    assert set(paths(ranked)) <= {"/pricing", "/pricing/enterprise", "/blog/third-post"}
    scores = [link.score for link in ranked.links]
    assert all(s is not None for s in scores) and scores == sorted(scores, reverse=True)


async def test_robots_can_be_ignored(web_client, offline_web):
    result = await web_client.map(offline_web.url("map.test", "/"), respect_robots=False)
    assert "/private/admin" in paths(result) and result.left_out["robots"] == 0


async def test_sitemap_modes(web_client, offline_web):
    start = offline_web.url("map.test", "/")
    only = await web_client.map(start, sitemaps="only")
    assert {link.source for link in only.links} == {"robots"} and not only.feeds
    assert offline_web.state.hits("map.test", "/feed.xml") == 0
    skip = await web_client.map(start, sitemaps="skip")
    assert {link.source for link in skip.links} <= {"page", "feed"} and not skip.sitemaps


async def test_without_robots_sitemap_lines_sitemap_xml_is_tried(web_client, offline_web):
    result = await web_client.map(offline_web.url("nomap.test", "/"))
    assert [(r.via, r.status) for r in result.sitemaps] == [("guess", "read")]
    found = by_path(result)
    assert found["/two"].source == "sitemap" and found["/two"].lastmod == "2026-03-01"


async def test_an_external_entity_is_never_read(web_client, offline_web):
    result = await web_client.map(offline_web.url("xxe.test", "/"), sitemaps="only")
    assert paths(result) == ["/safe"]
    assert not any("passwd" in link.url or "root:" in link.url for link in result.links)


async def test_map_counts_pages_like_fetch(web_client, offline_web):
    usage = Usage()
    with metering(usage):
        await web_client.map(offline_web.url("map.test", "/"))
    # The start page, its feed and the six sitemaps requested (one of them redirected off the
    # site); robots.txt is free, and the refused sitemaps were never requested.
    assert usage.pages == 8


async def test_bad_input_and_guarded_start(web_client, offline_web):
    with pytest.raises(InvalidInput):
        await web_client.map(offline_web.url("map.test", "/"), include=["(("])
    with pytest.raises(InvalidInput):
        await web_client.map(offline_web.url("map.test", "/"), limit=0)
    with pytest.raises(NetsiftError) as caught:
        await web_client.map("ftp://map.test/")
    assert caught.value.code == "unsupported_scheme"
    with pytest.raises(BlockedAddress):
        await web_client.map("http://169.254.169.254/")


async def test_the_guard_refuses_the_loopback_without_the_exemption(web_settings, offline_web):
    from netsift.client import Client

    async with Client(web_settings(allow_networks=[])) as client:
        with pytest.raises(BlockedAddress):
            await client.map(offline_web.url("map.test", "/"))
    assert offline_web.state.hits("map.test") == 0


async def test_a_sitemap_may_be_larger_than_a_page(web_settings, offline_web):
    """The protocol allows 50 MB a sitemap: the page cap (NETSIFT_MAX_BYTES) does not apply."""
    from netsift.client import Client

    async with Client(web_settings(max_bytes=128)) as client:
        result = await client.map(offline_web.url("map.test", "/"), sitemaps="only")
    assert [r.url for r in result.sitemaps if r.status == "failed"] == []
    assert {"/docs/api-reference", "/blog/second-post"} <= set(paths(result))


async def test_a_query_over_nothing_found_is_an_empty_answer(web_client, offline_web):
    """A map with a query whose sources found nothing answers no links (not an error)."""
    result = await web_client.map(
        offline_web.url("map.test", "/"), query="pricing", include=["^/nowhere/"]
    )
    assert result.links == [] and result.found == 0


async def test_a_malformed_name_is_refused_by_the_guards_parser(web_client, offline_web):
    """`xn--localhost-` (an IDNA name that does not decode), as a sitemap robots.txt names, a
    page a sitemap lists and a start URL: refused with a reason or skipped and counted, before
    anything decodes it; never a traceback."""
    result = await web_client.map(offline_web.url("badname.test", "/"), sitemaps="only")
    refused = [r for r in result.sitemaps if r.status == "refused"]
    assert [r.url for r in refused] == ["http://xn--localhost-/sitemap.xml"]
    assert "not a valid" in (refused[0].reason or "")
    assert paths(result) == ["/ok"] and result.left_out["invalid"] == 1
    with pytest.raises(InvalidInput) as caught:
        await web_client.map("http://xn--localhost-/")
    assert caught.value.code == "invalid_url"


async def test_the_time_limit_ends_the_downloads_in_flight(web_client, offline_web):
    """Sitemaps downloaded ahead of the one being read are cancelled with the map: the answer
    comes at the limit, says so, and lists each sitemap as not read."""
    started = time.monotonic()
    result = await web_client.map(offline_web.url("slowmap.test", "/"), timeout=0.5)
    assert time.monotonic() - started < SLOW_SITEMAP_SECONDS
    assert "the map's time limit of 0.5s" in result.stopped_because
    assert not any(r.status == "read" for r in result.sitemaps)


async def test_a_finished_map_is_freed_without_the_cycle_collector(web_client, offline_web):
    """What a map gathered goes when it returns, by reference counting: left in a cycle, a
    50,000-URL map's objects waited for a full collection, ~40 ms of the server's loop."""
    start = offline_web.url("map.test", "/")
    await web_client.map(start)  # lazy imports and caches, made once
    gc.collect()
    gc.disable()
    try:
        result = await web_client.map(start)
        assert result.found
        del result
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        left = {type(o).__qualname__ for o in gc.garbage if "netsift.crawl" in type(o).__module__}
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert left == set()
