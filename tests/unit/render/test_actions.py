"""The page actions' models (bounds, Firecrawl's shapes) and the image list, without a browser."""

from __future__ import annotations

from typing import Any

import pytest

from netsift.errors import InvalidInput
from netsift.fetch.images import MAX_IMAGES, page_images
from netsift.params import FetchOptions, validated
from netsift.render.actions import (
    MAX_ACTIONS,
    ClickAction,
    Interaction,
    ScreenshotAction,
    Viewport,
    WaitAction,
)


def _options(**fields: Any) -> FetchOptions:
    return validated(FetchOptions, url="https://example.com/", **fields)


def test_firecrawl_actions_parse_into_typed_models() -> None:
    options = _options(
        actions=[
            {"type": "wait", "milliseconds": 500},
            {"type": "click", "selector": "#more"},
            {"type": "write", "text": "hello"},
            {"type": "press", "key": "Enter"},
            {"type": "scroll", "direction": "up"},
            {"type": "screenshot", "full_page": True},
        ]
    )
    assert [action.type for action in options.actions] == [
        "wait",
        "click",
        "write",
        "press",
        "scroll",
        "screenshot",
    ]
    assert options.actions[1] == ClickAction(selector="#more")
    assert options.actions[5] == ScreenshotAction(full_page=True)


def test_firecrawls_screenshot_action_fields_are_read() -> None:
    """As firecrawl-py and firecrawl-js send them: `fullPage`, `quality`, `viewport`."""
    sent = {"type": "screenshot", "fullPage": True, "quality": 80}
    options = _options(actions=[{**sent, "viewport": {"width": 800, "height": 600}}])
    assert options.actions[0] == ScreenshotAction(
        full_page=True, quality=80, viewport=Viewport(width=800, height=600)
    )


@pytest.mark.parametrize(
    ("actions", "field"),
    [
        ([{"type": "click"}], "actions.0.click.selector"),
        ([{"type": "wait"}], "actions.0.wait"),
        ([{"type": "wait", "milliseconds": 10_001}], "actions.0.wait.milliseconds"),
        ([{"type": "write", "text": "x" * 5001}], "actions.0.write.text"),
        ([{"type": "scroll", "direction": "left"}], "actions.0.scroll.direction"),
        ([{"type": "executeJavascript", "script": "1"}], "actions.0"),
        ([{"type": "click", "selector": "a", "button": "right"}], "actions.0.click.button"),
        ([{"type": "press", "key": "a"}] * (MAX_ACTIONS + 1), "actions"),
        ([{"type": "screenshot", "quality": 0}], "actions.0.screenshot.quality"),
        (
            [{"type": "screenshot", "viewport": {"width": 7681, "height": 600}}],
            "actions.0.screenshot.viewport.width",
        ),
        ([{"type": "screenshot", "viewport": {"width": 800}}], "actions.0.screenshot.viewport"),
    ],
)
def test_bad_actions_are_invalid_input_naming_the_field(
    actions: list[dict[str, Any]], field: str
) -> None:
    with pytest.raises(InvalidInput) as refused:
        _options(actions=actions)
    assert field in str(refused.value)


def test_browser_work_cannot_go_with_render_never() -> None:
    for asked in ({"screenshot": "viewport"}, {"actions": [{"type": "press", "key": "Tab"}]}):
        with pytest.raises(InvalidInput):
            _options(render="never", **asked)
    assert _options(images=True, render="never").images  # images need no browser


def test_an_interaction_is_asked_for_only_with_actions_or_a_screenshot() -> None:
    assert not Interaction()
    assert Interaction(screenshot="viewport").shoots
    waits = Interaction(actions=(WaitAction(milliseconds=1),))
    assert waits and not waits.shoots
    assert Interaction(actions=(ScreenshotAction(),)).shoots


def test_page_images_are_absolute_deduplicated_and_bounded() -> None:
    html = """<html><head><base href="https://cdn.example.org/a/"></head><body>
    <img src="one.png"><img src="/two.png"><img src="one.png">
    <img srcset="three-1x.png 1x, three-2x.png 2x">
    <picture><source srcset="https://example.net/four.webp 600w"><img src="four.png"></picture>
    <img src="data:image/gif;base64,R0lGOD"><img src="javascript:alert(1)"><img>
    <video><source src="movie.mp4"></video>
    </body></html>"""
    assert page_images(html, "https://example.com/page") == [
        "https://cdn.example.org/a/one.png",
        "https://cdn.example.org/two.png",
        "https://cdn.example.org/a/three-1x.png",
        "https://cdn.example.org/a/three-2x.png",
        "https://example.net/four.webp",
        "https://cdn.example.org/a/four.png",
    ]
    many = "".join(f"<img src='/{n}.png'>" for n in range(MAX_IMAGES + 50))
    assert len(page_images(many, "https://example.com/")) == MAX_IMAGES
