"""The fetcher's recent-page reuse against the offline web: a continuation is served from memory,
but never under looser options than the ones asked for (robots, byte cap, format).
"""

from __future__ import annotations

import pytest

from netsift.client import Client
from netsift.errors import BlockedByRobots, TooLarge
from netsift.params import FetchOptions
from tests.offline_web import documents as docs
from tests.offline_web.fixtures import OfflineWeb


async def test_a_page_read_without_robots_is_not_reused_when_robots_apply(
    web_client: Client, offline_web: OfflineWeb
) -> None:
    url = offline_web.url("docs.test", "/private/secret")
    page = await web_client.fetch(url, respect_robots=False)
    assert "rotates its credentials" in page.content
    with pytest.raises(BlockedByRobots):
        await web_client.fetch(url, respect_robots=True)
    assert offline_web.state.hits("docs.test", "/private/secret") == 1


async def test_a_smaller_byte_cap_is_not_bypassed_by_a_recent_read(
    web_client: Client, offline_web: OfflineWeb
) -> None:
    url = offline_web.url("files.test", "/long.txt")
    page = await web_client.fetch(url, max_bytes=10_000_000)
    assert page.total_length == len(docs.LONG_TEXT)
    with pytest.raises(TooLarge):
        await web_client.fetch(url, max_bytes=1_000)


async def test_the_same_options_reuse_the_recent_read(
    web_client: Client, offline_web: OfflineWeb
) -> None:
    url = offline_web.url("files.test", "/report.pdf")
    first = await web_client.fetch(url, max_length=20)
    second = await web_client.fetch(url, start_index=20)
    assert (first.cached, second.cached) == (False, True)
    assert second.page_count == first.page_count == 2
    assert first.content + second.content == (await web_client.fetch(url)).content
    assert offline_web.state.hits("files.test", "/report.pdf") == 1


async def test_another_format_is_a_new_read(web_client: Client, offline_web: OfflineWeb) -> None:
    url = offline_web.url("news.test", "/article")
    markdown = await web_client.fetch(url)
    text = await web_client.fetch(url, format="text")
    assert (markdown.cached, text.cached) == (False, False)
    assert markdown.content != text.content
    assert offline_web.state.hits("news.test", "/article") == 2


async def test_a_requested_page_type_reaches_extraction_and_is_a_new_read(
    web_client: Client, offline_web: OfflineWeb
) -> None:
    url = offline_web.url("news.test", "/article")
    auto = await web_client.fetcher.fetch(FetchOptions(url=url))
    forced = await web_client.fetcher.fetch(FetchOptions(url=url, page_type="listing"))
    assert auto.page_type != "listing"
    assert (forced.page_type, forced.cached) == ("listing", False)
    assert offline_web.state.hits("news.test", "/article") == 2
