"""huge.test: a site whose robots.txt names one sitemap of 200,000 URLs (18 MB), generated
when the app is built, never checked in; for the map's bounds (tests/e2e/test_map_bounds.py,
bench/map.py). Its URLs are numbered documentation pages on the host the request came to."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

__all__ = ["HUGE_HOST", "HUGE_URLS", "huge_sitemap_app"]

HUGE_HOST = "huge.test"
HUGE_URLS = 200_000
NS = "http://www.sitemaps.org/schemas/sitemap/0.9"


def _rows(count: int) -> str:
    return "".join(
        f"<url><loc>http://{{host}}/docs/sec{n // 1000:03d}/p{n:06d}.html</loc>"
        f"<lastmod>2026-0{1 + n % 9}-1{n % 10}</lastmod></url>"
        for n in range(count)
    )


def huge_sitemap_app(count: int = HUGE_URLS) -> Starlette:
    """The app: `/robots.txt`, `/sitemap.xml` (`count` URLs), `/` (a page with two links)."""
    template = (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">{_rows(count)}</urlset>'
    )
    bodies: dict[str, bytes] = {}

    def host(request: Request) -> str:
        return request.headers.get("host", HUGE_HOST)

    async def robots(request: Request) -> Response:
        return Response(
            f"User-agent: *\nDisallow: /private/\nSitemap: http://{host(request)}/sitemap.xml\n"
        )

    async def sitemap(request: Request) -> Response:
        name = host(request)
        if name not in bodies:
            bodies[name] = template.replace("{host}", name).encode()
        return Response(bodies[name], media_type="application/xml")

    async def home(request: Request) -> Response:
        html = (
            "<!doctype html><html><head><title>Huge</title></head><body><main><h1>Huge</h1>"
            '<p>Numbered documentation.</p><a href="/docs/sec000/p000001.html">first</a> '
            '<a href="/about.html">about</a></main></body></html>'
        )
        return Response(html, media_type="text/html")

    routes = [Route("/robots.txt", robots), Route("/sitemap.xml", sitemap), Route("/", home)]
    return Starlette(routes=routes)
