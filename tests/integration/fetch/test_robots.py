"""robots.txt end to end: the rules of each origin decide, per hop, before the page is asked for.

RFC 9309: a robots.txt that answers 4xx means everything is allowed, 5xx (or unreachable)
means everything is disallowed. The site's counts prove a refused page was never requested
and that robots.txt is fetched once per origin.
"""

from __future__ import annotations

import httpx
import pytest

from netsift.client import Client
from netsift.errors import InvalidURL, NetsiftError
from tests.offline_web.fixtures import OfflineWeb, WebSettingsFactory


async def test_disallowed_path_is_blocked_and_never_requested(
    web_client: Client, offline_web: OfflineWeb
) -> None:
    with pytest.raises(NetsiftError) as caught:
        await web_client.fetch(offline_web.url("docs.test", "/private/secret"))
    assert caught.value.code == "blocked_by_robots"
    assert caught.value.exit_code == 3
    assert offline_web.state.hits("docs.test", "/robots.txt") == 1
    assert offline_web.state.hits("docs.test", "/private/secret") == 0


async def test_allowed_path_on_the_same_origin(web_client: Client, offline_web: OfflineWeb):
    page = await web_client.fetch(offline_web.url("docs.test", "/guide"))
    assert "Retry policies" in page.content


async def test_respect_robots_false_reads_the_page(web_client: Client, offline_web: OfflineWeb):
    page = await web_client.fetch(
        offline_web.url("docs.test", "/private/secret"), respect_robots=False
    )
    assert "rotates its credentials every Monday" in page.content
    assert offline_web.state.hits("docs.test", "/robots.txt") == 0


async def test_setting_turns_robots_off(web_settings: WebSettingsFactory, offline_web: OfflineWeb):
    async with Client(web_settings(respect_robots=False)) as client:
        page = await client.fetch(offline_web.url("docs.test", "/private/secret"))
    assert page.status == 200
    assert offline_web.state.hits("docs.test", "/robots.txt") == 0


async def test_robots_5xx_disallows_everything(web_client: Client, offline_web: OfflineWeb):
    with pytest.raises(NetsiftError) as caught:
        await web_client.fetch(offline_web.url("robots5xx.test", "/page"))
    assert caught.value.code == "blocked_by_robots"
    assert offline_web.state.hits("robots5xx.test", "/page") == 0
    assert offline_web.state.hits("robots5xx.test", "/robots.txt") >= 1


async def test_robots_4xx_allows_everything(web_client: Client, offline_web: OfflineWeb):
    page = await web_client.fetch(offline_web.url("robots4xx.test", "/page"))
    assert "ordinary page served by robots4xx.test" in page.content
    assert offline_web.state.hits("robots4xx.test", "/robots.txt") == 1


async def test_robots_txt_is_fetched_once_per_origin(web_client: Client, offline_web: OfflineWeb):
    for name in ("article", "latin1", "sjis", "bom"):
        await web_client.fetch(offline_web.url("news.test", f"/{name}"))
    await web_client.fetch(offline_web.url("docs.test", "/guide"))
    with pytest.raises(NetsiftError):
        await web_client.fetch(offline_web.url("docs.test", "/private/secret"))
    assert offline_web.state.hits("news.test", "/robots.txt") == 1
    assert offline_web.state.hits("docs.test", "/robots.txt") == 1


async def test_every_redirect_hop_is_checked(web_client: Client, offline_web: OfflineWeb):
    """A redirect into a disallowed path is stopped before the disallowed hop is sent."""
    target = offline_web.url("docs.test", "/private/secret")
    with pytest.raises(NetsiftError) as caught:
        await web_client.fetch(offline_web.url("redirect.test", f"/to?url={target}"))
    assert caught.value.code == "blocked_by_robots"
    assert offline_web.state.hits("redirect.test", "/to") == 1
    assert offline_web.state.hits("docs.test", "/private/secret") == 0


async def test_meta_respects_robots(web_client: Client, offline_web: OfflineWeb):
    url = offline_web.url("docs.test", "/private/secret")
    with pytest.raises(NetsiftError) as caught:
        await web_client.meta(url)
    assert caught.value.code == "blocked_by_robots"
    card = await web_client.meta(url, respect_robots=False)
    assert card.title == "Internal deployment notes"


@pytest.mark.parametrize("url", ["http://xn--localhost-/", "http://xn--a-.test/page"])
async def test_a_malformed_name_is_invalid_url_before_robots_decodes_it(
    web_client: Client, url: str
):
    """The robots step reads the origin from the URL as written: a malformed IDNA label is
    the guard's invalid_url, never an exception from inside the IDNA decoder."""
    with pytest.raises(InvalidURL):
        await web_client.robots.rules_for(httpx.URL(url))
