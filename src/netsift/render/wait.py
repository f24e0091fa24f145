"""When a rendered page is ready: its network is idle and its text has stopped growing.

`settle` polls the page's text length and asks the interceptor since when the network has been
idle; once neither has changed for QUIET_SECONDS the scripts have done their work.
`scroll_screens` then scrolls to the bottom a bounded number of times, settling after each,
for lists that load as you scroll; it stops as soon as a scroll brings nothing new, and does
not start on a page that fits the viewport. Both stop at the render's deadline.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import anyio
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

__all__ = ["measure", "scroll_screens", "settle"]

# How long the text and the network must both stay still: a script that answers an XHR with the
# next request does so within milliseconds (in-flight requests count as busy), and a
# timer-driven loader that waits longer is caught by the scroll's settle or not at all
# (Crawl4AI's network idle is 0.5 s; three 0.1 s polls after a first one took ~0.5 s here).
QUIET_SECONDS = 0.25
# How often the text is measured while waiting (each measure is one evaluate in the page).
POLL_SECONDS = 0.1
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


async def settle(
    page: Page, idle_since: Callable[[], float | None], deadline: float
) -> tuple[int, int]:
    """Wait until the text is unchanged and nothing was in flight for QUIET_SECONDS.

    `idle_since()` is when the last request finished (monotonic), None while one is in flight.
    """
    last = await measure(page)
    changed = time.monotonic()
    while (now := time.monotonic()) < deadline:
        idle = idle_since()
        still = changed if idle is None else max(changed, idle)
        if idle is not None and last[0] >= 0 and now - still >= QUIET_SECONDS:
            return last
        wait = POLL_SECONDS if idle is None else QUIET_SECONDS - (now - still)
        await anyio.sleep(min(max(wait, 0.01), POLL_SECONDS, deadline - now))
        current = await measure(page)
        if current != last or current[0] < 0:
            changed = time.monotonic()
        last = current
    return last


async def scroll_screens(
    page: Page, idle_since: Callable[[], float | None], deadline: float, screens: int
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
        after = await settle(page, idle_since, deadline)
        if after == before or after[0] < 0:
            break
        grew += 1
        before = after
    return grew
