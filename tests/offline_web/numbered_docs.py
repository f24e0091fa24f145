"""A numbered documentation site: `/s/secNN/pNNN.html`, a few hundred pages of distinct text.

Once digits are masked every page is one path pattern, so a crawler that judges a pattern by
its URLs alone sees hundreds of look-alike URLs; only what the pages hold tells a manual from
a trap. The home page links each section's index (`/s/secNN/`), which lists its pages; each
page links its neighbours and its section. A handful of pages are near copies of the page
before them (the same text with a revision line added), as a real manual's moved or
re-issued pages are.

`build_docs(state)` is the ASGI app; `DOC_PAGES` the paths of every page, `NEAR_COPIES` the
paths of the near copies (the pages a crawl rightly drops as duplicates).
"""

from __future__ import annotations

import html
import random

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.routing import Route

from tests.offline_web.state import SiteState

__all__ = ["DOCS_HOST", "DOC_PAGES", "NEAR_COPIES", "build_docs"]

DOCS_HOST = "manual.test"
# Pages per section: uneven, as a manual's chapters are (320 pages in 13 sections).
SECTION_SIZES = (31, 18, 27, 22, 35, 16, 24, 29, 20, 33, 19, 26, 20)
# Pages that repeat the page before them with a revision line (5 of 320).
COPIED = frozenset({40, 97, 151, 222, 288})

_SUBJECTS = (
    "ledger", "importer", "scheduler", "retention policy", "export job", "audit trail",
    "access token", "webhook", "backup set", "mirror", "quota", "tag rule", "report",
    "archive", "workspace", "notification", "data source", "field mapping", "sync window",
    "approval step", "batch", "template", "connector", "dashboard", "alert",
)  # fmt: skip
_ACTIONS = (
    "create", "rename", "pause", "resume", "inspect", "limit", "rotate", "restore",
    "duplicate", "share", "retire", "validate", "schedule", "filter", "merge", "split",
)  # fmt: skip
_DETAILS = (
    "from the settings panel", "with the command line client", "through the HTTP API",
    "before the nightly run", "after a failed import", "for a single workspace",
    "across every workspace", "while users are signed in", "during a maintenance window",
    "when the quota is nearly spent", "without losing history", "for read-only members",
)  # fmt: skip
_OUTCOMES = (
    "the change appears in the activity log within a minute",
    "members see the new state the next time they load the page",
    "the previous version stays available for thirty days",
    "dependent jobs wait until the change is complete",
    "a confirmation email goes to the workspace owners",
    "nothing else is affected and the step can be undone",
    "the counters restart from zero at midnight UTC",
    "the API answers 409 until the first run has finished",
)  # fmt: skip
_CAUTIONS = (
    "Check the permissions of the service account first.",
    "Large workspaces may take several minutes.",
    "This cannot be combined with a legacy connector.",
    "Administrators receive a summary of every such change.",
    "Test it on a copy before you change production data.",
    "The limits differ between the free and the paid plans.",
)  # fmt: skip


def _sections() -> list[tuple[int, list[int]]]:
    """(section number, its page numbers), pages numbered across the whole manual."""
    out, first = [], 1
    for index, size in enumerate(SECTION_SIZES, start=1):
        out.append((index, list(range(first, first + size))))
        first += size
    return out


SECTIONS = _sections()
SECTION_OF = {page: section for section, pages in SECTIONS for page in pages}


def _path(page: int) -> str:
    return f"/s/sec{SECTION_OF[page]:02d}/p{page:03d}.html"


DOC_PAGES = frozenset(_path(page) for page in SECTION_OF)
NEAR_COPIES = frozenset(_path(page) for page in COPIED)


def _title(page: int) -> str:
    rng = random.Random(f"title-{page}")
    return f"How to {rng.choice(_ACTIONS)} a {rng.choice(_SUBJECTS)}"


def _body(page: int) -> list[str]:
    """Four to six paragraphs of instructions of the page's own (seeded by its number)."""
    rng = random.Random(f"body-{page}")
    paragraphs = []
    for _ in range(rng.randint(4, 6)):
        sentences = []
        for _ in range(rng.randint(3, 5)):
            subject, other = rng.sample(_SUBJECTS, 2)
            sentences.append(
                f"To {rng.choice(_ACTIONS)} the {subject} {rng.choice(_DETAILS)}, open the "
                f"{other} it belongs to and choose step {rng.randint(2, 40)}; "
                f"{rng.choice(_OUTCOMES)}."
            )
        sentences.append(rng.choice(_CAUTIONS))
        paragraphs.append(" ".join(sentences))
    return paragraphs


def _text_of(page: int) -> tuple[str, list[str]]:
    """A page's title and paragraphs; a near copy's are those of the page before it, with a
    revision line."""
    if page in COPIED:
        title, body = _text_of(page - 1)
        return title, [*body, f"Revised on {page % 28 + 1} March 2026 by the documentation team."]
    return _title(page), _body(page)


def _document(title: str, paragraphs: list[str], links: list[tuple[str, str]]) -> str:
    nav = " | ".join(f'<a href="{href}">{html.escape(text)}</a>' for href, text in links)
    body = "".join(f"<p>{html.escape(p)}</p>" for p in paragraphs)
    return (
        f"<!doctype html><html><head><title>{html.escape(title)}</title></head><body>"
        f"<nav>{nav}</nav><main><article><h1>{html.escape(title)}</h1>{body}</article></main>"
        "<footer>Ledgerline manual. Content licensed CC BY 4.0.</footer></body></html>"
    )


def build_docs(state: SiteState) -> Starlette:
    """The manual as an ASGI app on any host name; every request is counted in `state`."""

    async def robots(request: Request) -> Response:
        return PlainTextResponse("User-agent: *\nDisallow:\n")

    async def home(request: Request) -> Response:
        links = [(f"/s/sec{n:02d}/", f"Section {n}") for n, _ in SECTIONS]
        intro = ["The Ledgerline manual: every task, one page each, grouped by section."]
        return HTMLResponse(_document("Ledgerline manual", intro, links))

    async def section(request: Request) -> Response:
        number = int(request.path_params["sec"])
        pages = dict(SECTIONS).get(number)
        if pages is None:
            return PlainTextResponse("no such section", status_code=404)
        links = [("/", "Manual")] + [(_path(p), f"{p}. {_text_of(p)[0]}") for p in pages]
        return HTMLResponse(_document(f"Section {number}", [], links))

    async def page(request: Request) -> Response:
        number = int(request.path_params["page"])
        section_number = int(request.path_params["sec"])
        if SECTION_OF.get(number) != section_number:
            return PlainTextResponse("no such page", status_code=404)
        title, paragraphs = _text_of(number)
        links = [("/", "Manual"), (f"/s/sec{section_number:02d}/", f"Section {section_number}")]
        for neighbour, label in ((number - 1, "Previous"), (number + 1, "Next")):
            if neighbour in SECTION_OF:
                links.append((_path(neighbour), label))
        return HTMLResponse(_document(title, paragraphs, links))

    def counted(handler: object) -> object:
        async def endpoint(request: Request) -> Response:
            state.record(request.headers.get("host", "").rsplit(":", 1)[0], request.url.path)
            return await handler(request)  # type: ignore[operator, no-any-return]

        return endpoint

    routes = {
        "/robots.txt": robots,
        "/": home,
        "/s/sec{sec:int}/": section,
        "/s/sec{sec:int}/p{page:int}.html": page,
    }
    return Starlette(routes=[Route(path, counted(h)) for path, h in routes.items()])  # type: ignore[arg-type]
