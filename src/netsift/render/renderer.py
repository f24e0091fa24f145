"""Renderer: one headless Chromium per process, contexts reused and wiped, guarded throughout.

The browser is launched on first use and reused. Each render gets a context and a page of its
own while it runs (service workers blocked, downloads refused, every request routed through
`Interceptor`, i.e. netsift's HttpClient). A page that served a render is wiped and kept, with
its context, for the next one: sessionStorage and `window.name` cleared, the page sent to
about:blank (its scripts and sockets end; the back-forward cache is off, `chromium.py`), the
storage of every origin the render loaded cleared (local storage, IndexedDB, Cache Storage...)
and every cookie, and the JavaScript heap the last site left is collected. After
`CONTEXT_RENDERS` renders, or when the page opened a popup or the wipe failed, the context is
closed instead. Why: a new page starts a renderer process, which costs
a few hundred ms of CPU, most of a small page's render (bench/README.md). The browser's
proxy is the deny-all sink and its name resolution is off (`chromium.py`), so nothing leaves
it any other way. At most `render_concurrency` pages render at once; when the browser's
processes hold more than `render_memory_mb` (PSS, `memory.py`) between renders it is closed
and relaunched on the next render; when it crashes or hangs the render fails with
`render_failed` and the next render starts a new browser.
"""

from __future__ import annotations

import os
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import anyio
from playwright.async_api import (
    Browser,
    BrowserContext,
    Page,
    Playwright,
    Route,
    WebSocketRoute,
    async_playwright,
)
from playwright.async_api import Error as PlaywrightError

from ..config import Settings
from ..errors import RenderFailed
from ..models import ActionResult
from ..net.http import HttpClient
from ..net.robots import RobotsCache
from .actions import Interaction, run_actions, take_screenshot
from .chromium import browser_args, find_browser, proxy_settings
from .driver import driver_environment
from .interceptor import Budget, Interceptor, MainDocument
from .memory import PROC, descendants, tree_pss
from .sink import SINK_HOST, DenyAllProxy
from .wait import scroll_screens, settle

__all__ = ["Rendered", "Renderer"]

# Tall enough that a listing shows a few screens' worth per scroll, like a desktop browser.
VIEWPORT = {"width": 1280, "height": 1600}
# Seconds on top of the render's own deadline before a hung browser is given up on.
HANG_GRACE = 5.0
LAUNCH_TIMEOUT_MS = 30_000
MiB = 1024 * 1024
# Renders one context serves before it is closed and replaced: a bound on whatever state the
# wipe between renders might miss (Chromium's in-memory caches, partitioned storage).
CONTEXT_RENDERS = 32
# Wiping a page takes milliseconds: one that takes longer is not reused but closed...
WIPE_SECONDS = 2.0
# ...and closing takes milliseconds too: a browser that takes longer is hung.
RELEASE_SECONDS = WIPE_SECONDS + 3.0


@dataclass
class _Slot:
    """A context and the interceptor of the render using it (None between renders: refused)."""

    context: BrowserContext
    page: Page | None = None
    interceptor: Interceptor | None = None
    renders: int = 0

    async def route(self, route: Route) -> None:
        if self.interceptor is None:
            await route.abort("blockedbyclient")  # a straggler of a finished render
            return
        await self.interceptor.route(route)

    async def websocket(self, ws: WebSocketRoute) -> None:
        if self.interceptor is None:
            await ws.close(code=1008, reason="the render is over")
            return
        await self.interceptor.websocket(ws)


@dataclass(frozen=True)
class Rendered:
    """The DOM after scripts (and the caller's actions) ran, and what the render did on the
    network."""

    html: str
    final_url: str
    requests: int
    refused: int
    scrolls: int
    screenshot: str | None = None
    actions: list[ActionResult] = field(default_factory=list)


class Renderer:
    """See the module docstring. `launches` and `restarts` count browsers started/recycled,
    `pages` the pages opened (a reused page is counted once)."""

    def __init__(self, settings: Settings, http: HttpClient, robots: RobotsCache | None) -> None:
        self.settings = settings
        self.http = http
        self.robots = robots
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None
        self._sink: DenyAllProxy | None = None
        self._slots: anyio.Semaphore | None = None
        self._launching: anyio.Lock | None = None
        self._active = 0
        self._idle: list[_Slot] = []
        self._marker = f"--netsift-render={uuid.uuid4().hex}"
        self.launches = 0
        self.restarts = 0
        self.pages = 0

    @property
    def sink(self) -> DenyAllProxy | None:
        return self._sink

    async def render(
        self,
        main: MainDocument,
        *,
        target: str,
        respect_robots: bool,
        timeout: float,
        interaction: Interaction | None = None,
    ) -> Rendered:
        """Render `target` (whose HTML is `main`) within `timeout` seconds, performing the
        caller's `interaction` once it has settled."""
        if self._slots is None:
            self._slots = anyio.Semaphore(self.settings.render_concurrency)
        todo = interaction or Interaction()
        try:
            async with self._slots:
                return await self._render_in_slot(main, target, respect_robots, timeout, todo)
        finally:
            await self._enforce_memory()  # after the slot is free: the next render need not wait

    async def _render_in_slot(
        self,
        main: MainDocument,
        target: str,
        respect_robots: bool,
        timeout: float,
        interaction: Interaction,
    ) -> Rendered:
        self._active += 1  # before the browser is taken: a restart now waits for us
        try:
            browser = await self._ensure_browser()
        except BaseException:
            self._active -= 1
            raise
        try:
            with anyio.fail_after(timeout + HANG_GRACE):
                return await self._render(
                    browser, main, target, respect_robots, timeout, interaction
                )
        except TimeoutError:
            await self._drop()
            raise RenderFailed(
                f"the browser did not finish {main.url} within {timeout + HANG_GRACE:g}s",
                details={"url": main.url, "stage": "hang"},
            ) from None
        except PlaywrightError as exc:
            crashed = not browser.is_connected()
            if crashed:
                await self._drop()
            raise RenderFailed(
                f"the browser {'crashed' if crashed else 'failed'} rendering {main.url}: "
                f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}",
                details={"url": main.url, "stage": "crash" if crashed else "render"},
            ) from None
        finally:
            self._active -= 1

    async def _render(
        self,
        browser: Browser,
        main: MainDocument,
        target: str,
        robots: bool,
        timeout: float,
        interaction: Interaction,
    ) -> Rendered:
        deadline = time.monotonic() + timeout
        interceptor = Interceptor(
            http=self.http,
            robots=self.robots if robots else None,
            audit=self.http.audit,
            main=main,
            budget=Budget(
                requests=self.settings.render_max_requests,
                bytes=self.settings.render_max_bytes,
                deadline=deadline,
            ),
            media=self.settings.render_media or interaction.shoots,
        )
        slot = await self._take_slot(browser)
        slot.interceptor = interceptor
        loaded: list[Rendered] = []
        failed: list[Exception] = []
        try:
            async with anyio.create_task_group() as sockets:
                interceptor.sockets = sockets
                try:
                    loaded.append(
                        await self._load(slot, interceptor, target, deadline, timeout, interaction)
                    )
                except Exception as exc:  # raised below as itself, not in an ExceptionGroup
                    failed.append(exc)
                finally:
                    sockets.cancel_scope.cancel()  # the relayed WebSockets end with the render
        finally:
            interceptor.sockets = None
            slot.interceptor = None
            # shielded: a cancelled fetch must not leave its page open, bounded: nor hang on a
            # browser that stopped answering
            with anyio.move_on_after(RELEASE_SECONDS, shield=True):
                await self._release(browser, slot, slot.page, interceptor.origins)
        if failed:
            raise failed[0]
        return loaded[0]

    async def _load(
        self,
        slot: _Slot,
        interceptor: Interceptor,
        target: str,
        deadline: float,
        timeout: float,
        interaction: Interaction,
    ) -> Rendered:
        """Open `target` in the slot's page, perform the interaction once it has settled (the
        screenshot before the reading scrolls move the page) and read it."""
        page = slot.page
        if page is None:
            page = slot.page = await slot.context.new_page()
            self.pages += 1
        await page.goto(target, wait_until="domcontentloaded", timeout=timeout * 1000)
        idle = interceptor.idle_since
        await settle(page, idle, deadline)

        async def settled() -> object:
            return await settle(page, idle, deadline)

        done = await run_actions(page, interaction.actions, interceptor, deadline, settled)
        shot = None
        if interaction.screenshot is not None:
            shot = await take_screenshot(page, interaction.screenshot)
        scrolls = await scroll_screens(page, idle, deadline, self.settings.render_scrolls)
        return Rendered(
            html=await page.content(),
            final_url=page.url,
            requests=interceptor.sent,
            refused=len(interceptor.refused),
            scrolls=scrolls,
            screenshot=shot,
            actions=done,
        )

    async def _take_slot(self, browser: Browser) -> _Slot:
        """An idle wiped context of this browser, else a new one with the routes installed."""
        while self._idle:
            slot = self._idle.pop()
            if slot.context.browser is browser and browser.is_connected():
                slot.renders += 1
                return slot
        context = await browser.new_context(
            service_workers="block",
            accept_downloads=False,
            viewport=VIEWPORT,  # type: ignore[arg-type]
        )
        slot = _Slot(context, renders=1)
        try:
            await context.route("**/*", slot.route)
            await context.route_web_socket("**/*", slot.websocket)
        except BaseException:
            await _close_context(context)
            raise
        return slot

    async def _release(
        self, browser: Browser, slot: _Slot, page: Page | None, origins: set[str]
    ) -> None:
        """Wipe the context and keep it for the next render, or close it (module docstring)."""
        keep = (
            page is not None
            and slot.renders < CONTEXT_RENDERS
            and browser is self._browser
            and browser.is_connected()
            and not page.is_closed()
            and slot.context.pages == [page]  # a popup would outlive the wipe: no reuse
        )
        if keep and page is not None:
            keep = False
            # a page can hang the wipe (a `window.name` setter that loops): then it is closed
            with anyio.move_on_after(WIPE_SECONDS):
                try:
                    await wipe(slot.context, page, origins)
                    keep = True
                except PlaywrightError:
                    pass
        if keep and len(self._idle) < self.settings.render_concurrency:
            self._idle.append(slot)
        else:
            await _close_context(slot.context)

    async def _ensure_browser(self) -> Browser:
        if self._launching is None:
            self._launching = anyio.Lock()
        async with self._launching:
            if self._browser is not None and self._browser.is_connected():
                return self._browser
            await self._drop()
            if self._sink is None:
                self._sink = DenyAllProxy(self.http.audit)
                await self._sink.start()
            if self._playwright is None:
                try:
                    with driver_environment():  # the driver's memory settings (driver.py)
                        self._playwright = await async_playwright().start()
                except Exception as exc:  # the driver is missing or broken
                    raise RenderFailed(
                        f"Playwright did not start: {exc}", details={"stage": "launch"}
                    ) from None
            chromium = self._playwright.chromium
            path = find_browser(self.settings.browser_path, chromium.executable_path)
            if path is None:
                raise RenderFailed(
                    "no Chromium to render with: install the OS package (apt-get install "
                    "chromium) or set NETSIFT_BROWSER_PATH",
                    details={"stage": "launch"},
                    retryable=False,
                )
            try:
                self._browser = await chromium.launch(
                    executable_path=path,
                    headless=True,
                    args=[*browser_args(SINK_HOST), self._marker],
                    proxy=proxy_settings(self._sink.url),  # type: ignore[arg-type]
                    handle_sigint=False,
                    handle_sigterm=False,
                    handle_sighup=False,
                    timeout=LAUNCH_TIMEOUT_MS,
                )
            except PlaywrightError as exc:
                raise RenderFailed(
                    f"the browser at {path} did not start: {str(exc).splitlines()[0]}",
                    details={"stage": "launch"},
                ) from None
            self.launches += 1
            return self._browser

    def open_contexts(self) -> int:
        """Contexts the browser holds (each render's, idle ones kept for reuse)."""
        browser = self._browser
        return len(browser.contexts) if browser is not None and browser.is_connected() else 0

    def browser_pids(self) -> list[int]:
        """The browser's processes (its main process, found by our marker, and all below)."""
        for pid in descendants_of_self():
            try:
                cmdline = (PROC / str(pid) / "cmdline").read_bytes()
            except OSError:
                continue
            if self._marker.encode() in cmdline.split(b"\0"):
                return [pid, *descendants(pid)]
        return []

    def memory_bytes(self) -> int:
        return tree_pss(self.browser_pids())

    async def _enforce_memory(self) -> None:
        """Between renders, recycle a browser that holds more than the ceiling."""
        if self._active or self._browser is None:
            return
        used = await anyio.to_thread.run_sync(self.memory_bytes)  # a walk over /proc
        if used > self.settings.render_memory_mb * MiB and not self._active:
            self.restarts += 1
            await self._drop()  # forgets the browser before awaiting: the next render relaunches

    async def _drop(self) -> None:
        self._idle.clear()  # contexts close with their browser
        browser, self._browser = self._browser, None
        if browser is not None:
            try:
                await browser.close()
            except PlaywrightError:
                pass  # already gone

    async def aclose(self) -> None:
        await self._drop()
        if self._playwright is not None:
            playwright, self._playwright = self._playwright, None
            try:
                await playwright.stop()
            except Exception:  # the driver may already be gone; closing must not fail
                pass
        if self._sink is not None:
            await self._sink.aclose()
            self._sink = None


_FORGET_FRAME = "() => { try { sessionStorage.clear(); } catch (e) {} window.name = ''; }"


async def wipe(context: BrowserContext, page: Page, origins: set[str]) -> None:
    """Forget what a render left in `context` (module docstring). Raises PlaywrightError."""
    for frame in page.frames:
        await frame.evaluate(_FORGET_FRAME)
    await page.goto("about:blank")
    session = await context.new_cdp_session(page)
    try:
        for origin in sorted(origins):
            await session.send(
                "Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"}
            )
        # the last site's JavaScript heap is garbage now, but V8 would keep it until its next
        # collection in this page: collected now, a kept page holds ~15 MiB less at the peak
        await session.send("HeapProfiler.collectGarbage")
    finally:
        await session.detach()
    await context.clear_cookies()


async def _close_context(context: BrowserContext) -> None:
    try:
        await context.close()
    except PlaywrightError:
        pass  # the browser is gone; the caller reports that


def descendants_of_self() -> list[int]:
    return descendants(os.getpid()) if Path(PROC).is_dir() else []
