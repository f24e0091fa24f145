"""Firecrawl's browser formats through its own door and SDK: `screenshot` (v1's names, v2's
object with `fullPage`), `images`, and `actions` run in order with their screenshots answered
under `actions.screenshots` — in netsift's guarded browser, against the offline web."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from firecrawl import Firecrawl

from netsift.render.actions import PNG_DATA_URL
from netsift.server import create_app
from tests.integration.render.conftest import browser
from tests.integration.render.test_actions import _settings
from tests.offline_web.fixtures import OfflineWeb
from tests.offline_web.interactive import REVEALED
from tests.offline_web.server import serve

pytestmark = [pytest.mark.browser, browser]


def test_firecrawl_screenshot_images_and_actions(offline_web: OfflineWeb, tmp_path: Path) -> None:
    url = offline_web.url("spa.test", "/interactive")
    settings = _settings(offline_web, tmp_path, capabilities=["search", "fetch"])
    with serve(create_app(settings), lifespan="on") as server:
        firecrawl = Firecrawl(api_key="any", api_url=server.url(""))
        shot = firecrawl.scrape(url, formats=["markdown", {"type": "screenshot", "fullPage": True}])
        acted = firecrawl.scrape(
            url,
            formats=["markdown", "images"],
            actions=[
                {"type": "click", "selector": "#reveal"},
                {"type": "wait", "milliseconds": 200},
                {"type": "screenshot"},
            ],
        )
        v1 = httpx.post(
            server.url("/firecrawl/v1/scrape"),
            json={"url": url, "formats": ["screenshot"]},
            timeout=60,
        ).json()
        refused = httpx.post(
            server.url("/firecrawl/v1/scrape"),
            json={"url": url, "actions": [{"type": "click", "selector": "#nowhere"}]},
            timeout=60,
        )
    assert shot.screenshot and shot.screenshot.startswith(PNG_DATA_URL)
    assert acted.markdown and REVEALED in acted.markdown
    assert acted.images and all(image.startswith("http://spa.test") for image in acted.images)
    assert acted.actions and len(acted.actions["screenshots"]) == 1
    assert v1["success"] and v1["data"]["screenshot"].startswith(PNG_DATA_URL)
    assert refused.status_code >= 400 and refused.json()["success"] is False
