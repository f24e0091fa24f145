"""Page actions, screenshots and images in the guarded browser, against the offline web.

A click that leads to a blocked address must be refused by the guard and fail the fetch with
the action's index; the canary on 127.0.0.2 counts anything that reaches it (it stays at 0).
"""

from __future__ import annotations

import base64
import struct
from pathlib import Path
from typing import Any

import pytest

from netsift.client import Client
from netsift.config import Settings
from netsift.errors import BlockedAddress, InvalidInput, RenderFailed
from netsift.render import actions as render_actions
from netsift.render.actions import JPEG_DATA_URL, MAX_SCREENSHOT_HEIGHT, PNG_DATA_URL
from netsift.render.renderer import VIEWPORT
from tests.integration.render.conftest import ALLOW_ONLY_THE_WEB, Canary, browser
from tests.offline_web.fixtures import OfflineWeb
from tests.offline_web.interactive import ECHO_PREFIX, NEXT_TEXT, NOTICES, REVEALED, TALL_PX

pytestmark = [pytest.mark.browser, browser]


def _settings(web: OfflineWeb, tmp_path: Path, **overrides: Any) -> Settings:
    overrides.setdefault("resolve", web.pins)
    overrides.setdefault("allow_networks", ALLOW_ONLY_THE_WEB)
    overrides.setdefault("audit_log", tmp_path / "audit.ndjson")
    overrides.setdefault("data_dir", tmp_path / "data")
    overrides.setdefault("cache_url", "memory://")
    return Settings(_env_file=None, **overrides)


def _png_size(data_url: str) -> tuple[int, int]:
    """(width, height) from a PNG data URL's IHDR chunk; fails on anything but a PNG."""
    assert data_url.startswith(PNG_DATA_URL)
    png = base64.b64decode(data_url.removeprefix(PNG_DATA_URL), validate=True)
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and png[12:16] == b"IHDR"
    width, height = struct.unpack(">II", png[16:24])
    return width, height


def _jpeg_size(data_url: str) -> tuple[int, int]:
    """(width, height) from a JPEG data URL's start-of-frame marker; fails on anything else."""
    assert data_url.startswith(JPEG_DATA_URL)
    jpeg = base64.b64decode(data_url.removeprefix(JPEG_DATA_URL), validate=True)
    assert jpeg[:2] == b"\xff\xd8"
    at = 2
    while at < len(jpeg):
        marker, length = jpeg[at + 1], struct.unpack(">H", jpeg[at + 2 : at + 4])[0]
        if marker in (0xC0, 0xC1, 0xC2):
            height, width = struct.unpack(">HH", jpeg[at + 5 : at + 9])
            return width, height
        at += 2 + length
    raise AssertionError("no start-of-frame marker in the JPEG")


async def test_screenshots_viewport_and_full_page(offline_web: OfflineWeb, tmp_path: Path) -> None:
    url = offline_web.url("spa.test", "/interactive")
    async with Client(_settings(offline_web, tmp_path)) as client:
        await client.fetch(url, render="always")
        # a render for text refuses the page's images; a screenshot loads them (guarded)
        assert offline_web.state.hits("spa.test", "/img/harbour.png") == 0
        viewport = await client.fetch(url, screenshot="viewport")
        assert offline_web.state.hits("spa.test", "/img/harbour.png") >= 1
        full = await client.fetch(url, screenshot="full_page")
        plain = await client.fetch(url, render="never")
    assert viewport.rendered and viewport.render_reason == "screenshot or actions asked for"
    assert viewport.screenshot is not None and full.screenshot is not None
    assert _png_size(viewport.screenshot) == (VIEWPORT["width"], VIEWPORT["height"])
    width, height = _png_size(full.screenshot)
    assert width == VIEWPORT["width"]
    assert TALL_PX < height <= MAX_SCREENSHOT_HEIGHT
    assert plain.screenshot is None and plain.actions == []


async def test_a_full_page_screenshot_is_cut_at_the_cap(
    offline_web: OfflineWeb, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cap = VIEWPORT["width"] * (TALL_PX // 2)
    monkeypatch.setattr(render_actions, "MAX_SCREENSHOT_PIXELS", cap)
    url = offline_web.url("spa.test", "/interactive")
    async with Client(_settings(offline_web, tmp_path)) as client:
        page = await client.fetch(url, screenshot="full_page")
    assert page.screenshot is not None
    assert _png_size(page.screenshot) == (VIEWPORT["width"], TALL_PX // 2)


async def test_images_from_the_dom_and_from_the_static_html(
    offline_web: OfflineWeb, tmp_path: Path
) -> None:
    url = offline_web.url("spa.test", "/interactive")
    base = offline_web.url("spa.test", "/img/")
    async with Client(_settings(offline_web, tmp_path)) as client:
        rendered = await client.fetch(url, images=True, render="always")
        static = await client.fetch(url, images=True, render="never")
        without = await client.fetch(url, render="never")
    listed = [base + name for name in ("harbour.png", "boat-1x.png", "boat-2x.png")]
    assert static.images == listed  # absolute, once each, no data: URL
    assert rendered.images == [*listed, base + "inserted.png"]  # the script's image too
    assert without.images == []


async def test_actions_run_in_order_before_the_page_is_read(
    offline_web: OfflineWeb, tmp_path: Path, canary: Canary
) -> None:
    url = offline_web.url("spa.test", "/interactive")
    actions: list[dict[str, Any]] = [
        {"type": "wait", "selector": "#reveal"},
        {"type": "click", "selector": "#reveal"},
        {"type": "wait", "milliseconds": 50},
        {"type": "click", "selector": "#message"},
        {"type": "write", "text": "ships at anchor"},
        {"type": "press", "key": "Enter"},
        {"type": "scroll", "direction": "down"},
        {"type": "screenshot", "full_page": False},
    ]
    async with Client(_settings(offline_web, tmp_path)) as client:
        before = await client.fetch(url, render="always")
        page = await client.fetch(url, actions=actions)
    assert REVEALED not in before.content and ECHO_PREFIX not in before.content
    assert REVEALED in page.content
    assert f"{ECHO_PREFIX} ships at anchor" in page.content
    assert [(r.index, r.type) for r in page.actions] == [
        (i, a["type"]) for i, a in enumerate(actions)
    ]
    shot = page.actions[-1].screenshot
    assert shot is not None and _png_size(shot) == (VIEWPORT["width"], VIEWPORT["height"])
    assert all(r.screenshot is None for r in page.actions[:-1])
    assert canary.hits() == 0


async def test_a_click_that_navigates_reads_the_new_page(
    offline_web: OfflineWeb, tmp_path: Path
) -> None:
    url = offline_web.url("spa.test", "/interactive")
    async with Client(_settings(offline_web, tmp_path)) as client:
        page = await client.fetch(url, actions=[{"type": "click", "selector": "#next"}])
    assert NEXT_TEXT in page.content
    assert page.final_url == offline_web.url("spa.test", "/interactive/next")


async def test_a_missing_selector_fails_with_the_actions_index(
    offline_web: OfflineWeb, tmp_path: Path
) -> None:
    url = offline_web.url("spa.test", "/interactive")
    actions = [{"type": "click", "selector": "#reveal"}, {"type": "click", "selector": "#nowhere"}]
    async with Client(_settings(offline_web, tmp_path)) as client:
        with pytest.raises(RenderFailed) as failed:
            await client.fetch(url, actions=actions)
        # the browser is still fine for the next fetch
        after = await client.fetch(url, actions=actions[:1])
    assert failed.value.details["action"] == 1
    assert failed.value.details["type"] == "click"
    assert "action 1 (click)" in failed.value.message
    assert not failed.value.retryable
    assert REVEALED in after.content


@pytest.mark.parametrize("link", ["#canary", "#metadata"])
async def test_a_click_to_a_blocked_address_is_refused(
    offline_web: OfflineWeb, tmp_path: Path, canary: Canary, link: str
) -> None:
    offline_web.state.knobs["canary"] = canary.address
    url = offline_web.url("spa.test", "/interactive")
    actions: list[dict[str, Any]] = [
        {"type": "wait", "milliseconds": 10},
        {"type": "click", "selector": link},
    ]
    async with Client(_settings(offline_web, tmp_path)) as client:
        with pytest.raises(BlockedAddress) as refused:
            await client.fetch(url, actions=actions)
    assert refused.value.details["action"] == 1
    assert refused.value.details["url"].startswith(
        f"http://{canary.address}/" if link == "#canary" else "http://169.254.169.254/"
    )
    assert "action 1 (click)" in refused.value.message
    assert canary.hits() == 0


async def test_browser_work_is_refused_where_it_cannot_run(
    offline_web: OfflineWeb, tmp_path: Path
) -> None:
    url = offline_web.url("spa.test", "/interactive")
    async with Client(_settings(offline_web, tmp_path)) as client:
        with pytest.raises(InvalidInput):
            await client.fetch(url, screenshot="viewport", render="never")
        with pytest.raises(InvalidInput):
            await client.fetch(url, actions=[{"type": "click", "selector": "a"}] * 21)
        with pytest.raises(InvalidInput):
            await client.fetch(url, actions=[{"type": "wait", "milliseconds": 60_000}])
        with pytest.raises(RenderFailed) as not_html:
            await client.fetch(
                offline_web.url("spa.test", "/api/article.json"), screenshot="viewport"
            )
    assert "need an HTML page" in not_html.value.message and not not_html.value.retryable
    missing = _settings(offline_web, tmp_path, browser_path=str(tmp_path / "no-chromium"))
    async with Client(missing) as client:
        with pytest.raises(RenderFailed) as failed:
            await client.fetch(url, screenshot="viewport")
    assert "netsift[browser]" in failed.value.message
    assert not failed.value.retryable


async def test_a_screenshot_action_honours_firecrawls_quality_viewport_and_full_page(
    offline_web: OfflineWeb, tmp_path: Path
) -> None:
    """Firecrawl's screenshot action fields: `quality` makes a JPEG, `viewport` sizes the
    window for that shot only (the next shot is back at the renderer's), `fullPage` as sent."""
    url = offline_web.url("spa.test", "/interactive")
    actions: list[dict[str, Any]] = [
        {
            "type": "screenshot",
            "fullPage": False,
            "quality": 80,
            "viewport": {"width": 800, "height": 600},
        },
        {"type": "screenshot", "fullPage": True, "viewport": {"width": 640, "height": 480}},
        {"type": "screenshot"},
    ]
    async with Client(_settings(offline_web, tmp_path)) as client:
        page = await client.fetch(url, actions=actions, screenshot="viewport")
    jpeg, tall, plain = (result.screenshot for result in page.actions)
    assert jpeg is not None and _jpeg_size(jpeg) == (800, 600)
    assert tall is not None
    width, height = _png_size(tall)
    assert width == 640 and TALL_PX < height <= render_actions.MAX_SCREENSHOT_PIXELS // 640
    assert plain is not None and _png_size(plain) == (VIEWPORT["width"], VIEWPORT["height"])
    assert page.screenshot is not None
    assert _png_size(page.screenshot) == (VIEWPORT["width"], VIEWPORT["height"])


async def test_a_click_with_all_clicks_every_match(offline_web: OfflineWeb, tmp_path: Path) -> None:
    url = offline_web.url("spa.test", "/interactive")
    async with Client(_settings(offline_web, tmp_path)) as client:
        first = await client.fetch(url, actions=[{"type": "click", "selector": ".more"}])
        every = await client.fetch(
            url, actions=[{"type": "click", "selector": ".more", "all": True}]
        )
    assert NOTICES[0] in first.content and NOTICES[1] not in first.content
    assert all(notice in every.content for notice in NOTICES)
