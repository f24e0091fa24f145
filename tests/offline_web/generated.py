"""A generated website to crawl, of any size: `build_site(SiteSpec(pages=2000))`.

One host (`crawl.test` by default) holds `pages` documentation pages in a tree (each links to
its `FANOUT` children, its parent and the home page), plus every thing a crawler must get
right, each at a known URL so a test or the benchmark can tell a correct crawl from a wrong
one:

- robots.txt disallows `/private/` (every page links to one) and may set a Crawl-delay;
- exact copies (`/print/N`), near copies (`/near/N`: a date line added), canonical aliases
  (`/docs/N?session=…` with `<link rel=canonical>`) and tracking spellings
  (`/docs/N?utm_source=nav`, never to be asked) of every `DUPLICATE_EVERY`-th page;
- slow pages (`/slow/N`, `SLOW_SECONDS` each) and `/busy`, a 429 with Retry-After once;
- an infinite calendar (`/calendar/Y/M` links the next and previous month, forever) and an
  archive page linking 48 of its (empty, alike) months at once;
- links off the site (`elsewhere.test`), to a private address (`http://10.0.0.7/`), and to
  `www.` of the site itself pinned to a private address (same site, refused by the guard);
- redirects off the site (`/away`) and to the private `www.` host (`/inside`).

`expected_pages(spec)` are the URLs a correct crawl keeps, `forbidden(path)` says why a
request should never have been made. Every request is counted in the `SiteState`.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

from tests.offline_web.state import SiteState

__all__ = [
    "ARCHIVE_MONTHS",
    "CALENDAR_ENTRY",
    "SiteSpec",
    "build_site",
    "expected_paths",
    "forbidden",
]

FANOUT = 8  # children per page: 2,000 pages are four levels deep
DUPLICATE_EVERY = 10  # every 10th page has an exact copy, a near copy and an alias
SLOW_EVERY = 50  # every 50th page also has a slow twin
SLOW_SECONDS = 0.3
CALENDAR_START = (2024, 1)
_WORDS = (
    "crawler frontier robots sitemap canonical duplicate politeness budget latency queue "
    "worker lease scope redirect markdown extraction parser token index vector search agent "
    "answer source citation document section chapter release version install configure "
    "deploy server client request response header status cache storage durable resume"
).split()


@dataclass(frozen=True)
class SiteSpec:
    pages: int = 60
    host: str = "crawl.test"
    crawl_delay: float | None = None
    latency: float = 0.0  # seconds every page takes to answer (a slow server)


def _text(n: int | str, sentences: int = 16) -> list[str]:
    rng = random.Random(f"page-{n}")  # a string seed: Random(-2) is Random(2)
    return [
        " ".join(rng.choice(_WORDS) for _ in range(14)).capitalize() + f" (page {n}, part {i})."
        for i in range(sentences)
    ]


def _html(title: str, paragraphs: list[str], links: list[tuple[str, str]], canonical: str) -> str:
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    nav = "".join(f'<li><a href="{href}">{text}</a></li>' for href, text in links)
    head = f'<link rel="canonical" href="{canonical}">' if canonical else ""
    return (
        f"<!doctype html><html><head><title>{title}</title>{head}</head><body>"
        f"<nav><ul>{nav}</ul></nav><main><article><h1>{title}</h1>{body}</article></main>"
        "</body></html>"
    )


def _children(n: int, total: int) -> list[int]:
    return [c for c in range(n * FANOUT + 1, n * FANOUT + FANOUT + 1) if c < total]


def _doc_links(n: int, spec: SiteSpec) -> list[tuple[str, str]]:
    links = [
        (f"/docs/{c}", f"Section {c} {_WORDS[c % len(_WORDS)]}") for c in _children(n, spec.pages)
    ]
    links += [("/", "Home"), (f"/private/{n}", "Private notes")]
    if n:
        links.append((f"/docs/{(n - 1) // FANOUT}", "Up"))
    if n % DUPLICATE_EVERY == 0:
        links += [
            (f"/print/{n}", "Print"),
            (f"/near/{n}", "Updated copy"),
            (f"/docs/{n}?session=s{n}", "Permalink"),
            (f"/docs/{n}?utm_source=nav", "Share"),
        ]
    if n % SLOW_EVERY == 0:
        links.append((f"/slow/{n}", "Slow twin"))
    return links


ARCHIVE_MONTHS = 48  # /archive links four years of (empty) calendar months at once
CALENDAR_ENTRY = "/calendar/2024/1"  # the month the home page links: the calendar's way in


def expected_paths(spec: SiteSpec) -> set[str]:
    """Paths a correct crawl (no depth or page limit) keeps: home, docs, slow twins, /busy."""
    paths = {"/", "/busy", "/archive", CALENDAR_ENTRY}
    paths.update(f"/docs/{n}" for n in range(spec.pages))
    paths.update(f"/slow/{n}" for n in range(0, spec.pages, SLOW_EVERY))
    return paths


def forbidden(path: str) -> str | None:
    """Why a request for `path` should never have been made (None: it may be)."""
    if path.startswith("/private/"):
        return "robots"
    if "utm_source=" in path:
        return "duplicate"  # the same URL as /docs/N once canonicalized: never asked
    return None


def build_site(spec: SiteSpec, state: SiteState) -> Starlette:
    """The site as an ASGI app (served with tests/offline_web/server.py's `serve`)."""

    async def robots(request: Request) -> Response:
        lines = ["User-agent: *", "Disallow: /private/"]
        if spec.crawl_delay:
            lines.append(f"Crawl-delay: {spec.crawl_delay:g}")
        return PlainTextResponse("\n".join(lines) + "\n")

    def page(
        title: str, paragraphs: list[str], links: list[tuple[str, str]], canonical: str = ""
    ) -> Response:
        return Response(_html(title, paragraphs, links, canonical), media_type="text/html")

    async def home(request: Request) -> Response:
        links = [("/docs/0", "Documentation"), (CALENDAR_ENTRY, "Events calendar")]
        links += [("/busy", "Status"), ("/away", "Partner site"), ("/inside", "Intranet")]
        links += [("/archive", "Event archive")]
        links += [("http://elsewhere.test/about", "Elsewhere"), ("http://10.0.0.7/admin", "Admin")]
        links += [(f"http://www.{spec.host}:{request.url.port}/docs/0", "www mirror")]
        return page("Welcome", _text("home"), links)

    async def docs(request: Request) -> Response:
        n = int(request.path_params["n"])
        if n >= spec.pages:
            return PlainTextResponse("no such page", status_code=404)
        return page(f"Document {n}", _text(n), _doc_links(n, spec), canonical=f"/docs/{n}")

    async def copy(request: Request) -> Response:
        n = int(request.path_params["n"])
        return page(f"Document {n}", _text(n), [("/", "Home")])

    async def near(request: Request) -> Response:
        n = int(request.path_params["n"])
        return page(
            f"Document {n}", [*_text(n), "Last updated on 24 November 2026."], [("/", "Home")]
        )

    async def slow(request: Request) -> Response:
        n = int(request.path_params["n"])
        await anyio.sleep(SLOW_SECONDS)
        return page(f"Slow document {n}", _text(f"slow-{n}"), [("/", "Home")])

    async def busy(request: Request) -> Response:
        if state.hits(spec.host, "/busy") == 1:
            return PlainTextResponse("slow down", status_code=429, headers={"Retry-After": "1"})
        return page("Status", _text("status"), [("/", "Home")])

    async def calendar(request: Request) -> Response:
        year, month = int(request.path_params["y"]), int(request.path_params["m"])
        nxt = (year + month // 12, month % 12 + 1)
        prev = (year - (month == 1), 12 if month == 1 else month - 1)
        text = [
            f"Events in month {month} of {year}.",
            "There are no events planned for this month. The calendar lists every meeting, "
            "release and conference of the project, with its place and time, as soon as it "
            "is announced; check back later or subscribe to the feed to hear of new ones.",
            # The month's grid, the same every month: what makes a calendar a trap.
            " ".join(f"Day {day}: no events." for day in range(1, 29)),
        ]
        links = [
            (f"/calendar/{nxt[0]}/{nxt[1]}", "Next month"),
            (f"/calendar/{prev[0]}/{prev[1]}", "Previous month"),
        ]
        return page(f"Calendar {year}-{month}", text, links)

    async def archive(request: Request) -> Response:
        months = [(year, month) for year in range(2018, 2022) for month in range(1, 13)]
        links = [(f"/calendar/{y}/{m}", f"Events {y}-{m}") for y, m in months]
        return page("Event archive", _text("archive"), links)

    async def private(request: Request) -> Response:
        return page("Private", ["Nobody should read this."], [])

    async def away(request: Request) -> Response:
        return RedirectResponse("http://elsewhere.test/landing", status_code=302)

    async def inside(request: Request) -> Response:
        return RedirectResponse(
            f"http://www.{spec.host}:{request.url.port}/docs/1", status_code=302
        )

    routes = {
        "/robots.txt": robots,
        "/": home,
        "/docs/{n:int}": docs,
        "/print/{n:int}": copy,
        "/near/{n:int}": near,
        "/slow/{n:int}": slow,
        "/busy": busy,
        "/calendar/{y:int}/{m:int}": calendar,
        "/private/{n:int}": private,
        "/archive": archive,
        "/away": away,
        "/inside": inside,
    }

    def counted(handler: object) -> object:
        async def endpoint(request: Request) -> Response:
            path = request.url.path + (f"?{request.url.query}" if request.url.query else "")
            state.record(request.headers.get("host", "").rsplit(":", 1)[0], path)
            log = state.knobs.setdefault("log", [])
            assert isinstance(log, list)
            log.append((time.monotonic(), path))  # when each request came, for Crawl-delay
            if spec.latency:
                await anyio.sleep(spec.latency)
            return await handler(request)  # type: ignore[operator, no-any-return]

        return endpoint

    return Starlette(routes=[Route(path, counted(h)) for path, h in routes.items()])  # type: ignore[arg-type]
