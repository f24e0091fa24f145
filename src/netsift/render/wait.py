"""When a rendered page is ready: its network is idle and its text has stopped growing.

`settle` polls the page's text length and the interceptor's in-flight count; a few quiet
polls in a row mean the scripts have done their work. `scroll_screens` then scrolls to the
bottom a bounded number of times, settling after each, for lists that load as you scroll;
it stops as soon as a scroll brings nothing new, and does not start on a page that fits the
viewport. Both stop at the render's deadline.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import anyio
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

__all__ = ["measure", "scroll_screens", "settle"]

# Poll often enough that a fast page is read ~0.3 s after it settles...
POLL_SECONDS = 0.1
# ...and require this many identical, idle polls: XHR chains answer within one poll here.
STABLE_POLLS = 3
_MEASURE = """() => [
  document.body ? document.body.innerText.length : 0,
  document.documentElement ? document.documentElement.scrollHeight : 0,
]"""
_SCROLL = "() => window.scrollTo(0, document.documentElement.scrollHeight)"
_FITS = "() => document.documentElement.scrollHeight <= window.innerHeight + 1"


async def measure(page: Page) -> tuple[int, int]:
    """(text length, scroll height); (-1, -1) while a navigation replaces the document."""
    try:
        text, height = await page.evaluate(_MEASURE)
    except PlaywrightError:
        browser = page.context.browser
        if page.is_closed() or (browser is not None and not browser.is_connected()):
            raise  # the browser is gone: the render fails now, not at its deadline
        return (-1, -1)
    return int(text), int(height)


async def settle(page: Page, busy: Callable[[], bool], deadline: float) -> tuple[int, int]:
    """Wait until nothing is in flight and the text is unchanged for STABLE_POLLS polls."""
    last = (-2, -2)
    quiet = 0
    while time.monotonic() < deadline:
        await anyio.sleep(POLL_SECONDS)
        now = await measure(page)
        if now == last and now[0] >= 0 and not busy():
            quiet += 1
            if quiet >= STABLE_POLLS:
                return now
        else:
            quiet = 0
        last = now
    return last


async def scroll_screens(
    page: Page, busy: Callable[[], bool], deadline: float, screens: int
) -> int:
    """Scroll to the bottom up to `screens` times while each scroll adds content; returns how
    many scrolls brought something."""
    grew = 0
    try:
        if await page.evaluate(_FITS):
            return 0  # nothing below the fold: no scroll can load more
    except PlaywrightError:
        return 0
    before = await measure(page)
    for _ in range(screens):
        if time.monotonic() >= deadline:
            break
        try:
            await page.evaluate(_SCROLL)
        except PlaywrightError:
            break
        after = await settle(page, busy, deadline)
        if after == before or after[0] < 0:
            break
        grew += 1
        before = after
    return grew
