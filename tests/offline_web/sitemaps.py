"""map.test: a small site to map — robots.txt Sitemap lines, an index, a nested index, a gzipped
sitemap with lastmod, an RSS feed the home page announces, and links; plus the traps a map must
refuse (a private-address and an off-site sitemap, a sitemap redirecting off the site, URLs
robots.txt disallows); its home page shows a logo and a product shot, as a company's does.
`nomap.test` names no sitemap in robots.txt (netsift guesses /sitemap.xml), `xxe.test`
serves a sitemap that tries an external entity, and `badname.test` names a sitemap, and lists
a page, under a malformed IDNA name (`xn--localhost-`); `slowmap.test` names six sitemaps that
each answer after `SLOW_SITEMAP_SECONDS`.

Absolute URLs are written with the Host the request came to, so they carry the test port.
"""

from __future__ import annotations

import asyncio
import gzip
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from tests.offline_web.documents import build_logo_png

__all__ = ["MAP_ROUTES"]

XML = "application/xml; charset=utf-8"
SLOW_SITEMAP_SECONDS = 3.0  # slowmap.test's sitemaps: longer than a test's map may take
HTML = "text/html; charset=utf-8"
# The home page's images, as a company site has them: its logo in the header, a product shot.
LOGO = "/static/map-test-logo.svg"
DASHBOARD = "/img/team-dashboard.png"
DASHBOARD_2X = "/img/team-dashboard@2x.png"
LOGO_SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="32" viewBox="0 0 120 32">'
    '<rect width="32" height="32" rx="6" fill="#1e64b4"/>'
    '<text x="40" y="22" font-family="sans-serif" font-size="16">Map Test</text></svg>'
)


def _host(request: Request) -> str:
    return request.headers.get("host", "map.test")


def _port(request: Request) -> str:
    host = _host(request)
    return host.rsplit(":", 1)[1] if ":" in host else "80"


def _urlset(base: str, entries: list[tuple[str, str | None]]) -> str:
    rows = []
    for path, lastmod in entries:
        loc = path if path.startswith("http") else f"{base}{path}"
        mod = f"<lastmod>{lastmod}</lastmod>" if lastmod else ""
        rows.append(f"<url><loc>{loc}</loc>{mod}</url>")
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">' + "".join(rows) + "</urlset>"
    )


def _index(base: str, paths: list[str]) -> str:
    rows = "".join(
        f"<sitemap><loc>{p if p.startswith('http') else base + p}</loc></sitemap>" for p in paths
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{rows}</sitemapindex>'
    )


def _page(title: str, body: str, head: str = "") -> Response:
    html = (
        f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{title}</title>"
        f"{head}</head><body><main><h1>{title}</h1>{body}</main></body></html>"
    )
    return Response(html, media_type=HTML)


async def _robots(request: Request) -> Response:
    base = f"http://{_host(request)}"
    text = (
        "User-agent: *\nDisallow: /private/\n\n"
        f"Sitemap: {base}/sitemap_index.xml\n"
        "Sitemap: http://169.254.169.254/latest/sitemap.xml\n"
        f"Sitemap: http://other.test:{_port(request)}/sitemap.xml\n"
    )
    return Response(text, media_type="text/plain")


async def _sitemap_index(request: Request) -> Response:
    base = f"http://{_host(request)}"
    paths = ["/sitemaps/pages.xml", "/sitemaps/docs.xml.gz", "/sitemaps/nested.xml"]
    return Response(_index(base, paths), media_type=XML)


async def _nested(request: Request) -> Response:
    base = f"http://{_host(request)}"
    return Response(_index(base, ["/sitemaps/blog.xml", "/sitemaps/moved.xml"]), media_type=XML)


async def _pages(request: Request) -> Response:
    base = f"http://{_host(request)}"
    entries: list[tuple[str, str | None]] = [
        ("/", "2026-01-10"),
        ("/pricing", "2026-02-01T10:00:00+00:00"),
        ("/pricing/enterprise", None),
        ("/about", None),
        ("/private/admin", None),
        (f"http://other.test:{_port(request)}/stray", None),
        (f"http://blog.map.test:{_port(request)}/hello", None),
    ]
    return Response(_urlset(base, entries), media_type=XML)


async def _docs_gz(request: Request) -> Response:
    base = f"http://{_host(request)}"
    body = _urlset(base, [("/docs/start", "2025-12-24"), ("/docs/api-reference", "2026-01-02")])
    # Served as a file, the way servers send `.xml.gz`: no Content-Encoding, gzip bytes.
    return Response(gzip.compress(body.encode()), media_type="application/gzip")


async def _blog(request: Request) -> Response:
    base = f"http://{_host(request)}"
    entries: list[tuple[str, str | None]] = [("/blog/first-post", "2026-01-05")]
    entries.append(("/blog/second-post", None))
    return Response(_urlset(base, entries), media_type=XML)


async def _moved(request: Request) -> Response:
    response = Response(status_code=302)
    response.headers["location"] = f"http://other.test:{_port(request)}/sitemap.xml"
    return response


async def _home(request: Request) -> Response:
    links = (
        f'<img class="logo" src="{LOGO}" alt="Map Test logo" width="120" height="32">'
        '<nav><a href="/about">About us</a> <a href="/contact">Contact</a> '
        '<a href="/pricing#plans">Pricing plans</a> '
        '<a href="http://elsewhere.test/">Elsewhere</a> <a href="/private/admin">Admin</a></nav>'
        "<p>Map Test sells plans for teams and documents its API.</p>"
        f'<figure><img src="{DASHBOARD}" srcset="{DASHBOARD} 1x, {DASHBOARD_2X} 2x" '
        'alt="The team dashboard"><figcaption>The dashboard every team plan includes.'
        "</figcaption></figure>"
    )
    head = '<link rel="alternate" type="application/rss+xml" title="News" href="/feed.xml">'
    return _page("Map Test", links, head)


async def _logo(request: Request) -> Response:
    return Response(LOGO_SVG, media_type="image/svg+xml")


async def _dashboard(request: Request) -> Response:
    return Response(build_logo_png(), media_type="image/png")


async def _feed(request: Request) -> Response:
    base = f"http://{_host(request)}"
    items = "".join(
        f"<item><title>{title}</title><link>{base}{path}</link><pubDate>{date}</pubDate></item>"
        for title, path, date in (
            ("Third post: pricing changes", "/blog/third-post", "Mon, 02 Mar 2026 09:00:00 GMT"),
            ("First post", "/blog/first-post", "Mon, 05 Jan 2026 09:00:00 GMT"),
        )
    )
    rss = (
        '<?xml version="1.0"?><rss version="2.0"><channel><title>Map Test news</title>'
        f"<link>{base}/</link><description>News</description>{items}</channel></rss>"
    )
    return Response(rss, media_type="application/rss+xml; charset=utf-8")


Handler = Callable[[Request], Awaitable[Response]]


def _simple(title: str) -> Handler:
    async def handler(request: Request) -> Response:
        return _page(title, f"<p>{title} of Map Test.</p>")

    return handler


async def _nomap_robots(request: Request) -> Response:
    return Response("User-agent: *\nDisallow:\n", media_type="text/plain")


async def _nomap_sitemap(request: Request) -> Response:
    base = f"http://{_host(request)}"
    return Response(_urlset(base, [("/one", None), ("/two", "2026-03-01")]), media_type=XML)


async def _xxe_robots(request: Request) -> Response:
    return Response(f"Sitemap: http://{_host(request)}/sitemap.xml\n", media_type="text/plain")


async def _xxe_sitemap(request: Request) -> Response:
    base = f"http://{_host(request)}"
    body = (
        '<?xml version="1.0"?>\n'
        '<!DOCTYPE urlset [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        f"<url><loc>{base}/&xxe;</loc></url><url><loc>{base}/safe</loc></url></urlset>"
    )
    return Response(body, media_type=XML)


async def _badname_robots(request: Request) -> Response:
    text = (
        "Sitemap: http://xn--localhost-/sitemap.xml\n"  # a malformed IDNA name
        f"Sitemap: http://{_host(request)}/sitemap.xml\n"
    )
    return Response(text, media_type="text/plain")


async def _badname_sitemap(request: Request) -> Response:
    base = f"http://{_host(request)}"
    entries: list[tuple[str, str | None]] = [("http://xn--localhost-/page", None), ("/ok", None)]
    return Response(_urlset(base, entries), media_type=XML)


async def _slow_robots(request: Request) -> Response:
    base = f"http://{_host(request)}"
    lines = "".join(f"Sitemap: {base}/sitemap-{n}.xml\n" for n in range(6))
    return Response(lines, media_type="text/plain")


async def _slow_sitemap(request: Request) -> Response:
    await asyncio.sleep(SLOW_SITEMAP_SECONDS)
    return await _nomap_sitemap(request)


def _site_handler(handler: Handler) -> Callable[[Request, Any], Awaitable[Response]]:
    """site.py's handler shape (request, state)."""

    async def handle(request: Request, state: Any) -> Response:
        return await handler(request)

    return handle


_ROUTES: dict[str, dict[str, Handler]] = {
    "map.test": {
        "/robots.txt": _robots,
        "/sitemap_index.xml": _sitemap_index,
        "/sitemaps/pages.xml": _pages,
        "/sitemaps/docs.xml.gz": _docs_gz,
        "/sitemaps/nested.xml": _nested,
        "/sitemaps/blog.xml": _blog,
        "/sitemaps/moved.xml": _moved,
        "/": _home,
        LOGO: _logo,
        DASHBOARD: _dashboard,
        DASHBOARD_2X: _dashboard,
        "/feed.xml": _feed,
        "/about": _simple("About"),
        "/contact": _simple("Contact"),
        "/pricing": _simple("Pricing"),
    },
    "blog.map.test": {"/robots.txt": _nomap_robots, "/hello": _simple("Hello")},
    "other.test": {"/robots.txt": _nomap_robots, "/sitemap.xml": _nomap_sitemap},
    "nomap.test": {
        "/robots.txt": _nomap_robots,
        "/sitemap.xml": _nomap_sitemap,
        "/": _simple("No map"),
    },
    "xxe.test": {"/robots.txt": _xxe_robots, "/sitemap.xml": _xxe_sitemap},
    "badname.test": {"/robots.txt": _badname_robots, "/sitemap.xml": _badname_sitemap},
    "slowmap.test": {
        "/robots.txt": _slow_robots,
        **{f"/sitemap-{n}.xml": _slow_sitemap for n in range(6)},
    },
}

MAP_ROUTES = {
    host: {path: _site_handler(handler) for path, handler in routes.items()}
    for host, routes in _ROUTES.items()
}
