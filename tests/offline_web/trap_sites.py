"""Five small sites for the crawl's trap rule, written after it (not tuned on): three traps
that differ from the calendar's, and two real sites whose pages look alike but must be read.

Traps (a crawl should stop early, keep the real pages, and return none of the trap's):
- `ARCHIVE_HOST`: a newspaper whose archive pager never ends: `/archive?page=N`, for any N,
  repeats the same list of every story, with "newer" and "older" links.
- `KIOSK_HOST`: a shop that puts a fresh session id in every link it serves (`?sid=`), so the
  same catalogue and products come back under new URLs for ever.
- `FACETS_HOST`: an outfitter's faceted search: `/shop?colour=&size=&fabric=&sort=`, every
  listing linking each other value of each facet, 840 listings of 30 products.

Real sites (a crawl must read every page):
- `NOTES_HOST`: a field-notes blog, `/notes/N`, 150 short posts of one or two sentences built
  from one small vocabulary, each linking the post before and after; the home page links the
  newest and a paged index (`/notes?page=N`, 15 a page).
- `CHANGELOG_HOST`: a changelog, `/releases/X.Y.Z`, 80 versions of two to five changes each
  from one component list, linking the version before and after; `/releases/` lists them all.

`build_trap_sites(state)` is one ASGI app answering each name by the Host header; every
request is counted in `state` by host and path with its query.
"""

from __future__ import annotations

import html
import random
from collections.abc import Awaitable, Callable

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.routing import Route

from tests.offline_web.state import SiteState

__all__ = [
    "ARCHIVE_HOST",
    "CHANGELOG_HOST",
    "FACETS",
    "FACETS_HOST",
    "GARMENTS",
    "KIOSK_HOST",
    "NOTES",
    "NOTES_HOST",
    "PRODUCTS",
    "RELEASES",
    "STORIES",
    "TRAP_HOSTS",
    "build_trap_sites",
    "release_path",
]

ARCHIVE_HOST = "harbourpost.test"
KIOSK_HOST = "kiosk.test"
FACETS_HOST = "outfitters.test"
NOTES_HOST = "fieldnotes.test"
CHANGELOG_HOST = "changes.test"
TRAP_HOSTS = (ARCHIVE_HOST, KIOSK_HOST, FACETS_HOST, NOTES_HOST, CHANGELOG_HOST)

_PEOPLE = ("Maren", "Tobiah", "Ines", "Kwame", "Oona", "Rafael", "Saskia", "Yusuf")
_THINGS = (
    "the ferry timetable", "the lifeboat station", "the fish market", "the old lighthouse",
    "the sea wall repairs", "the harbour dredger", "the sailing club", "the tide gauge",
    "the net loft", "the coastguard cottages", "the slipway", "the winter moorings",
)  # fmt: skip
_EVENTS = (
    "reopened after a month of work", "was sold to a family from the valley",
    "lost its roof in the February gale", "won a grant from the county",
    "changed hands for the first time in forty years", "is to close at the end of the season",
    "was painted by pupils of the primary school", "needs volunteers for the summer",
)  # fmt: skip
_CLOSERS = (
    "Councillors meet again next Thursday.", "Residents can comment until the end of the month.",
    "The work is expected to take until spring.", "A public meeting is planned in the chapel.",
    "Photographs from the day are in the library.", "The committee thanked everyone who helped.",
)  # fmt: skip


def _page(title: str, paragraphs: list[str], links: list[tuple[str, str]]) -> Response:
    nav = "".join(f'<li><a href="{href}">{html.escape(text)}</a></li>' for href, text in links)
    body = "".join(f"<p>{html.escape(p)}</p>" for p in paragraphs)
    return HTMLResponse(
        f"<!doctype html><html><head><title>{html.escape(title)}</title></head><body><main>"
        f"<h1>{html.escape(title)}</h1>{body}<ul>{nav}</ul></main></body></html>"
    )


# --- the archive whose pager never ends -------------------------------------------------

STORIES = tuple(
    f"/stories/{n}-{random.Random(n).choice(('quay', 'gale', 'vote'))}" for n in range(40)
)


def _story(n: int) -> tuple[str, list[str]]:
    rng = random.Random(f"story-{n}")
    thing, event = rng.choice(_THINGS), rng.choice(_EVENTS)
    title = f"{thing.capitalize()} {event}"
    paragraphs = []
    for _ in range(rng.randint(3, 4)):
        a, b = rng.sample(_THINGS, 2)
        paragraphs.append(
            f"{rng.choice(_PEOPLE)}, who has looked after {a} for {rng.randint(3, 30)} years, "
            f"said the news about {b} {rng.choice(_EVENTS)} came as no surprise; "
            f"{rng.randint(12, 400)} people signed the letter sent in "
            f"{rng.choice(('March', 'June', 'October'))}. {rng.choice(_CLOSERS)}"
        )
    return title, paragraphs


async def _archive(request: Request) -> Response:
    path = request.url.path
    listing = [(STORIES[n], _story(n)[0]) for n in range(len(STORIES))]
    if path == "/":
        intro = ["News from the quay, the council and the boats, every week since 1952."]
        return _page("The Harbour Post", intro, [*listing[:6], ("/archive?page=1", "Archive")])
    if path == "/archive":
        page = int(request.query_params.get("page", "1") or 1)
        pager = [(f"/archive?page={page - 1}", "Newer"), (f"/archive?page={page + 1}", "Older")]
        return _page(f"Archive, page {page}", [], listing + pager)
    if path in STORIES:
        title, paragraphs = _story(STORIES.index(path))
        return _page(title, paragraphs, [("/", "Front page"), ("/archive?page=1", "Archive")])
    return PlainTextResponse("not found", status_code=404)


# --- the shop with a session id in every link --------------------------------------------

PRODUCTS = tuple(
    f"{colour} {item}"
    for colour, item in zip(
        ("Juniper", "Slate", "Rust", "Moss", "Chalk", "Ink", "Heather", "Flint", "Kelp",
         "Amber", "Sand", "Plum"),
        ("rain jacket", "wool hat", "canvas bag", "walking socks", "fleece", "map case",
         "gaiters", "flask", "head torch", "gloves", "scarf", "rucksack"),
        strict=True,
    )
)  # fmt: skip


def _session(request: Request) -> str:
    """A new session id for every response (each link then names a URL never seen)."""
    counter = request.app.state.sessions = getattr(request.app.state, "sessions", 0) + 1
    return f"{counter * 7919 % 1_000_003:06x}"


def _product_text(n: int) -> list[str]:
    rng = random.Random(f"product-{n}")
    name = PRODUCTS[n]
    return [
        f"The {name.lower()} is made in {rng.choice(('Leeds', 'Porto', 'Kaunas', 'Galway'))} "
        f"from {rng.choice(('recycled nylon', 'waxed cotton', 'merino', 'hemp'))} and weighs "
        f"{rng.randint(80, 900)} grams.",
        f"It comes in one colour, {name.split()[0].lower()}, and is guaranteed for "
        f"{rng.randint(2, 10)} years; repairs are free for the first one.",
        f"Customers say it {rng.choice(('keeps its shape', 'dries overnight', 'packs small'))} "
        f"and {rng.choice(('wears well on long walks', 'is warmer than it looks'))}.",
    ]


async def _kiosk(request: Request) -> Response:
    path, sid = request.url.path, _session(request)
    catalogue = [(f"/item/{n}?sid={sid}", name) for n, name in enumerate(PRODUCTS)]
    if path == "/":
        return _page(
            "Kiosk outdoor shop", ["Kit for the hills."], [(f"/catalog?sid={sid}", "Shop")]
        )
    if path == "/catalog":
        return _page("Catalogue", ["Welcome back. Your basket is empty."], catalogue)
    if path.startswith("/item/") and path[6:].isdigit() and int(path[6:]) < len(PRODUCTS):
        n = int(path[6:])
        links = [(f"/catalog?sid={sid}", "Catalogue"), catalogue[(n + 1) % len(PRODUCTS)]]
        return _page(PRODUCTS[n], _product_text(n), links)
    return PlainTextResponse("not found", status_code=404)


# --- the faceted search -----------------------------------------------------------------

FACETS = {
    "colour": ("black", "navy", "olive", "red", "grey", "white"),
    "size": ("xs", "s", "m", "l", "xl"),
    "fabric": ("cotton", "wool", "linen", "nylon"),
    "sort": ("price", "name", "new"),
}
_GARMENTS = ("shirt", "smock", "trousers", "jumper", "coat", "shorts")


def _garment(n: int) -> dict[str, str]:
    rng = random.Random(f"garment-{n}")
    facets = {name: rng.choice(values) for name, values in FACETS.items() if name != "sort"}
    return {
        **facets,
        "name": f"{facets['colour'].capitalize()} {facets['fabric']} {_GARMENTS[n % 6]}",
    }


GARMENTS = tuple(_garment(n) for n in range(30))


def _garment_text(n: int) -> list[str]:
    g, rng = GARMENTS[n], random.Random(f"garment-text-{n}")
    return [
        f"A {g['fabric']} {_GARMENTS[n % 6]} cut for "
        f"{rng.choice(('work', 'travel', 'the garden'))}, "
        f"in {g['colour']}, size {g['size'].upper()}. Made by {rng.choice(_PEOPLE)}'s workshop "
        f"in batches of {rng.randint(10, 60)}; washable at {rng.choice((30, 40))} degrees.",
    ]


def _query(filters: dict[str, str]) -> str:
    return "&".join(f"{k}={v}" for k, v in filters.items())


async def _facets(request: Request) -> Response:
    path = request.url.path
    if path == "/":
        return _page("Outfitters", ["Clothes that last, made near here."], [("/shop", "Shop")])
    if path == "/shop":
        filters = {k: v for k, v in request.query_params.items() if v in FACETS.get(k, ())}
        matches = [
            (f"/garment/{n}", g["name"])
            for n, g in enumerate(GARMENTS)
            if all(g.get(k) == v for k, v in filters.items() if k != "sort")
        ]
        links = list(matches)
        for name, values in FACETS.items():
            for value in values:
                if filters.get(name) != value:
                    links.append((f"/shop?{_query({**filters, name: value})}", f"{name}: {value}"))
        return _page(f"{len(matches)} garments", [], links)
    if path.startswith("/garment/") and path[9:].isdigit() and int(path[9:]) < len(GARMENTS):
        n = int(path[9:])
        return _page(GARMENTS[n]["name"], _garment_text(n), [("/shop", "Shop")])
    return PlainTextResponse("not found", status_code=404)


# --- the field-notes blog: many short posts alike -----------------------------------------

NOTES = tuple(range(1, 151))
_BIRDS = (
    "a wren", "two curlews", "a heron", "the robin", "six goldfinches", "a kestrel",
    "a pair of stonechats", "the blackbird", "a treecreeper", "three redwings", "a jay",
    "a flock of fieldfares", "the song thrush", "a nuthatch", "two bullfinches", "a buzzard",
)  # fmt: skip
_DOINGS = (
    "sang from the hawthorn", "fed along the ditch", "sat on the gate post", "crossed the lane",
    "bathed in the puddle", "searched the leaf litter", "perched on the wire",
    "flew over the orchard", "called from the alders", "hid in the bramble patch",
)  # fmt: skip
_WHENS = ("at dawn", "before the rain", "around noon", "at dusk", "after the frost")


def _note(n: int) -> list[str]:
    rng = random.Random(f"note-{n}")
    lines = [
        f"{rng.choice(_BIRDS).capitalize()} {rng.choice(_DOINGS)} {rng.choice(_WHENS)}."
        for _ in range(rng.randint(1, 2))
    ]
    return [*lines, f"Filed under {rng.choice(('garden', 'lane', 'marsh'))} by Wren."]


async def _notes(request: Request) -> Response:
    path = request.url.path
    if path == "/":
        newest = [(f"/notes/{n}", f"Note {n}") for n in NOTES[-5:]]
        return _page(
            "Field notes", ["What was seen, day by day."], [*newest, ("/notes?page=1", "All")]
        )
    if path == "/notes":
        page = int(request.query_params.get("page", "1") or 1)
        chunk = NOTES[(page - 1) * 15 : page * 15]
        if not chunk:
            return PlainTextResponse("not found", status_code=404)
        links = [(f"/notes/{n}", f"Note {n}") for n in chunk]
        if page * 15 < len(NOTES):
            links.append((f"/notes?page={page + 1}", "More"))
        return _page(f"Notes, page {page}", [], links)
    if path.startswith("/notes/") and path[7:].isdigit() and int(path[7:]) in NOTES:
        n = int(path[7:])
        links = [
            (f"/notes/{m}", label)
            for m, label in ((n - 1, "Before"), (n + 1, "After"))
            if m in NOTES
        ]
        return _page(f"Note {n}", _note(n), links)
    return PlainTextResponse("not found", status_code=404)


# --- the changelog: numbered versions ---------------------------------------------------

RELEASES = tuple(
    f"{major}.{minor}.{patch}" for major in (1, 2) for minor in range(8) for patch in range(5)
)
_COMPONENTS = (
    "the parser",
    "the scheduler",
    "the CLI",
    "the HTTP client",
    "the cache",
    "the exporter",
)
_CHANGES = (
    "no longer crashes when {c} reads an empty file",
    "retries {c} requests that time out, up to three times",
    "logs a warning when {c} meets an unknown option",
    "makes {c} faster on large inputs",
    "fixes a memory leak in {c} under heavy load",
    "adds a --quiet flag to {c}",
    "documents how {c} handles time zones",
    "drops support for the old {c} settings file",
)


def release_path(version: str) -> str:
    return f"/releases/{version}"


def _changes(version: str) -> list[str]:
    rng = random.Random(f"release-{version}")
    picks = rng.sample([(c, t) for c in _COMPONENTS for t in _CHANGES], rng.randint(2, 5))
    lines = [template.format(c=component).capitalize() + "." for component, template in picks]
    return [f"Version {version}, released on day {rng.randint(1, 365)} of the year.", *lines]


async def _changelog(request: Request) -> Response:
    path = request.url.path
    if path == "/":
        return _page("Tidewater changelog", ["Every release."], [("/releases/", "Releases")])
    if path == "/releases/":
        return _page("Releases", [], [(release_path(v), v) for v in reversed(RELEASES)])
    version = path.removeprefix("/releases/")
    if version in RELEASES:
        i = RELEASES.index(version)
        near = [RELEASES[j] for j in (i - 1, i + 1) if 0 <= j < len(RELEASES)]
        return _page(
            f"Tidewater {version}", _changes(version), [(release_path(v), v) for v in near]
        )
    return PlainTextResponse("not found", status_code=404)


_SITES: dict[str, Callable[[Request], Awaitable[Response]]] = {
    ARCHIVE_HOST: _archive,
    KIOSK_HOST: _kiosk,
    FACETS_HOST: _facets,
    NOTES_HOST: _notes,
    CHANGELOG_HOST: _changelog,
}


def build_trap_sites(state: SiteState) -> Starlette:
    """The five sites on one server, told apart by the Host header."""

    async def endpoint(request: Request) -> Response:
        host = request.headers.get("host", "").rsplit(":", 1)[0]
        query = request.url.query
        state.record(host, request.url.path + (f"?{query}" if query else ""))
        if request.url.path == "/robots.txt":
            return PlainTextResponse("User-agent: *\nDisallow:\n")
        site = _SITES.get(host)
        return await site(request) if site else PlainTextResponse("no such site", status_code=404)

    return Starlette(routes=[Route("/{rest:path}", endpoint)])
