"""The site bench/crawl.py crawls, built by the bench (not a test site): numbered
documentation pages, a sitemap that lists them, a few links between them, and a planted
calendar trap.

    /                       home: the section indexes, /about.html, the calendar, a private link
    /docs/secNN/            a section's index: links to its first INDEX_LINKS pages
    /docs/secNN/pNNN.html   a page of its own text: links to the next and previous page, its
                            index, and CROSS_LINKS pages of other sections (seeded, so every
                            run is the same site); every PRIVATE_EVERY-th links a /private/ page
    /calendar/YYYY/MM.html  the trap: a month with no events, linking the next and previous
                            month, for ever; its pages differ only in their month and links
    /private/...            disallowed by robots.txt: never to be read
    /sitemap.xml            every index and page in scope (robots.txt names it)

Pages in scope: home, /about.html, the indexes and the pages. Every response waits
`latency` seconds; every request is logged (path, status) for the judge.
"""

from __future__ import annotations

import asyncio
import random
import threading
from dataclasses import dataclass, field

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

__all__ = ["BenchSite", "SiteLog"]

INDEX_LINKS = 10  # an index links its first pages; the rest are reached page to page
CROSS_LINKS = 3  # "see also" links to other sections: the site is a small world
PRIVATE_EVERY = 50
CALENDAR_START = (2026, 1)
WORDS = (
    "cluster node replica shard index query token lease worker queue schedule retry backoff "
    "timeout socket header cache policy quota metric trace span sample buffer stream parser "
    "schema field record batch commit rollback snapshot checkpoint migration tenant region "
    "zone gateway proxy route handler filter codec frame payload checksum digest signature "
    "certificate rotation secret vault audit ledger invoice budget alert dashboard runbook"
).split()


@dataclass
class SiteLog:
    """Every request the site answered: (path with query, status), in order."""

    entries: list[tuple[str, int]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, path: str, status: int) -> None:
        with self.lock:
            self.entries.append((path, status))

    def take(self) -> list[tuple[str, int]]:
        with self.lock:
            taken, self.entries = self.entries, []
            return taken


@dataclass(frozen=True)
class BenchSite:
    """`sections` x `pages` numbered pages; `latency` seconds before every answer."""

    sections: int = 20
    pages: int = 100
    latency: float = 0.0

    def page_path(self, section: int, page: int) -> str:
        return f"/docs/sec{section:02d}/p{page:03d}.html"

    def in_scope(self) -> set[str]:
        paths = {"/", "/about.html"}
        for section in range(self.sections):
            paths.add(f"/docs/sec{section:02d}/")
            paths.update(self.page_path(section, page) for page in range(self.pages))
        return paths

    def _text(self, section: int, page: int) -> str:
        rng = random.Random(section * 100_003 + page)
        sentences = []
        for _ in range(12):
            words = rng.choices(WORDS, k=rng.randint(9, 16))
            sentences.append(
                " ".join(words).capitalize() + f" ({section}.{page}.{rng.randint(0, 9999)})."
            )
        return " ".join(sentences)

    def _page(self, title: str, body: str) -> Response:
        html = (
            f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{title}</title>"
            f"</head><body><main><h1>{title}</h1>{body}</main></body></html>"
        )
        return Response(html, media_type="text/html; charset=utf-8")

    def _links(self, hrefs: list[tuple[str, str]]) -> str:
        return "<ul>" + "".join(f'<li><a href="{h}">{t}</a></li>' for h, t in hrefs) + "</ul>"

    def home(self) -> Response:
        hrefs = [(f"/docs/sec{s:02d}/", f"Section {s}") for s in range(self.sections)]
        year, month = CALENDAR_START
        hrefs += [("/about.html", "About"), (f"/calendar/{year}/{month:02d}.html", "Events")]
        hrefs.append(("/private/admin.html", "Admin"))
        return self._page(
            "Bench documentation", "<p>Every section of the manual.</p>" + self._links(hrefs)
        )

    def index(self, section: int) -> Response:
        hrefs = [
            (self.page_path(section, p), f"Page {p}") for p in range(min(INDEX_LINKS, self.pages))
        ]
        return self._page(
            f"Section {section}", f"<p>{self._text(section, 10_000)}</p>{self._links(hrefs)}"
        )

    def doc(self, section: int, page: int) -> Response:
        rng = random.Random(section * 7919 + page)
        hrefs = [(f"/docs/sec{section:02d}/", "Index")]
        if page + 1 < self.pages:
            hrefs.append((self.page_path(section, page + 1), "Next"))
        if page > 0:
            hrefs.append((self.page_path(section, page - 1), "Previous"))
        for _ in range(CROSS_LINKS):
            other = rng.randrange(self.sections)
            hrefs.append((self.page_path(other, rng.randrange(self.pages)), "See also"))
        if (section * self.pages + page) % PRIVATE_EVERY == 0:
            hrefs.append((f"/private/draft-{section}-{page}.html", "Draft"))
        body = f"<p>{self._text(section, page)}</p>{self._links(hrefs)}"
        return self._page(f"Section {section}, page {page}", body)

    def month(self, year: int, month: int) -> Response:
        after = (year + month // 12, month % 12 + 1)
        before = (year - (month == 1), (month - 2) % 12 + 1)
        hrefs = [
            (f"/calendar/{after[0]}/{after[1]:02d}.html", "Next month"),
            (f"/calendar/{before[0]}/{before[1]:02d}.html", "Previous month"),
        ]
        return self._page(f"Events {year}-{month:02d}", "<p>No events.</p>" + self._links(hrefs))

    def sitemap(self, base: str) -> Response:
        locs = sorted(self.in_scope() - {"/about.html"})
        rows = "".join(f"<url><loc>{base}{path}</loc></url>" for path in locs)
        xml = (
            '<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{rows}</urlset>'
        )
        return Response(xml, media_type="application/xml")

    def app(self, log: SiteLog) -> Starlette:
        async def handle(request: Request) -> Response:
            path = request.url.path
            if self.latency:
                await asyncio.sleep(self.latency)
            response = self.answer(request, path)
            log.add(
                path + (f"?{request.url.query}" if request.url.query else ""), response.status_code
            )
            return response

        return Starlette(routes=[Route("/{rest:path}", handle)])

    def answer(self, request: Request, path: str) -> Response:
        base = f"http://{request.headers.get('host', '')}"
        parts = path.strip("/").split("/")
        if path == "/":
            return self.home()
        if path == "/robots.txt":
            return PlainTextResponse(
                f"User-agent: *\nDisallow: /private/\nSitemap: {base}/sitemap.xml\n"
            )
        if path == "/sitemap.xml":
            return self.sitemap(base)
        if path == "/about.html":
            return self._page("About", f"<p>{self._text(9_999, 0)}</p>")
        if parts[0] == "docs" and len(parts) in (2, 3) and parts[1].startswith("sec"):
            section = _number(parts[1][3:], self.sections)
            if section is not None and len(parts) == 2 and path.endswith("/"):
                return self.index(section)
            if section is not None and len(parts) == 3 and parts[2].startswith("p"):
                page = _number(parts[2][1:].removesuffix(".html"), self.pages)
                if page is not None:
                    return self.doc(section, page)
        if parts[0] == "calendar" and len(parts) == 3:
            year = _number(parts[1], 10_000)
            month = _number(parts[2].removesuffix(".html"), 13)
            if year is not None and month:
                return self.month(year, month)
        if parts[0] == "private":
            return self._page("Private", "<p>Not for crawlers.</p>")
        return PlainTextResponse("not found", status_code=404)


def _number(text: str, below: int) -> int | None:
    return int(text) if text.isdigit() and int(text) < below else None
