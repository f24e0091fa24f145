"""Walls are named, never read: challenge, captcha, login, paywall, "enable JavaScript" and
block pages answer `blocked_by_site` with their kind; real pages with the same words nearby
(a login link, a newsletter box, an essay on captchas) are read as pages."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from netsift.client import Client
from netsift.config import Settings
from netsift.errors import BlockedBySite
from tests.integration.render.conftest import ALLOW_ONLY_THE_WEB, browser
from tests.offline_web.fixtures import OfflineWeb
from tests.offline_web.walls import NOT_WALLS, PASSABLE_ARTICLE, WALLS


@pytest.mark.parametrize("name", sorted(WALLS))
async def test_a_wall_is_blocked_by_site_with_its_kind(
    name: str, web_client: Client, offline_web: OfflineWeb
) -> None:
    with pytest.raises(BlockedBySite) as caught:
        await web_client.fetch(offline_web.url("walls.test", f"/{name}"), render="never")
    error = caught.value
    assert error.code == "blocked_by_site" and error.exit_code == 3 and not error.retryable
    assert error.details["wall"] == WALLS[name].kind
    assert error.details["status"] == WALLS[name].status
    assert error.details["reason"]


@pytest.mark.parametrize("name", sorted(NOT_WALLS))
async def test_a_real_page_is_not_a_wall(
    name: str, web_client: Client, offline_web: OfflineWeb
) -> None:
    page = await web_client.fetch(offline_web.url("notwalls.test", f"/{name}"), render="never")
    assert NOT_WALLS[name][1] in page.content


async def test_a_wall_is_not_kept_as_a_recent_page(
    web_client: Client, offline_web: OfflineWeb
) -> None:
    url = offline_web.url("walls.test", "/paywall")
    for _ in range(2):
        with pytest.raises(BlockedBySite):
            await web_client.fetch(url, render="never")
    assert offline_web.state.hits("walls.test", "/paywall") == 2


async def test_a_passable_challenge_without_a_browser_is_blocked(
    web_client: Client, offline_web: OfflineWeb
) -> None:
    with pytest.raises(BlockedBySite) as caught:
        await web_client.fetch(offline_web.url("walls.test", "/passable"), render="never")
    assert caught.value.details["wall"] == "challenge"
    assert caught.value.details["rendered"] is False


@pytest.mark.browser
@browser
async def test_a_challenge_a_browser_passes_is_rendered_and_read(
    offline_web: OfflineWeb, web_settings: Callable[..., Settings]
) -> None:
    async with Client(web_settings(allow_networks=ALLOW_ONLY_THE_WEB)) as client:
        page = await client.fetch(offline_web.url("walls.test", "/passable"))
        assert PASSABLE_ARTICLE in page.content
        assert page.rendered
        with pytest.raises(BlockedBySite) as caught:  # a captcha is no script's to pass
            await client.fetch(offline_web.url("walls.test", "/perimeterx"))
        assert caught.value.details["wall"] == "captcha"
