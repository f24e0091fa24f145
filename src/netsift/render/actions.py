"""Page actions and screenshots: what a caller does in the rendered page before it is read.

Firecrawl's `actions` (wait, click, write, press, scroll, screenshot) as typed, bounded models,
and `run_actions`, which performs them in order in the renderer's page once it has settled.
Each action is followed by a settle, so whatever it set off (a click that navigates, a form
post, an XHR) is done, through the render's `Interceptor` and thus the SSRF guard, before the
next one starts. An action that fails (its selector never appears, the key is unknown) or whose
navigation the guard refuses is an error naming its index: never skipped, never ignored.
Importable without the `browser` extra (Playwright is only typed here).
"""

from __future__ import annotations

import base64
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic_core import PydanticCustomError

from ..errors import NetsiftError, RenderFailed
from ..models import ActionResult, ScreenshotMode

if TYPE_CHECKING:
    from playwright.async_api import Page

    from .interceptor import Interceptor

__all__ = [
    "MAX_ACTIONS",
    "MAX_SCREENSHOT_HEIGHT",
    "MAX_SCREENSHOT_PIXELS",
    "Action",
    "AnyAction",
    "ClickAction",
    "Interaction",
    "PressAction",
    "ScreenshotAction",
    "ScrollAction",
    "Viewport",
    "WaitAction",
    "WriteAction",
    "run_actions",
    "take_screenshot",
]

# A scripted visit (log in, open a tab, search, shoot), not a browsing session: Firecrawl's
# examples use a handful; twenty bounds the render's time and the answer's screenshots.
MAX_ACTIONS = 20
# One wait: long enough for a slow widget, short of the render's whole timeout (30 s).
MAX_WAIT_MS = 10_000
# How long a selector is looked for before the action fails: an element a page shows at all
# shows within seconds of the action before it; the render's deadline bounds it too.
SELECTOR_TIMEOUT_MS = 5_000
# A form's worth of text; longer is a payload, not typing (typing is ~1 ms a character).
MAX_TEXT_CHARS = 5_000
MAX_SELECTOR_CHARS = 1_000
# A click on every match (`all`): a page's "show more" buttons are a handful; a page with
# thousands of matches would spend the render's time clicking.
MAX_CLICKS = 50
MAX_KEY_CHARS = 40  # "Control+Shift+ArrowDown" and the like
# A full-page screenshot is cut at this height in CSS pixels (~10 screens of the 1600 px
# viewport): an infinite or hostile page can be hundreds of thousands of pixels tall, and
# Chromium's image and the base64 answer grow with it (a text page's 16k px PNG is a few MB).
MAX_SCREENSHOT_HEIGHT = 16_000
# The same image budget at any width: a wider viewport (a screenshot action's `viewport`) cuts
# a full page shorter, so the image never holds more pixels than the default width's cap.
DEFAULT_SCREENSHOT_WIDTH = 1280  # renderer.VIEWPORT's width
MAX_SCREENSHOT_PIXELS = DEFAULT_SCREENSHOT_WIDTH * MAX_SCREENSHOT_HEIGHT
# Firecrawl's bounds for a screenshot action's viewport (an 8K screen, its API's own limits).
MAX_VIEWPORT_WIDTH = 7680
MAX_VIEWPORT_HEIGHT = 4320
PNG_DATA_URL = "data:image/png;base64,"
JPEG_DATA_URL = "data:image/jpeg;base64,"


class _Action(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, str_strip_whitespace=True)


Selector = Annotated[
    str, Field(min_length=1, max_length=MAX_SELECTOR_CHARS, description="A CSS selector.")
]


class WaitAction(_Action):
    """Wait a number of milliseconds, or until an element matching `selector` is visible."""

    type: Literal["wait"] = "wait"
    milliseconds: int | None = Field(default=None, ge=0, le=MAX_WAIT_MS)
    selector: Selector | None = None

    @model_validator(mode="after")
    def _waits_for_something(self) -> WaitAction:
        if self.milliseconds is None and self.selector is None:
            raise PydanticCustomError("wait_for_nothing", "a wait needs milliseconds or selector")
        return self


class ClickAction(_Action):
    """Click the first element matching `selector`, or with `all` each one in page order, up
    to MAX_CLICKS (and wait for what it set off)."""

    type: Literal["click"] = "click"
    selector: Selector
    all: bool = False


class WriteAction(_Action):
    """Type `text` into the focused element (click an input first)."""

    type: Literal["write"] = "write"
    text: str = Field(max_length=MAX_TEXT_CHARS)


class PressAction(_Action):
    """Press a key on the focused element, by its name ("Enter", "Tab", "Shift+A")."""

    type: Literal["press"] = "press"
    key: str = Field(min_length=1, max_length=MAX_KEY_CHARS)


class ScrollAction(_Action):
    """Scroll the page (or the element matching `selector`) one screen up or down."""

    type: Literal["scroll"] = "scroll"
    direction: Literal["up", "down"] = "down"
    selector: Selector | None = None


class Viewport(_Action):
    """The browser window's size for one screenshot, in CSS pixels (Firecrawl's bounds)."""

    width: int = Field(ge=1, le=MAX_VIEWPORT_WIDTH)
    height: int = Field(ge=1, le=MAX_VIEWPORT_HEIGHT)


class ScreenshotAction(_Action):
    """A PNG of the viewport, or of the whole page (cut at MAX_SCREENSHOT_PIXELS); with
    `quality` a JPEG of that quality (a PNG has none); with `viewport` the window is that size
    for the shot, and back to its own after. Firecrawl spells it `fullPage`."""

    model_config = ConfigDict(populate_by_name=True)

    type: Literal["screenshot"] = "screenshot"
    full_page: bool = Field(default=False, alias="fullPage")
    quality: int | None = Field(default=None, ge=1, le=100)
    viewport: Viewport | None = None


AnyAction = WaitAction | ClickAction | WriteAction | PressAction | ScrollAction | ScreenshotAction
Action = Annotated[AnyAction, Field(discriminator="type")]


@dataclass(frozen=True)
class Interaction:
    """What the caller does in the page before it is read: its actions, in order, then a
    screenshot of the page if asked. Either makes the fetch render (step.py)."""

    actions: Sequence[AnyAction] = ()
    screenshot: ScreenshotMode | None = None

    def __bool__(self) -> bool:
        return bool(self.actions) or self.screenshot is not None

    @property
    def shoots(self) -> bool:
        """A screenshot is taken: the page's images are loaded (through the guard) for it, as a
        visitor sees them, though a render for text refuses them."""
        return self.screenshot is not None or any(
            isinstance(action, ScreenshotAction) for action in self.actions
        )


_SCROLL_PAGE = "(sign) => window.scrollBy(0, sign * window.innerHeight)"
_SCROLL_ELEMENT = "(el, sign) => el.scrollBy(0, sign * (el.clientHeight || window.innerHeight))"
_PAGE_HEIGHT = "() => document.documentElement ? document.documentElement.scrollHeight : 0"


async def take_screenshot(
    page: Page, mode: ScreenshotMode, *, quality: int | None = None, size: Viewport | None = None
) -> str:
    """The page as a data URL: its viewport, or its whole height up to the pixel cap; a JPEG
    of `quality` when given, else a PNG; taken at the window `size` when given (restored
    after, as the renderer's pages are reused)."""
    own = page.viewport_size
    if size is not None:
        await page.set_viewport_size({"width": size.width, "height": size.height})
    try:
        kind: Literal["png", "jpeg"] = "png" if quality is None else "jpeg"
        if mode == "viewport":
            image = await page.screenshot(type=kind, quality=quality)
        else:
            width = page.viewport_size["width"] if page.viewport_size else DEFAULT_SCREENSHOT_WIDTH
            cap = MAX_SCREENSHOT_PIXELS // width
            height = min(max(int(await page.evaluate(_PAGE_HEIGHT)), 1), cap)
            clip = {"x": 0, "y": 0, "width": width, "height": height}
            image = await page.screenshot(
                type=kind,
                quality=quality,
                full_page=True,
                clip=clip,  # type: ignore[arg-type]
            )
    finally:
        if size is not None and own is not None:
            await page.set_viewport_size(own)
    prefix = PNG_DATA_URL if quality is None else JPEG_DATA_URL
    return prefix + base64.b64encode(image).decode("ascii")


async def run_actions(
    page: Page,
    actions: Sequence[AnyAction],
    interceptor: Interceptor,
    deadline: float,
    settle: Callable[[], Awaitable[object]],
) -> list[ActionResult]:
    """Perform `actions` in order; `settle()` is awaited after each. Raises RenderFailed (or
    the guard's own error for a refused navigation) with the failing action's index."""
    from playwright.async_api import Error as PlaywrightError

    results: list[ActionResult] = []
    for index, action in enumerate(actions):
        refused_before = len(interceptor.refused_navigations)
        remaining_ms = (deadline - time.monotonic()) * 1000
        if remaining_ms <= 0:
            raise _failed(index, action, "the render's time ran out before it")
        timeout = min(SELECTOR_TIMEOUT_MS, remaining_ms)
        shot: str | None = None
        try:
            if isinstance(action, WaitAction):
                if action.selector is not None:
                    await page.wait_for_selector(action.selector, state="visible", timeout=timeout)
                if action.milliseconds:
                    await page.wait_for_timeout(min(action.milliseconds, remaining_ms))
            elif isinstance(action, ClickAction) and action.all:
                await page.wait_for_selector(action.selector, timeout=timeout)
                for match in (await page.query_selector_all(action.selector))[:MAX_CLICKS]:
                    await match.click(timeout=timeout)
            elif isinstance(action, ClickAction):
                await page.click(action.selector, timeout=timeout)
            elif isinstance(action, WriteAction):
                await page.keyboard.type(action.text)
            elif isinstance(action, PressAction):
                await page.keyboard.press(action.key)
            elif isinstance(action, ScrollAction):
                sign = -1 if action.direction == "up" else 1
                if action.selector is None:
                    await page.evaluate(_SCROLL_PAGE, sign)
                else:
                    element = await page.wait_for_selector(action.selector, timeout=timeout)
                    assert element is not None  # wait_for_selector raises rather than None
                    await element.evaluate(_SCROLL_ELEMENT, sign)
            else:
                mode: ScreenshotMode = "full_page" if action.full_page else "viewport"
                shot = await take_screenshot(
                    page, mode, quality=action.quality, size=action.viewport
                )
            await settle()
        except PlaywrightError as exc:
            browser = page.context.browser
            if page.is_closed() or (browser is not None and not browser.is_connected()):
                raise  # the browser is gone: the renderer reports a crash
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise _failed(index, action, first) from None
        refusals = interceptor.refused_navigations[refused_before:]
        if refusals:
            url, error = refusals[0]
            error.message = f"action {index} ({action.type}) navigated to {url}: {error.message}"
            error.args = (error.message,)
            error.details.update(action=index, type=action.type, url=url)
            raise error
        results.append(ActionResult(index=index, type=action.type, screenshot=shot))
    return results


def _failed(index: int, action: BaseModel, why: str) -> NetsiftError:
    kind = getattr(action, "type", "action")
    return RenderFailed(
        f"action {index} ({kind}) failed: {why}",
        details={"stage": "action", "action": index, "type": kind},
        retryable=False,
    )
