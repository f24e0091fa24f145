"""The web page's test bench: the offline tour (provider simulators, the research pages, the
scripted model), a small site of its own (a long article, a hostile page, a docs tree to
crawl), and a real `netsift serve` with an API key pointed at all of it; plus a headless
Chromium to drive the page. tests/e2e/test_web_page.py and scripts/screenshots both use it.
"""

from __future__ import annotations

import contextlib
import html
import os
import struct
import subprocess
import sys
import tempfile
import threading
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import anyio
import httpx
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.routing import Route

from netsift.config import Settings
from netsift.render.chromium import find_browser
from tests.e2e.fleet import free_port, until
from tests.offline_web.server import serve
from tests.offline_web.tour import Tour

if TYPE_CHECKING:
    from playwright.sync_api import ViewportSize

__all__ = [
    "API_KEY",
    "LONG_LAST_SENTENCE",
    "SITE_HOST",
    "Bench",
    "bench",
    "chromium_path",
]

API_KEY = "web-page-test-key"
SITE_HOST = "reader.test"
# The article is longer than the reader's first chunk (js/reader.js CHUNK, 12,000 characters):
# its last words arrive only with "Continue reading".
LONG_SECTIONS = 14
LONG_LAST_SENTENCE = "The harbour lights went out one by one, and the almanac was finished."


def chromium_path() -> str | None:
    """The Chromium the render tests use (NETSIFT_BROWSER_PATH or the OS package)."""
    return find_browser(Settings(_env_file=None).browser_path, None)


def png(width: int, height: int) -> bytes:
    """A real PNG: a sky over a sea, for the article's preview image and the site's icon."""
    rows = []
    for y in range(height):
        colour = bytes((135, 190, 235)) if y < height * 0.55 else bytes((20, 70, 120))
        rows.append(b"\x00" + colour * width)

    def chunk(tag: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(tag + data)
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"".join(rows)))
        + chunk(b"IEND", b"")
    )


# An SVG that would run script if shown as a document: the image relay must refuse it.
SCRIPTED_SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg"><script>window.__svgRan = 1</script>'
    '<rect width="10" height="10"/></svg>'
)


async def _image(request: Request) -> Response:
    name = request.path_params["name"]
    if name == "almanac.png":
        return Response(png(240, 150), media_type="image/png")
    if name == "icon.png":
        return Response(png(32, 32), media_type="image/png")
    if name == "scripted.svg":
        return Response(SCRIPTED_SVG, media_type="image/svg+xml")
    return PlainTextResponse("not found", status_code=404)


def _page(title: str, body: str, head: str = "") -> HTMLResponse:
    return HTMLResponse(
        f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{html.escape(title)}"
        f"</title>{head}</head><body>{body}</body></html>"
    )


def _section(n: int) -> str:
    words = (
        f"The tide tables of year {n} were kept by the harbour master, who wrote each high and low "
        "water by hand before checking it against the church clock and the lighthouse log. "
    )
    return (
        f"<h2>Chapter {n}: the tides of year {n}</h2>"
        + "".join(f"<p>{words * 2}Entry {n}.{p} ends here.</p>" for p in range(1, 4))
        + f"<ul><li>High water {n}</li><li>Low water {n}</li></ul>"
    )


async def _long(request: Request) -> Response:
    head = (
        '<meta property="og:title" content="The Harbour Almanac">'
        '<meta property="og:site_name" content="Reader Test Gazette">'
        '<meta property="og:description" content="A long account of a harbour\'s tides.">'
        '<meta property="og:image" content="/img/almanac.png">'
        '<link rel="icon" href="/img/icon.png">'
        '<meta name="author" content="Mara Quill">'
        '<meta property="article:published_time" content="2026-03-14T09:00:00Z">'
    )
    intro = (
        "<h1>The Harbour Almanac</h1>"
        "<p>An <strong>almanac</strong> of <em>tides</em>, with a <code>tide_table</code> and "
        '<a href="/docs/">the docs</a>.</p>'
        "<table><thead><tr><th>Month</th><th>Highest tide</th></tr></thead>"
        "<tbody><tr><td>March</td><td>5.1 m</td></tr><tr><td>April</td><td>4.8 m</td></tr>"
        "</tbody></table>"
        "<pre><code>high = max(readings)\nlow = min(readings)</code></pre>"
        "<blockquote><p>The sea keeps its own time.</p></blockquote>"
    )
    sections = "".join(_section(n) for n in range(1, LONG_SECTIONS + 1))
    end = f"<p>{LONG_LAST_SENTENCE}</p>"
    return _page("The Harbour Almanac", f"<article>{intro}{sections}{end}</article>", head)


async def _hostile(request: Request) -> Response:
    """A page whose every trick must stay text in the reader: scripts, handlers, a javascript:
    link, and HTML written as text (escaped here, so it reaches the Markdown as characters)."""
    body = (
        "<article><h1>Tricks in a page</h1>"
        "<p>This page tries to run script in whoever shows it; none of it may run.</p>"
        "<script>window.__pagePwned = 'script tag';</script>"
        "<p><img src='/x.png' onerror=\"window.__pagePwned='onerror'\" alt='a picture'> "
        "<a href=\"javascript:window.__pagePwned='link'\">a javascript link</a> and "
        "<a href='/docs/a'>a real link</a>.</p>"
        "<p>Written as text: &lt;script&gt;window.__pagePwned='text'&lt;/script&gt; and "
        "&lt;img src=x onerror=alert(1)&gt; stay characters.</p>"
        "<p>A Markdown link to script: [click](javascript:alert(1)) stays inert.</p>"
        "</article>"
    )
    return _page("Tricks in a page", body)


_DOCS = {
    "": ("Tide docs", "Start here.", ["a", "b", "c"]),
    "a": ("Reading a tide table", "How to read the columns of a tide table.", ["b"]),
    "b": ("Spring and neap tides", "Why some tides are higher than others.", ["c"]),
    "c": ("Tide clocks", "Clocks that show the tide instead of the hour.", []),
}


async def _docs(request: Request) -> Response:
    name = request.path_params.get("name", "")
    if name not in _DOCS:
        return PlainTextResponse("not found", status_code=404)
    title, text, links = _DOCS[name]
    items = "".join(f'<li><a href="/docs/{link}">{_DOCS[link][0]}</a></li>' for link in links)
    paragraphs = "".join(
        f"<p>{text} Paragraph {n} of the {title.lower()} page.</p>" for n in range(3)
    )
    return _page(title, f"<main><h1>{title}</h1>{paragraphs}<ul>{items}</ul></main>")


SLOW_PAGE_SECONDS = 0.4  # each page of the slow chain: a crawl of it lasts long enough to stop


async def _slow(request: Request) -> Response:
    """A chain of pages, each slow to answer and linking to the next: a crawl still running."""
    n = int(request.path_params["n"])
    await anyio.sleep(SLOW_PAGE_SECONDS)
    links = "".join(f'<a href="/slow/{n + k}">next {n + k}</a> ' for k in (1, 2))
    return _page(
        f"Slow page {n}",
        f"<main><h1>Slow page {n}</h1><p>Page {n} of a long chain.</p>{links}</main>",
    )


def site_app() -> Starlette:
    return Starlette(
        routes=[
            Route("/long", _long),
            Route("/hostile", _hostile),
            Route("/docs/", _docs),
            Route("/docs/{name}", _docs),
            Route("/img/{name}", _image),
            Route("/slow/{n:int}", _slow),
        ]
    )


@dataclass(frozen=True)
class Bench:
    url: str  # netsift serve
    site: str  # this bench's own site, http://reader.test:<port>
    tour: Tour
    key: str = API_KEY

    def api(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        headers = {"Authorization": f"Bearer {self.key}"}
        return httpx.request(method, self.url + path, headers=headers, timeout=30, **kwargs)


@contextlib.contextmanager
def bench(*, keys: bool = True) -> Iterator[Bench]:
    """Everything the page talks to, running until the block ends (the serve process killed)."""
    with Tour.start() as tour, serve(site_app(), timeout_graceful_shutdown=1) as site:
        env = tour.env()
        env["NETSIFT_RESOLVE"] += f",{SITE_HOST}:127.0.0.1"
        env["NETSIFT_PROVIDERS"] = "brave,duckduckgo"
        if keys:
            env["NETSIFT_API_KEYS"] = API_KEY
        port = free_port()
        with tempfile.TemporaryDirectory(prefix="netsift-web-page-") as tmp:
            log = open(Path(tmp) / "serve.log", "wb")
            command = [sys.executable, "-m", "netsift", "serve", "--port", str(port)]
            process = subprocess.Popen(
                [*command, "--log-level", "warning"],
                env={**os.environ, **env},
                stdout=log,
                stderr=subprocess.STDOUT,
            )
            url = f"http://127.0.0.1:{port}"

            def up() -> bool:
                if process.poll() is not None:
                    raise AssertionError(
                        f"netsift serve exited: {(Path(tmp) / 'serve.log').read_text()}"
                    )
                try:
                    return httpx.get(f"{url}/healthz", timeout=1).status_code == 200
                except httpx.HTTPError:
                    return False

            try:
                until(up, 60, what="netsift serve to start")
                yield Bench(url=url, site=f"http://{SITE_HOST}:{site.port}", tour=tour)
            finally:
                process.kill()
                process.wait(timeout=10)
                log.close()


SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
DESKTOP: ViewportSize = {"width": 1200, "height": 860}
PHONE: ViewportSize = {"width": 390, "height": 780}


def screenshots(out: Path = SHOTS) -> list[Path]:
    """The page's main views as PNGs in `out` (docs/screenshots), taken on this bench."""
    from playwright.sync_api import expect, sync_playwright

    from tests.integration.research.web import QUESTION

    out.mkdir(parents=True, exist_ok=True)
    taken: list[Path] = []
    with bench() as running, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path())
        expect.set_options(timeout=30_000)

        def tab(
            scheme: Literal["light", "dark"] = "light",
            viewport: ViewportSize = DESKTOP,
            key: bool = True,
        ) -> Any:
            context = browser.new_context(color_scheme=scheme, viewport=viewport)
            page = context.new_page()
            if key:
                page.goto(running.url + "/?view=none")
                page.evaluate("key => sessionStorage.setItem('netsift-key', key)", running.key)
            return page

        def shot(page: Any, name: str) -> None:
            page.wait_for_timeout(200)
            path = out / f"{name}.png"
            page.screenshot(path=str(path))
            taken.append(path)

        search = "/?view=search&q=rust+async+runtime&providers=tavily,brave"
        for scheme in ("light", "dark"):
            page = tab(scheme)
            page.goto(running.url + search)
            expect(page.locator("#results > li").first).to_be_visible()
            shot(page, f"search-{scheme}")
        page = tab()
        page.goto(f"{running.url}/?view=read&url={running.site}/long")
        expect(page.locator("#page-card h1")).to_be_visible()
        shot(page, "read")
        page = tab()
        page.goto(running.url + "/?view=research")
        page.locator("#question").fill(QUESTION)
        page.locator("#depth").select_option("quick")
        page.get_by_role("button", name="Research", exact=True).click()
        expect(page.locator("#report")).to_contain_text("25 December 2021")
        page.locator("#report .cite").first.hover()
        expect(page.locator(".quote").first).to_be_visible()
        shot(page, "research")
        page = tab()
        page.goto(running.url + "/?view=crawl")
        page.locator("#crawl-url").fill(f"{running.site}/docs/")
        page.get_by_role("button", name="Crawl the site").click()
        expect(page.locator("#crawl-status")).to_contain_text("Crawled")
        shot(page, "crawl")
        running.api(
            "POST",
            "/v1/discoveries",
            json={
                "title": "Tide clocks are back",
                "description": "Three harbours installed tide clocks this year.",
                "url": f"{running.site}/docs/c",
            },
        )
        sleeper = threading.Thread(
            target=running.api,
            args=("POST", "/v1/sleeps"),
            kwargs={"json": {"mode": "manual", "seconds": 600, "reason": "waiting for the tide"}},
            daemon=True,
        )
        sleeper.start()
        until(lambda: running.api("GET", "/v1/sleeps").json()["sleeps"], 10, what="the sleep")
        page = tab()
        page.goto(running.url + "/?view=discoveries")
        expect(page.locator("#sleeps .countdown")).to_contain_text("wakes in")
        shot(page, "discoveries")
        for sleep in running.api("GET", "/v1/sleeps").json()["sleeps"]:
            running.api("POST", f"/v1/sleeps/{sleep['id']}/wake", json={})
        page = tab()
        page.goto(running.url + "/?view=read&url=http://169.254.169.254/latest/")
        expect(page.get_by_role("alert")).to_be_visible()
        shot(page, "error")
        page = tab(key=False)
        page.goto(running.url + "/")
        expect(page.locator("#auth")).to_be_visible()
        shot(page, "auth")
        page = tab("dark", PHONE)
        page.goto(f"{running.url}/?view=read&url={running.site}/long")
        expect(page.locator("#page-card h1")).to_be_visible()
        shot(page, "read-phone-dark")
        browser.close()
    return taken


if __name__ == "__main__":
    for path in screenshots():
        print(path.relative_to(SHOTS.parents[1]))
