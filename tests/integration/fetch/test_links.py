"""Links in a fetched page resolve as a browser would: against the final URL after redirects,
or the page's `<base href>`, queries and fragments kept, non-web schemes left alone, script
links dropped (their text kept). Through the real fetcher, guard and redirects."""

from __future__ import annotations

import re
from urllib.parse import quote

from netsift.client import Client
from tests.offline_web.fixtures import OfflineWeb
from tests.offline_web.site import PAGES


async def test_links_resolve_against_the_final_url_after_a_redirect(
    web_client: Client, offline_web: OfflineWeb
) -> None:
    final = offline_web.url("links.test", "/docs/guide.html")
    page = await web_client.fetch(offline_web.url("redirect.test", f"/to?url={quote(final)}"))
    site = offline_web.url("links.test", "")
    assert page.final_url == final and page.redirects, "reached through the redirect"
    md = page.content
    assert f"[the other page]({site}/docs/other.html)" in md
    assert f"[the install section]({site}/docs/guide.html#install)" in md
    assert f"[on page two]({site}/docs/guide.html?page=2#top)" in md
    assert f"[one level up]({site}/api/workers.html)" in md
    assert "[the release site](https://releases.example/tidewater)" in md
    assert "[the help desk](mailto:help@tidewater.example)" in md
    assert "[the on-call line](tel:+15550100)" in md
    assert "[inline](data:text/plain,tidewater)" in md
    assert re.search(r"the\s+settings menu only opens", md) and "javascript" not in md
    assert "redirect.test" not in md


async def test_a_base_href_is_what_relative_links_resolve_against(
    web_client: Client, offline_web: OfflineWeb
) -> None:
    page = await web_client.fetch(offline_web.url("links.test", "/docs/based.html"))
    base = offline_web.url("links.test", "/reference/v3/")
    md = page.content
    assert f"[the other page]({base}other.html)" in md
    # a fragment resolves against the base too, as in a browser
    assert f"[the install section]({base}#install)" in md
    assert f"[one level up]({offline_web.url('links.test', '/reference/api/workers.html')})" in md


async def test_extract_resolves_the_same_way_without_the_network(
    web_client: Client, offline_web: OfflineWeb
) -> None:
    fetched = await web_client.fetch(offline_web.url("links.test", "/docs/guide.html"))
    html = (PAGES / "docs-links.html").read_text("utf-8")
    page = web_client.extract(html, url=offline_web.url("links.test", "/docs/guide.html"))
    assert page.content == fetched.content


async def test_page_links_are_the_resolved_http_links_after_a_redirect(
    web_client: Client, offline_web: OfflineWeb
) -> None:
    final = offline_web.url("links.test", "/docs/guide.html")
    page = await web_client.fetch(offline_web.url("redirect.test", f"/to?url={quote(final)}"))
    site = offline_web.url("links.test", "")
    urls = [link.url for link in page.links]
    assert f"{site}/docs/other.html" in urls
    assert f"{site}/docs/guide.html?page=2" in urls  # the fragment names a place, not a page
    assert f"{site}/api/workers.html" in urls
    assert "https://releases.example/tidewater" in urls
    assert not [u for u in urls if not u.startswith(("http://", "https://")) or "#" in u]
    assert len(urls) == len(set(urls))
    assert not [u for u in urls if "redirect.test" in u]
