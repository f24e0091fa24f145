"""Sites whose sitemaps list more than their links reach: what a crawl's seeds are for.

`build_gazette(state)` serves `gazette.test`, 60 pages listed by its sitemaps (robots.txt
names an index, which lists a plain sitemap and a gzipped one) and two pages no sitemap
lists. Links reach few of them: the home page links two *branches*, each a chain of pages
four links deep (`/branch/B/level-L.html`), and `/unlisted.html`; the other 51 pages (the
*orphans*, `/notes/NN.html`) are linked by nothing, as a site's old articles often are,
and each links home. The first orphan links `/notes/00/appendix.html`, the second unlisted
page. So:

- from the start page alone, 3 link hops read the home page, `/unlisted.html` and the
  branches' first three levels (`LINKED_WITHIN_3`); the branches' fourth level is linked
  one hop past that depth (`BEYOND_3`);
- the sitemaps list `LISTED` (the home page, the branches and the orphans: 60 pages);
- the appendix is one hop from an orphan, a seed of the sitemaps, however far from home.

`build_numbered(state)` serves `numbered.test`: `NUMBERED_PAGES` pages `/p/NNNN.html`, each
of its own text, each linking only the next; its sitemap lists them all. Once digits are
masked they are one path pattern; they are read whole only because each holds new text.
Every request is counted in the `SiteState`.
"""

from __future__ import annotations

import gzip
import html
import random

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.routing import Route

from tests.offline_web.state import SiteState

__all__ = [
    "APPENDIX",
    "BEYOND_3",
    "GAZETTE_HOST",
    "LINKED_WITHIN_3",
    "LISTED",
    "NUMBERED_HOST",
    "NUMBERED_PAGES",
    "ORPHANS",
    "UNLISTED",
    "build_gazette",
    "build_numbered",
    "numbered_path",
]

GAZETTE_HOST = "gazette.test"
NUMBERED_HOST = "numbered.test"
BRANCHES = 2
LEVELS = 4  # links from the home page to a branch's last page
ORPHAN_COUNT = 60 - 1 - BRANCHES * LEVELS  # the rest of the 60 listed pages
NUMBERED_PAGES = 300

BRANCH_PAGES = [
    f"/branch/{b}/level-{level}.html" for b in range(BRANCHES) for level in (1, 2, 3, 4)
]
ORPHANS = frozenset(f"/notes/{n:02d}.html" for n in range(ORPHAN_COUNT))
APPENDIX = "/notes/00/appendix.html"
UNLISTED = frozenset({"/unlisted.html", APPENDIX})
LISTED = frozenset({"/", *BRANCH_PAGES, *ORPHANS})
LINKED_WITHIN_3 = frozenset(
    {"/", "/unlisted.html", *(p for p in BRANCH_PAGES if "level-4" not in p)}
)
BEYOND_3 = frozenset(p for p in BRANCH_PAGES if "level-4" in p)

_WORDS = (
    "harbour council ferry timetable lighthouse keeper storm season fishing quota market "
    "bakery festival lantern parade bridge repair school library choir museum archive "
    "orchard harvest cider mill river flood warning volunteer rescue boat station tide "
    "chart museum gallery painter sculptor concert hall ticket mayor election budget road "
    "tunnel railway platform signal winter solstice bonfire regatta sailing club trophy"
).split()


def _prose(seed: str, sentences: int = 12) -> str:
    """Sentences of their own for one page (seeded by its path: the same on every request)."""
    rng = random.Random(seed)
    out = []
    for _ in range(sentences):
        words = [rng.choice(_WORDS) for _ in range(rng.randint(9, 15))]
        out.append(" ".join(words).capitalize() + ".")
    return " ".join(out)


def _page(path: str, title: str, links: list[tuple[str, str]]) -> HTMLResponse:
    nav = "".join(f'<li><a href="{href}">{html.escape(text)}</a></li>' for href, text in links)
    body = (
        f"<!doctype html><html><head><title>{html.escape(title)}</title></head><body>"
        f"<nav><ul>{nav}</ul></nav><main><h1>{html.escape(title)}</h1>"
        f"<p>{_prose(path)}</p><p>{_prose(path + '#2')}</p></main></body></html>"
    )
    return HTMLResponse(body)


def _urlset(host: str, request: Request, paths: list[str]) -> bytes:
    base = f"http://{host}:{request.url.port}"
    locs = "".join(f"<url><loc>{base}{path}</loc></url>" for path in paths)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>'
        f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{locs}</urlset>'
    ).encode()


def _gazette_links(path: str) -> list[tuple[str, str]]:
    if path == "/":
        return [
            ("/branch/0/level-1.html", "Harbour"),
            ("/branch/1/level-1.html", "Council"),
            ("/unlisted.html", "Letters to the editor"),
        ]
    if path.startswith("/branch/"):
        branch, level = path.split("/")[2], int(path.rsplit("-", 1)[1].split(".")[0])
        links = [("/", "Home")]
        if level < LEVELS:
            links.append((f"/branch/{branch}/level-{level + 1}.html", "Read on"))
        return links
    if path == "/notes/00.html":
        return [("/", "Home"), (APPENDIX, "Appendix")]
    return [("/", "Home")]


def build_gazette(state: SiteState) -> Starlette:
    listed = sorted(LISTED)
    half = len(listed) // 2

    async def robots(request: Request) -> Response:
        state.record(GAZETTE_HOST, "/robots.txt")
        base = f"http://{GAZETTE_HOST}:{request.url.port}"
        return PlainTextResponse(f"User-agent: *\nAllow: /\nSitemap: {base}/maps/index.xml\n")

    async def index(request: Request) -> Response:
        state.record(GAZETTE_HOST, "/maps/index.xml")
        base = f"http://{GAZETTE_HOST}:{request.url.port}"
        maps = "".join(
            f"<sitemap><loc>{base}{path}</loc></sitemap>"
            for path in ("/maps/first.xml", "/maps/second.xml.gz")
        )
        body = (
            '<?xml version="1.0" encoding="UTF-8"?>'
            f'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{maps}'
            "</sitemapindex>"
        )
        return Response(body, media_type="application/xml")

    async def first(request: Request) -> Response:
        state.record(GAZETTE_HOST, "/maps/first.xml")
        body = _urlset(GAZETTE_HOST, request, listed[:half])
        return Response(body, media_type="application/xml")

    async def second(request: Request) -> Response:
        state.record(GAZETTE_HOST, "/maps/second.xml.gz")
        body = gzip.compress(_urlset(GAZETTE_HOST, request, listed[half:]))
        return Response(body, media_type="application/gzip")

    async def page(request: Request) -> Response:
        path = request.url.path
        state.record(GAZETTE_HOST, path)
        if path not in LISTED | UNLISTED:
            return PlainTextResponse("no such page", status_code=404)
        return _page(path, f"Gazette {path}", _gazette_links(path))

    return Starlette(
        routes=[
            Route("/robots.txt", robots),
            Route("/maps/index.xml", index),
            Route("/maps/first.xml", first),
            Route("/maps/second.xml.gz", second),
            Route("/{path:path}", page),
        ]
    )


def numbered_path(n: int) -> str:
    return f"/p/{n:04d}.html"


def build_numbered(state: SiteState) -> Starlette:
    async def robots(request: Request) -> Response:
        state.record(NUMBERED_HOST, "/robots.txt")
        base = f"http://{NUMBERED_HOST}:{request.url.port}"
        return PlainTextResponse(f"User-agent: *\nAllow: /\nSitemap: {base}/sitemap.xml\n")

    async def sitemap(request: Request) -> Response:
        state.record(NUMBERED_HOST, "/sitemap.xml")
        paths = [numbered_path(n) for n in range(NUMBERED_PAGES)]
        return Response(_urlset(NUMBERED_HOST, request, paths), media_type="application/xml")

    async def page(request: Request) -> Response:
        path = request.url.path
        state.record(NUMBERED_HOST, path)
        try:
            n = int(path.removeprefix("/p/").removesuffix(".html"))
        except ValueError:
            n = -1
        if path != numbered_path(n) or not 0 <= n < NUMBERED_PAGES:
            return PlainTextResponse("no such page", status_code=404)
        links = [(numbered_path(n + 1), "Next")] if n + 1 < NUMBERED_PAGES else []
        return _page(path, f"Record {n}", links)

    async def home(request: Request) -> Response:
        state.record(NUMBERED_HOST, "/")
        return _page("/", "Records", [(numbered_path(0), "First record")])

    return Starlette(
        routes=[
            Route("/robots.txt", robots),
            Route("/sitemap.xml", sitemap),
            Route("/", home),
            Route("/{path:path}", page),
        ]
    )
