"""The render step of a fetch: after the static fetch, decide whether to run the page's
JavaScript, and do it. Importable without the `browser` extra (Playwright loads on first use).

    never   keep the static HTML.
    auto    render only when `classify_shell` calls the HTML a JavaScript shell; a failed
            render keeps the static page with a warning.
    always  render every HTML page; a failed render is a `render_failed` error.

A screenshot or page actions (`actions.Interaction`) make a fetch render always: without a
browser, or on a page that is not HTML, they are a `render_failed` error, never dropped.

The default is auto when the extra and a Chromium are installed, never otherwise; a page that
looked like a shell and was not rendered says so in `Page.warnings`.
"""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

import httpx

from ..compute import INLINE_MAX_BYTES
from ..config import Settings
from ..errors import RenderFailed
from ..fetch.decode import decode_body, parse_content_type
from ..fetch.sniff import detect_kind
from ..models import ActionResult, RenderMode
from ..net.http import HttpClient
from ..net.robots import RobotsCache
from .actions import Interaction
from .chromium import find_browser, playwright_installed
from .shell import ShellVerdict, classify_shell

if TYPE_CHECKING:
    from ..compute import Compute
    from .interceptor import MainDocument
    from .renderer import Renderer

__all__ = ["RenderOutcome", "RenderStep", "browser_available", "resolve_mode"]

INSTALL_HINT = "install netsift[browser] and Chromium to render it (see the README)"


def _playwright_browser_on_disk() -> bool:
    """Playwright's own Chromium download, where Playwright keeps it (without starting it)."""
    root = os.environ.get("PLAYWRIGHT_BROWSERS_PATH") or os.path.expanduser(
        "~/.cache/ms-playwright"
    )
    return bool(glob.glob(os.path.join(root, "chromium*", "chrome-*", "chrome")))


def browser_available(settings: Settings) -> bool:
    """Playwright importable and a Chromium to drive (its own, the configured or the OS's)."""
    if not playwright_installed():
        return False
    return find_browser(settings.browser_path, None) is not None or (
        not settings.browser_path and _playwright_browser_on_disk()
    )


def resolve_mode(requested: RenderMode | None, settings: Settings, available: bool) -> RenderMode:
    """The caller's choice, else the host's (`NETSIFT_RENDER`), else auto if installed; pure."""
    if requested is not None:
        return requested
    if settings.render is not None:
        return settings.render
    return "auto" if available else "never"


@dataclass(frozen=True)
class RenderOutcome:
    """`html` is the rendered DOM (None: the static HTML stands) and what to tell the reader."""

    html: bytes | None = None
    final_url: str = ""
    rendered: bool = False
    reason: str | None = None
    warning: str | None = None
    screenshot: str | None = None  # a PNG data URL, when the interaction asked for one
    actions: tuple[ActionResult, ...] = ()


class RenderStep:
    """Owns the Renderer (built on first render) for one Fetcher."""

    def __init__(
        self,
        settings: Settings,
        http: HttpClient,
        robots: RobotsCache | None,
        *,
        compute: Compute | None = None,
    ) -> None:
        self.settings = settings
        self.http = http
        self.robots = robots
        self.compute = compute
        self._available: bool | None = None
        self._renderer: Renderer | None = None

    @property
    def available(self) -> bool:
        if self._available is None:
            self._available = browser_available(self.settings)
        return self._available

    @property
    def renderer(self) -> Renderer:
        if self._renderer is None:
            from .renderer import Renderer

            self._renderer = Renderer(self.settings, self.http, self.robots)
        return self._renderer

    async def run(
        self,
        *,
        requested: RenderMode | None,
        body: bytes,
        content_type: str,
        url: str,
        final_url: str,
        respect_robots: bool,
        timeout: float | None,
        verdict: ShellVerdict | None = None,
        interaction: Interaction | None = None,
    ) -> RenderOutcome:
        """Render the static answer `body` of `final_url` if the mode says so. `verdict` is
        the shell check the extraction already made on its parse of the page, if it did;
        an `interaction` is performed in the page and makes the render always happen."""
        available = self.available
        mode = "always" if interaction else resolve_mode(requested, self.settings, available)
        mime, _ = parse_content_type(content_type)
        if detect_kind(mime, body, final_url) != "html":
            if interaction:
                raise RenderFailed(
                    f"a screenshot or page actions need an HTML page; {final_url} is {mime}",
                    details={"stage": "action", "url": final_url},
                    retryable=False,
                )
            if mode == "always":
                return RenderOutcome(reason="not HTML: nothing to render")
            return RenderOutcome()
        if mode == "never" and "never" in (requested, self.settings.render):
            return RenderOutcome()
        reason: str | None = "screenshot or actions asked for" if interaction else "render=always"
        if mode != "always":
            if verdict is None:
                verdict = await self._classify(body, content_type, final_url)
            if not verdict.shell:
                return RenderOutcome()
            reason = verdict.reason
            if mode == "never" or not available:
                return RenderOutcome(
                    reason=reason,
                    warning=f"the page looks like a JavaScript shell ({reason}); {INSTALL_HINT}",
                )
        if not available:
            asked = "a screenshot or page actions need" if interaction else "render=always needs"
            raise RenderFailed(
                f"{asked} a browser; {INSTALL_HINT}",
                details={"stage": "launch"},
                retryable=False,
            )
        limit = (
            self.settings.render_timeout
            if timeout is None
            else min(timeout, self.settings.render_timeout)
        )
        main = _main_document(final_url, body, content_type)
        try:
            rendered = await self.renderer.render(
                main,
                target=_target(url, final_url),
                respect_robots=respect_robots,
                timeout=limit,
                interaction=interaction,
            )
        except RenderFailed as exc:
            if mode == "always":
                raise
            return RenderOutcome(reason=reason, warning=f"{exc.message}; the static HTML is shown")
        return RenderOutcome(
            html=rendered.html.encode(),
            final_url=_without_fragment(rendered.final_url) or final_url,
            rendered=True,
            reason=reason,
            screenshot=rendered.screenshot,
            actions=tuple(rendered.actions),
        )

    async def _classify(self, body: bytes, content_type: str, url: str) -> ShellVerdict:
        """`classify_body` in the compute pool: it parses the whole page, which on the event
        loop held every other request (lexbor took minutes on a million unclosed divs)."""
        if self.compute is None or len(body) <= INLINE_MAX_BYTES:
            return classify_body(body, content_type)
        return await self.compute.run(classify_body, body, content_type, what=f"the page at {url}")

    async def aclose(self) -> None:
        if self._renderer is not None:
            await self._renderer.aclose()


def _main_document(final_url: str, body: bytes, content_type: str) -> MainDocument:
    from .interceptor import MainDocument

    return MainDocument(
        url=_without_fragment(final_url),
        body=body,
        content_type=content_type or "text/html",
    )


def _without_fragment(url: str) -> str:
    try:
        return str(httpx.URL(url).copy_with(fragment=None))
    except httpx.InvalidURL:
        return url


def _target(url: str, final_url: str) -> str:
    """Where the browser goes: the final URL, with the fragment the caller asked for (hash
    routers read it; HTTP never sends it, and a redirect keeps it, as browsers do)."""
    fragment = httpx.URL(url).fragment
    final = httpx.URL(final_url)
    if fragment and not final.fragment:
        return str(final.copy_with(fragment=fragment))
    return final_url


def classify_body(body: bytes, content_type: str) -> ShellVerdict:
    """Whether a static HTML answer is a JavaScript shell, read within the structure caps of
    `fetch/bounds.py`; pure (and picklable by name, for the compute pool)."""
    from ..fetch.html import bounded_html

    return classify_shell(bounded_html(decode_body(body, content_type).text))
