"""Eleven sites for the crawl's trap rule, written before reading it and never tuned on: six
traps modelled on real crawler traps, and five real sites whose pages look alike but must be
read whole. They differ from trap_sites.py, event_calendar.py and numbered_docs.py, which the
rule was tuned on; the first run against the rule is the held-out figure (docs/crawl.md).

Traps (a perfect crawler reads every page of `must_read`, keeps at most `first_of_trap` of the
trap's pages, stops within a few dozen of them and says `trap`):
- `WIKI_HOST`: a wiki's recent-changes page, `/wiki/Special:RecentChanges?limit=&days=&offset=`,
  linking every other limit and span and the older and newer changes for ever; past the last
  edit each window says "no changes" and only its echoed dates differ.
- `LOOP_HOST`: a stonemason's site whose footer links are relative (`about/`, not `/about/`)
  and whose router serves a page by the last path segment: `/about/services/contact/…` grows
  for ever, each the same page with a breadcrumb of its path.
- `SHOP_HOST`: a tent shop's listing whose brand filter appends to the query it is on
  (`/tents?brand=a&brand=b&brand=a…`), with sorts and pages: listings of the same 24 tents.
- `RELATED_HOST`: a recipe site's "more ideas like this" chain, `/ideas/<id>`, each page a
  boilerplate line, three real recipes and two links to new generated ids.
- `SEARCH_HOST`: a plant almanac's search that echoes the query and links "related searches"
  which add a word to it (`/search?q=rose+shade+clay…`).
- `VARIANTS_HOST`: a bookkeeping guide whose every page links print, share and language
  variants of itself built by appending to its own query, each the same guide with a notice.

Real sites (a crawler must keep every page of `must_read` and end `done`):
- `FORUM_HOST`: a board-game forum, 120 short threads `/t/<id>-<slug>` of one post each under
  the same rules banner, sidebar and signatures; `/forum?page=N` lists 20 a page.
- `GLOSSARY_HOST`: a dictionary of 400 tiny one-definition pages, `/word/NNNN`, in a sitemap,
  with an index by letter.
- `NEWS_HOST`: a paginated news archive, `/news/page/N`, 15 pages each listing 10 different
  articles (no sitemap: only links).
- `CATALOGUE_HOST`: 500 bolts, `/item/FD-NNNNN`, differing in size, length, material, price and
  their spec table, under one shipping and returns text; in a sitemap with `/bolts?page=N`.
- `APIREF_HOST`: an API reference, one short method signature a page,
  `/api/<module>/<Class>.<method>.html`, under module and class indexes.

Added after the rule that stops the relative-link loop, never tuned on (their first run is in
the commit that added them):
- `LADDER_HOST` (a trap): a library whose nav is written one level off (`../visit/find-us/` on
  `/visit/find-us/`) and whose router serves a page by its last two segments: every inner page
  climbs one level and descends two, `/visit/help/faq/…`, one level deeper each time.
- `NAMESAKE_HOST` (real): a tool maker whose sections share names (`/products/tools/products/`,
  `/docs/api/v1/api/` beside `/api/`, `/blog/blog/`), linked relatively; every page its own.

`build_fresh_sites(state)` is one ASGI app answering each host by its Host header; every request
is counted in `state` by host and path with its query. `FRESH_SITES` describes each.
"""

from __future__ import annotations

import hashlib
import html
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from urllib.parse import parse_qsl, quote_plus, urlencode

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.routing import Route

from tests.offline_web.state import SiteState

__all__ = [
    "FRESH_HOSTS",
    "FRESH_SITES",
    "LADDER_HOST",
    "LOOP_HOST",
    "FreshSite",
    "build_fresh_sites",
]

Handler = Callable[[Request], Awaitable[Response]]


@dataclass(frozen=True)
class FreshSite:
    """One site and what a perfect crawler does on it.

    `must_read`: the pages (path and query) a crawl must keep. `is_trap_page`: for a trap, the
    pages of the trap (none may be kept beyond `first_of_trap`, the first one read, whose
    boilerplate was new when it was read); None for a real site. `sitemap`: the paths robots.txt's
    sitemap lists, if the site has one."""

    host: str
    handler: Handler
    must_read: frozenset[str]
    is_trap_page: Callable[[str], bool] | None = None
    sitemap: tuple[str, ...] = ()
    first_of_trap: int = 1


def _page(
    title: str,
    paragraphs: list[str],
    links: list[tuple[str, str]],
    *,
    extra: str = "",
) -> Response:
    nav = "".join(f'<li><a href="{html.escape(h)}">{html.escape(t)}</a></li>' for h, t in links)
    body = "".join(f"<p>{html.escape(p)}</p>" for p in paragraphs)
    return HTMLResponse(
        f"<!doctype html><html><head><title>{html.escape(title)}</title></head><body><main>"
        f"<h1>{html.escape(title)}</h1>{body}{extra}<ul>{nav}</ul></main></body></html>"
    )


def _not_found() -> Response:
    return PlainTextResponse("not found", status_code=404)


def _target(request: Request) -> str:
    query = request.url.query
    return request.url.path + (f"?{query}" if query else "")


def _digest(text: str, size: int = 10) -> str:
    return hashlib.sha1(text.encode()).hexdigest()[:size]


# --- the wiki's recent changes ----------------------------------------------------------

WIKI_HOST = "wikiwood.test"
_ARTICLES = (
    "Alder_Creek", "Bell_Tower", "Cinder_Path", "Drover_Road", "Eel_Weir", "Fuller_Mill",
    "Gallows_Hill", "Hop_Kiln", "Ice_House", "Jubilee_Bridge", "Kiln_Lane", "Lime_Works",
    "Maltings", "Nether_Green", "Osier_Beds", "Pound_Cottage",
)  # fmt: skip
_WIKI_WORDS = (
    "parish records", "tithe map", "enclosure award", "census of 1841", "estate survey",
    "quarter sessions", "turnpike trust", "vestry minutes", "manor court roll", "glebe terrier",
)  # fmt: skip
_EDITORS = ("Hedgerow", "Quillon", "MapMaker", "Tansy", "OldRector")
_NOW = datetime(2026, 11, 27, 12, 0)
_RC = "/wiki/Special:RecentChanges"
_RC_ENTRY = f"{_RC}?limit=50&days=7"


def _article(name: str) -> tuple[str, list[str]]:
    rng = random.Random(f"wiki-{name}")
    title = name.replace("_", " ")
    paragraphs = [
        f"{title} is first named in the {rng.choice(_WIKI_WORDS)} of {rng.randint(1280, 1790)}, "
        f"when it belonged to {rng.choice(('the priory', 'the Fenwick family', 'the crown'))}.",
        f"The {rng.choice(_WIKI_WORDS)} shows {rng.randint(2, 40)} "
        f"{rng.choice(('cottages', 'acres', 'tenants', 'looms'))} there; the "
        f"{rng.choice(_WIKI_WORDS)} adds that it was rebuilt after "
        f"{rng.choice(('a flood', 'a fire', 'the storm of 1703', 'a lawsuit'))}.",
        f"It is now {rng.choice(('a listed building', 'a footpath', 'a nature reserve'))} "
        f"and {rng.randint(3, 90)} photographs of it are held by the local society.",
    ]
    return title, paragraphs


def _edits() -> list[tuple[datetime, str, str, str]]:
    """Every edit the wiki has: one or two an article, all in the two days before `_NOW`."""
    rng = random.Random("wiki-edits")
    edits = [
        (
            _NOW - timedelta(minutes=rng.randint(5, 2880)),
            name,
            rng.choice(_EDITORS),
            rng.choice(("fix date", "add source", "copyedit", "new photo", "expand history")),
        )
        for name in _ARTICLES
        for _ in range(rng.randint(1, 2))
    ]
    return sorted(edits, reverse=True)


async def _wiki(request: Request) -> Response:
    path = request.url.path
    rc_link = (_RC_ENTRY, "Recent changes")
    if path == "/":
        intro = ["A wiki of the parish's old buildings, lanes and works, written by volunteers."]
        return _page(
            "Wikiwood", intro, [(f"/wiki/{a}", a.replace("_", " ")) for a in _ARTICLES] + [rc_link]
        )
    if path.startswith("/wiki/") and path[6:] in _ARTICLES:
        name = path[6:]
        title, paragraphs = _article(name)
        index = _ARTICLES.index(name)
        others = [_ARTICLES[(index + step) % len(_ARTICLES)] for step in (1, 5, 11)]
        links = [(f"/wiki/{o}", o.replace("_", " ")) for o in others]
        return _page(title, paragraphs, [("/", "Main page"), *links, rc_link])
    if path != _RC:
        return _not_found()
    params = request.query_params
    try:
        limit = int(params.get("limit", "50"))
        days = int(params.get("days", "7"))
        offset = datetime.strptime(
            params.get("offset", _NOW.strftime("%Y%m%d%H%M%S")), "%Y%m%d%H%M%S"
        )
    except ValueError:
        return _not_found()
    shown = [e for e in _edits() if offset - timedelta(days=days) <= e[0] <= offset][:limit]
    stamp = offset.strftime("%Y%m%d%H%M%S")
    header = [
        f"Below are the last {limit} changes in the last {days} days, "
        f"up to {offset:%d %B %Y %H:%M}."
    ]
    if not shown:
        header.append("No changes during the given period match these criteria.")
    rows = [
        (f"/wiki/{name}", f"{when:%H:%M} {name.replace('_', ' ')} . . {who} ({summary})")
        for when, name, who, summary in shown
    ]
    options = [
        (f"{_RC}?{urlencode({'limit': n, 'days': days, 'offset': stamp})}", f"{n} changes")
        for n in (50, 100, 250, 500)
    ] + [
        (f"{_RC}?{urlencode({'limit': limit, 'days': d, 'offset': stamp})}", f"{d} days")
        for d in (1, 3, 7, 14, 30)
    ]
    for label, minutes in (("older", -limit * 60), ("newer", limit * 60)):
        moved = (offset + timedelta(minutes=minutes)).strftime("%Y%m%d%H%M%S")
        options.append(
            (
                f"{_RC}?{urlencode({'limit': limit, 'days': days, 'offset': moved})}",
                f"{label} {limit}",
            )
        )
    return _page("Recent changes", header, [("/", "Main page"), *rows, *options])


# --- the stonemason's relative-link loop ----------------------------------------------------

LOOP_HOST = "stonemason.test"
_NAV = {
    "about": (
        "About us",
        "Three generations of masons have worked from the yard by the river since 1961. "
        "We dress local sandstone by hand and train two apprentices every year.",
    ),
    "services": (
        "Services",
        "Repointing with lime mortar, dry-stone walling, carved lettering, fireplace "
        "surrounds and the repair of listed boundary walls.",
    ),
    "contact": (
        "Contact",
        "Call the yard on weekdays between eight and four, or write to us; we visit sites "
        "within forty miles for a free estimate.",
    ),
}
_PROJECTS = (
    "chapel-porch", "market-cross", "garden-terrace", "war-memorial", "field-barn",
    "bridge-parapet", "school-gateposts", "mill-race", "churchyard-wall", "well-head",
    "town-hall-steps", "sundial",
)  # fmt: skip


def _project(slug: str) -> list[str]:
    rng = random.Random(f"mason-{slug}")
    stone = rng.choice(("Hollington sandstone", "Purbeck limestone", "Cumbrian slate", "granite"))
    return [
        f"We rebuilt the {slug.replace('-', ' ')} in {stone} over {rng.randint(2, 30)} weeks "
        f"in {rng.randint(2009, 2025)}, reusing {rng.randint(40, 95)} per cent of the old stone.",
        f"The client was {rng.choice(('the parish', 'an owner', 'the county', 'a trust'))}; "
        f"the work needed {rng.choice(('listed building consent', 'a faculty', 'a bat survey'))}.",
    ]


async def _loop(request: Request) -> Response:
    path = request.url.path
    header = [("/", "Home"), ("/projects/", "Projects")]
    footer = [(f"{name}/", title) for name, (title, _) in _NAV.items()]  # relative: the bug
    if path == "/":
        intro = ["Hand-dressed stone for walls, memorials and old buildings, from our yard."]
        return _page("Riverside Stonemasons", intro, header + footer)
    if path == "/projects/":
        listing = [(f"/projects/{slug}/", slug.replace("-", " ")) for slug in _PROJECTS]
        return _page("Projects", ["Work we are proud of."], header + listing + footer)
    segments = [part for part in path.split("/") if part]
    if (
        len(segments) == 2
        and segments[0] == "projects"
        and segments[1] in _PROJECTS
        and path.endswith("/")
    ):
        return _page(segments[1].replace("-", " ").title(), _project(segments[1]), header + footer)
    if segments and segments[-1] in _NAV and path.endswith("/"):
        title, text = _NAV[segments[-1]]
        crumbs = " › ".join(["Home", *(_NAV[s][0] if s in _NAV else s for s in segments)])
        return _page(title, [f"You are here: {crumbs}", text], header + footer)
    return _not_found()


def _loop_trap(target: str) -> bool:
    segments = [part for part in target.split("?")[0].split("/") if part]
    return len(segments) > 1 and segments[-1] in _NAV


# --- the tent shop's stacking filters ---------------------------------------------------------

SHOP_HOST = "trailgear.test"
_BRANDS = ("Kestrel", "Moraine", "Tundra", "Fjell")
_TENTS = tuple(
    f"{brand} {model} {berth}{' Lite' if n >= 12 else ''}"
    for n, (brand, model, berth) in enumerate(
        zip(
            _BRANDS * 6,
            ("Ridge", "Dome", "Tunnel", "Pod", "Arch", "Bivvy") * 4,
            ("1", "2", "3", "2", "4", "1", "3", "2", "6", "2", "1", "4") * 2,
            strict=True,
        )
    )
)
_TENT_PATHS = tuple(f"/tent/{n}-{_TENTS[n].lower().replace(' ', '-')}" for n in range(len(_TENTS)))
_SORTS = ("popular", "price_asc", "price_desc", "newest")
_PER_PAGE = 8


def _tent(n: int) -> tuple[int, list[str]]:
    rng = random.Random(f"tent-{n}")
    price = rng.randint(60, 900)
    return price, [
        f"The {_TENTS[n]} sleeps {_TENTS[n].split()[2]} and packs to {rng.randint(900, 6000)} g, "
        f"with a {rng.randint(1500, 5000)} mm hydrostatic head flysheet.",
        f"Pitch time is about {rng.randint(3, 20)} minutes; the inner is "
        f"{rng.choice(('mesh', 'polycotton', 'ripstop nylon'))} and the poles are "
        f"{rng.choice(('aluminium', 'carbon', 'fibreglass'))}. Price £{price}.",
    ]


async def _shop(request: Request) -> Response:
    path = request.url.path
    if path == "/":
        return _page("Trailgear", ["Tents for every trip."], [("/tents", "All tents")])
    if path in _TENT_PATHS:
        n = _TENT_PATHS.index(path)
        return _page(_TENTS[n], _tent(n)[1], [("/", "Home"), ("/tents", "All tents")])
    if path != "/tents":
        return _not_found()
    pairs = parse_qsl(request.url.query)
    brands = {value for key, value in pairs if key == "brand"}
    sort = next((value for key, value in pairs if key == "sort"), "popular")
    page = int(next((value for key, value in pairs if key == "page" and value.isdigit()), "1"))
    chosen = [n for n in range(len(_TENTS)) if not brands or _TENTS[n].split()[0] in brands]
    keys = {
        "price_asc": lambda n: _tent(n)[0],
        "price_desc": lambda n: -_tent(n)[0],
        "newest": lambda n: -n,
    }
    if sort in keys:
        chosen.sort(key=keys[sort])
    shown = chosen[(page - 1) * _PER_PAGE : page * _PER_PAGE]
    rows = [(_TENT_PATHS[n], f"{_TENTS[n]}, £{_tent(n)[0]}") for n in shown]

    def replaced(key: str, value: str) -> str:
        kept = [(k, v) for k, v in pairs if k != key]
        return "/tents?" + urlencode([*kept, (key, value)])

    sorts = [(replaced("sort", s), f"Sort: {s}") for s in _SORTS]
    base = request.url.query
    filters = [(f"/tents?{base + '&' if base else ''}brand={b}", f"Brand: {b}") for b in _BRANDS]
    pages = [
        (replaced("page", str(p)), f"Page {p}")
        for p in (page - 1, page + 1)
        if p >= 1 and (p - 1) * _PER_PAGE < len(chosen)
    ]
    intro = [f"Tents: {len(chosen)} results, sorted by {sort.replace('_', ' ')}, page {page}."]
    return _page("Tents", intro, rows + sorts + filters + pages)


def _shop_trap(target: str) -> bool:
    return target.startswith("/tents?") and ("brand=" in target or "sort=" in target)


# --- the recipe site's endless "more ideas" ---------------------------------------------------

RELATED_HOST = "pantry.test"
_RECIPES = (
    "leek-and-potato-soup", "barley-risotto", "plum-crumble", "smoked-haddock-pie",
    "nettle-gnocchi", "spiced-lentils", "apple-chutney", "oat-biscuits", "rabbit-stew",
    "beetroot-salad", "treacle-tart", "mushroom-pasties", "cauliflower-cheese",
    "pear-and-ginger-cake", "kedgeree", "broad-bean-dip", "herb-scones", "pea-and-mint-soup",
    "rhubarb-fool", "onion-tart",
)  # fmt: skip


def _recipe(slug: str) -> list[str]:
    rng = random.Random(f"recipe-{slug}")
    return [
        f"{slug.replace('-', ' ').capitalize()} serves {rng.randint(2, 8)} and takes "
        f"{rng.randint(20, 150)} minutes, {rng.randint(5, 30)} of them at the stove.",
        f"Start with {rng.choice(('a knob of butter', 'rapeseed oil', 'dripping'))}, add "
        f"{rng.choice(('a bay leaf', 'thyme', 'nutmeg', 'a pinch of mace'))} and cook on a "
        f"{rng.choice(('low', 'moderate', 'brisk'))} heat; season with "
        f"{rng.choice(('cider vinegar', 'lemon', 'mustard'))} at the end.",
    ]


async def _related(request: Request) -> Response:
    path = request.url.path
    if path == "/":
        links = [(f"/recipe/{slug}", slug.replace("-", " ")) for slug in _RECIPES]
        return _page("The Pantry", ["Plain cooking from the seasons."], links)
    if path.startswith("/recipe/") and path[8:] in _RECIPES:
        slug = path[8:]
        links = [("/", "All recipes"), (f"/ideas/{_digest(slug)}", "More ideas like this")]
        return _page(slug.replace("-", " ").capitalize(), _recipe(slug), links)
    if path.startswith("/ideas/") and len(path) == 17:
        idea = path[7:]
        picks = [_RECIPES[int(_digest(idea + str(k)), 16) % len(_RECIPES)] for k in range(3)]
        links = [(f"/recipe/{slug}", slug.replace("-", " ")) for slug in picks]
        links += [
            (f"/ideas/{_digest(idea)}", "Another idea"),
            (f"/ideas/{_digest(idea + 's')}", "Shuffle"),
        ]
        text = [
            f"Recipe idea {idea}",
            "Cooks who liked this also liked these picks, chosen for you from the whole "
            "collection. Sign in to save ideas to your recipe box.",
        ]
        return _page("More ideas like this", text, links)
    return _not_found()


# --- the almanac's echoing search ---------------------------------------------------------

SEARCH_HOST = "almanac.test"
_PLANTS = (
    "rose", "foxglove", "hellebore", "peony", "clematis", "lavender", "hosta", "fern",
    "iris", "salvia", "astrantia", "geranium", "aster", "dahlia", "tulip", "snowdrop",
    "hydrangea", "phlox", "lupin", "sedum", "primula", "aquilegia", "verbena", "anemone",
    "crocosmia", "nepeta", "echinacea", "allium", "euphorbia", "campanula",
)  # fmt: skip
_CONDITIONS = ("shade", "clay", "sand", "drought", "frost", "wind", "chalk", "bog")


def _plant(name: str) -> tuple[tuple[str, str], list[str]]:
    rng = random.Random(f"plant-{name}")
    likes = tuple(rng.sample(_CONDITIONS, 2))
    return (likes[0], likes[1]), [
        f"The {name} grows to {rng.randint(10, 250)} cm and flowers in "
        f"{rng.choice(('spring', 'early summer', 'late summer', 'autumn', 'winter'))}.",
        f"It tolerates {likes[0]} and {likes[1]}; divide it every {rng.randint(2, 6)} years and "
        f"mulch with {rng.choice(('leaf mould', 'bark', 'garden compost', 'grit'))}.",
    ]


async def _search(request: Request) -> Response:
    path = request.url.path
    if path == "/":
        links = [(f"/entry/{name}", name.capitalize()) for name in _PLANTS]
        return _page("The Garden Almanac", ["Plants and where they thrive."], links)
    if path.startswith("/entry/") and path[7:] in _PLANTS:
        name = path[7:]
        likes, paragraphs = _plant(name)
        links = [("/", "Almanac"), *((f"/search?q={c}", f"More plants for {c}") for c in likes)]
        return _page(name.capitalize(), paragraphs, links)
    if path != "/search":
        return _not_found()
    words = request.query_params.get("q", "").split()
    hits = [p for p in _PLANTS if p in words or set(_plant(p)[0]) & set(words)][:5]
    rng = random.Random(" ".join(words))
    related = [" ".join([*words, w]) for w in rng.sample((*_CONDITIONS, *_PLANTS), 4)]
    text = [f"Results for “{' '.join(words)}”: {len(hits)} found."]
    links = [(f"/entry/{p}", p.capitalize()) for p in hits]
    links += [(f"/search?q={quote_plus(r)}", f"People also searched for {r}") for r in related]
    return _page("Search", text, [("/", "Almanac"), *links])


# --- the guide's print, share and language variants -------------------------------------------

VARIANTS_HOST = "ledger.test"
_GUIDES = (
    "opening-balances", "bank-reconciliation", "vat-returns", "petty-cash", "depreciation",
    "accruals", "prepayments", "credit-notes", "payroll-journals", "year-end-close",
    "trial-balance", "aged-debtors", "supplier-statements", "mileage-claims", "dividends",
    "director-loans", "stock-counts", "foreign-currency", "bad-debts", "cash-accounting",
    "fixed-asset-register", "budget-variance", "cost-centres", "invoice-numbering", "audit-trail",
)  # fmt: skip
_VARIANTS = (
    ("print", "1", "Printer-friendly version."),
    ("share", "email", "Share this page: copy the link below into your email."),
    ("share", "social", "Share this page with your followers."),
    ("lang", "de", "This guide is not yet available in Deutsch; showing the English original."),
    ("lang", "fr", "This guide is not yet available in français; showing the English original."),
    ("lang", "es", "This guide is not yet available in español; showing the English original."),
)


def _guide(slug: str) -> list[str]:
    rng = random.Random(f"guide-{slug}")
    topic = slug.replace("-", " ")
    return [
        f"{topic.capitalize()} belong in the {rng.choice(('ledger', 'cash book', 'journal'))} "
        f"and are checked {rng.choice(('monthly', 'every quarter', 'at year end'))}.",
        f"Post them to account {rng.randint(1000, 9999)}, keep the paperwork for "
        f"{rng.randint(3, 7)} years and ask your accountant when "
        f"{rng.choice(('the amounts are large', 'a director is involved', 'currencies differ'))}.",
    ]


async def _variants(request: Request) -> Response:
    path = request.url.path
    if path == "/":
        links = [(f"/guide/{slug}", slug.replace("-", " ")) for slug in _GUIDES]
        return _page("Ledger Guides", ["Plain bookkeeping, one task a page."], links)
    if not (path.startswith("/guide/") and path[7:] in _GUIDES):
        return _not_found()
    slug, query = path[7:], request.url.query
    pairs = parse_qsl(query)
    notices = [note for key, value, note in _VARIANTS if (key, value) in pairs]
    base = f"{path}?{query}&" if query else f"{path}?"
    links = [("/", "All guides")] + [
        (f"{base}{key}={value}", f"{key} {value}") for key, value, _ in _VARIANTS
    ]
    return _page(
        slug.replace("-", " ").capitalize(), [*dict.fromkeys(notices), *_guide(slug)], links
    )


# --- the board-game forum ---------------------------------------------------------------------

FORUM_HOST = "boardgamers.test"
_THREADS = 120
_PER_INDEX = 20
_GAMES = ("Carcassonne", "Azul", "Root", "Brass", "Wingspan", "Agricola", "Hanabi", "Cascadia")
_TOPICS = (
    "rules question",
    "best opening",
    "two-player variant",
    "sleeves",
    "insert",
    "house rule",
)
_RULES = (
    "Forum rules: be kind, no spoilers for legacy games without a warning, no selling in the "
    "discussion boards (use the marketplace), search before posting a rules question, and keep "
    "each thread to one game. Moderators may move or lock threads without notice."
)
_SIDEBAR = "Popular tags: strategy, solo, family, worker placement, deck building, expansions."
_SIGNATURES = (
    "Currently playing: far too much Root.",
    "Collection: 212 games, 14 unplayed, 1 patient spouse.",
    "If in doubt, read the rulebook again.",
    "Meeple painter and proud of it.",
    "Ask me about tile placement.",
)


def _thread(n: int) -> tuple[str, str, str]:
    rng = random.Random(f"thread-{n}")
    game, topic = rng.choice(_GAMES), rng.choice(_TOPICS)
    title = f"{game}: {topic} ({n})"
    post = (
        f"In our game last {rng.choice(('Friday', 'Sunday', 'night'))} {rng.randint(2, 5)} of us "
        f"argued about {rng.choice(('scoring', 'the end trigger', 'set-up', 'trading'))} for "
        f"{rng.randint(5, 50)} minutes; does {rng.choice(('the leader', 'the loser', 'everyone'))} "
        f"really {rng.choice(('draw two', 'skip a turn', 'score double', 'discard'))} here?"
    )
    slug = title.split(" (")[0].lower().replace(":", "").replace(" ", "-")
    return title, post, f"/t/{n + 1000}-{slug}"


_THREAD_PATHS = tuple(_thread(n)[2] for n in range(_THREADS))
_FORUM_PAGES = tuple(f"/forum?page={p}" for p in range(1, _THREADS // _PER_INDEX + 1))


async def _forum(request: Request) -> Response:
    path, target = request.url.path, _target(request)
    if path == "/":
        return _page("Boardgamers", [_RULES, _SIDEBAR], [(_FORUM_PAGES[0], "Discussion")])
    if target in _FORUM_PAGES:
        p = _FORUM_PAGES.index(target)
        rows = [(_thread(n)[2], _thread(n)[0]) for n in range(p * _PER_INDEX, (p + 1) * _PER_INDEX)]
        pager = [
            (_FORUM_PAGES[q], f"Page {q + 1}") for q in (p - 1, p + 1) if 0 <= q < len(_FORUM_PAGES)
        ]
        return _page(f"Discussion, page {p + 1}", [_RULES, _SIDEBAR], rows + pager)
    if path in _THREAD_PATHS:
        n = _THREAD_PATHS.index(path)
        title, post, _ = _thread(n)
        signature = _SIGNATURES[n % len(_SIGNATURES)]
        near = [
            (_THREAD_PATHS[m], "Neighbouring thread") for m in (n - 1, n + 1) if 0 <= m < _THREADS
        ]
        back = (_FORUM_PAGES[n // _PER_INDEX], "Back to the board")
        return _page(title, [_RULES, post, f"— {signature}", _SIDEBAR], [back, *near])
    return _not_found()


# --- the glossary of tiny pages ---------------------------------------------------------------

GLOSSARY_HOST = "lexicon.test"
_SYLLABLES = (
    "ba",
    "cor",
    "del",
    "fen",
    "gra",
    "hul",
    "ist",
    "jor",
    "kel",
    "lum",
    "mor",
    "nax",
    "pel",
    "quo",
    "rin",
    "sut",
    "tov",
    "ul",
    "vesk",
    "wen",
)


def _words() -> tuple[str, ...]:
    rng = random.Random("glossary")
    found: dict[str, None] = {}
    while len(found) < 400:
        found["".join(rng.sample(_SYLLABLES, rng.randint(2, 3)))] = None
    return tuple(sorted(found))


_WORDS = _words()
_WORD_PATHS = tuple(f"/word/{n:04d}" for n in range(1, len(_WORDS) + 1))
_LETTERS = tuple(sorted({word[0] for word in _WORDS}))


def _definition(n: int) -> str:
    rng = random.Random(f"definition-{n}")
    return (
        f"{_WORDS[n]}, {rng.choice(('noun', 'verb', 'adjective'))}: "
        f"{rng.choice(('a small', 'an old', 'a coastal', 'a northern', 'a heavy'))} "
        f"{rng.choice(('tool', 'boat', 'cloth', 'measure', 'dance', 'field', 'bread', 'rope'))} "
        f"{rng.choice(('used by', 'made by', 'named after', 'sold to'))} "
        f"{rng.choice(('weavers', 'shepherds', 'millers', 'fishers', 'carters', 'thatchers'))} "
        f"in {rng.choice(('winter', 'the uplands', 'market towns', 'the fens', 'harvest'))}."
    )


async def _glossary(request: Request) -> Response:
    path = request.url.path
    if path == "/":
        return _page(
            "Lexicon",
            ["Old words of country trades."],
            [(f"/letter/{c}", c.upper()) for c in _LETTERS],
        )
    if path.startswith("/letter/") and path[8:] in _LETTERS:
        c = path[8:]
        links = [(_WORD_PATHS[n], word) for n, word in enumerate(_WORDS) if word[0] == c]
        return _page(f"Words in {c.upper()}", [], [("/", "Lexicon"), *links])
    if path in _WORD_PATHS:
        n = _WORD_PATHS.index(path)
        near = [(_WORD_PATHS[m], _WORDS[m]) for m in (n - 1, n + 1) if 0 <= m < len(_WORDS)]
        return _page(_WORDS[n], [_definition(n)], [(f"/letter/{_WORDS[n][0]}", "Index"), *near])
    return _not_found()


# --- the news archive -------------------------------------------------------------------------

NEWS_HOST = "valleygazette.test"
_NEWS_PAGES = 15
_PER_NEWS_PAGE = 10
_PLACES = ("Ashby", "Brindle", "Coldharbour", "Dunmere", "Eastwick", "Fallowfield", "Greyhope")
_SUBJECTS = (
    "bus route",
    "flood defences",
    "library hours",
    "farmers' market",
    "cycle lane",
    "school roof",
    "care home",
    "cricket club",
)
_OUTCOMES = (
    "gets the go-ahead",
    "is delayed again",
    "wins an award",
    "faces a petition",
    "reopens",
    "needs a new home",
)


def _news(n: int) -> tuple[str, str, list[str]]:
    rng = random.Random(f"news-{n}")
    place, subject = rng.choice(_PLACES), rng.choice(_SUBJECTS)
    headline = f"{place} {subject} {rng.choice(_OUTCOMES)}"
    month = 12 - n // 13
    path = f"/news/2026/{month:02d}/{n}-{headline.lower().replace(' ', '-').replace(chr(39), '')}"
    paragraphs = [
        f"{rng.randint(20, 600)} people in {place} {rng.choice(('wrote to', 'met', 'lobbied'))} "
        f"the council about the {subject} this {rng.choice(('week', 'month', 'spring'))}.",
        f"A spokesperson said a decision on the £{rng.randint(10, 900)}k plan would follow "
        f"{rng.choice(('a survey', 'the budget', 'an inspection', 'the election'))}.",
        f"{rng.choice(_PLACES)} residents {rng.choice(('welcomed', 'questioned', 'opposed'))} it.",
    ]
    return headline, path, paragraphs


_NEWS_PATHS = tuple(_news(n)[1] for n in range(_NEWS_PAGES * _PER_NEWS_PAGE))
_NEWS_INDEXES = tuple(f"/news/page/{p}" for p in range(1, _NEWS_PAGES + 1))


async def _news_site(request: Request) -> Response:
    path = request.url.path
    if path == "/":
        latest = [(_news(n)[1], _news(n)[0]) for n in range(5)]
        return _page(
            "The Valley Gazette",
            ["News from the valley."],
            [*latest, (_NEWS_INDEXES[0], "All news")],
        )
    if path in _NEWS_INDEXES:
        p = _NEWS_INDEXES.index(path)
        rows = [
            (_news(n)[1], _news(n)[0]) for n in range(p * _PER_NEWS_PAGE, (p + 1) * _PER_NEWS_PAGE)
        ]
        teasers = [_news(n)[2][0] for n in range(p * _PER_NEWS_PAGE, (p + 1) * _PER_NEWS_PAGE)]
        pager = [
            (_NEWS_INDEXES[q], f"Page {q + 1}") for q in (p - 1, p + 1) if 0 <= q < _NEWS_PAGES
        ]
        return _page(f"News, page {p + 1}", teasers, rows + pager)
    if path in _NEWS_PATHS:
        headline, _, paragraphs = _news(_NEWS_PATHS.index(path))
        return _page(headline, paragraphs, [("/", "Front page"), (_NEWS_INDEXES[0], "All news")])
    return _not_found()


# --- the bolt catalogue -----------------------------------------------------------------------

CATALOGUE_HOST = "fastenerdepot.test"
_ITEMS = 500
_PER_LISTING = 20
_SHIPPING = (
    "Orders placed before two o'clock leave the warehouse the same day. Delivery is free over "
    "forty pounds; returns are accepted within thirty days in the original packaging. Trade "
    "accounts are invoiced monthly. All fasteners meet the relevant ISO standard."
)


def _bolt(n: int) -> tuple[str, str, list[tuple[str, str]]]:
    sizes = (3, 4, 5, 6, 8, 10, 12, 16)
    lengths = tuple(range(10, 220, 10))
    materials = ("zinc-plated steel", "A2 stainless steel", "A4 stainless steel")
    size, rest = sizes[n % len(sizes)], n // len(sizes)
    length, material = lengths[rest % len(lengths)], materials[rest // len(lengths)]
    price = 0.04 * size * length / 10 * (1 + rest // len(lengths))
    specs = [
        ("Thread", f"M{size} x {0.5 + size * 0.125:.2f} mm pitch"),
        ("Length", f"{length} mm"),
        ("Head across flats", f"{size * 1.6:.1f} mm"),
        ("Weight per 100", f"{size * size * length * 0.0062:.1f} g"),
        ("Price per 100", f"£{price:.2f}"),
    ]
    return f"FD-{10000 + n * 7}", f"Hex bolt M{size} x {length} mm, {material}", specs


_ITEM_PATHS = tuple(f"/item/{_bolt(n)[0]}" for n in range(_ITEMS))
_LISTINGS = tuple(f"/bolts?page={p}" for p in range(1, _ITEMS // _PER_LISTING + 1))


async def _catalogue(request: Request) -> Response:
    path, target = request.url.path, _target(request)
    if path == "/":
        return _page("Fastener Depot", [_SHIPPING], [(_LISTINGS[0], "Hex bolts")])
    if target in _LISTINGS:
        p = _LISTINGS.index(target)
        rows = [
            (_ITEM_PATHS[n], _bolt(n)[1]) for n in range(p * _PER_LISTING, (p + 1) * _PER_LISTING)
        ]
        pager = [(_LISTINGS[q], f"Page {q + 1}") for q in (p - 1, p + 1) if 0 <= q < len(_LISTINGS)]
        return _page(f"Hex bolts, page {p + 1}", [], rows + pager)
    if path in _ITEM_PATHS:
        n = _ITEM_PATHS.index(path)
        model, name, specs = _bolt(n)
        table = (
            "<table>"
            + "".join(f"<tr><th>{k}</th><td>{html.escape(v)}</td></tr>" for k, v in specs)
            + "</table>"
        )
        return _page(
            f"{name} ({model})", [f"Model {model}.", _SHIPPING], [("/", "Home")], extra=table
        )
    return _not_found()


# --- the API reference ------------------------------------------------------------------------

APIREF_HOST = "apiref.test"
_MODULES = {
    "io": ("Reader", "Writer", "Buffer"),
    "net": ("Socket", "Resolver", "Pool"),
    "text": ("Parser", "Tokenizer", "Formatter"),
    "store": ("Table", "Index", "Cursor"),
}
_VERBS = (
    "open",
    "close",
    "read",
    "write",
    "flush",
    "reset",
    "peek",
    "seek",
    "count",
    "clear",
    "merge",
    "split",
    "drain",
    "tell",
    "fill",
    "swap",
)
_TYPES = ("int", "str", "bytes", "float", "bool", "None")


def _methods(cls: str) -> tuple[str, ...]:
    rng = random.Random(f"api-{cls}")
    return tuple(sorted(rng.sample(_VERBS, rng.randint(14, 16))))


_API_PATHS = tuple(
    f"/api/{module}/{cls}.{method}.html"
    for module, classes in _MODULES.items()
    for cls in classes
    for method in _methods(cls)
)


def _signature(cls: str, method: str) -> tuple[str, str]:
    rng = random.Random(f"sig-{cls}-{method}")
    args = ", ".join(
        f"{name}: {rng.choice(_TYPES[:-1])}"
        for name in rng.sample(
            ("size", "offset", "key", "value", "timeout", "flags"), rng.randint(0, 3)
        )
    )
    returns = rng.choice(_TYPES)
    text = f"{cls}.{method}({args}) -> {returns}"
    manner = rng.choice(("", " in place", " and return the rest", " once"))
    doc = f"{method.capitalize()} the {cls.lower()}{manner}."
    return text, doc


async def _apiref(request: Request) -> Response:
    path = request.url.path
    if path == "/":
        return _page(
            "API reference", ["Every module of the library."], [(f"/api/{m}/", m) for m in _MODULES]
        )
    parts = path.split("/")
    if len(parts) == 4 and parts[1] == "api" and parts[2] in _MODULES:
        module, leaf = parts[2], parts[3]
        if leaf == "":
            return _page(
                f"Module {module}", [], [(f"/api/{module}/{c}.html", c) for c in _MODULES[module]]
            )
        if leaf.endswith(".html") and leaf[:-5] in _MODULES[module]:
            cls = leaf[:-5]
            links = [(f"/api/{module}/{cls}.{m}.html", m) for m in _methods(cls)]
            return _page(f"class {cls}", [], [(f"/api/{module}/", module), *links])
        if path in _API_PATHS:
            cls, method = leaf[:-5].split(".")
            text, doc = _signature(cls, method)
            return _page(
                f"{cls}.{method}",
                [doc],
                [(f"/api/{module}/{cls}.html", cls)],
                extra=f"<pre><code>{html.escape(text)}</code></pre>",
            )
    return _not_found()


# --- added after the relative-link loop's rule: the library's climbing loop ---------------------

LADDER_HOST = "quaysidelibrary.test"
# Its pages, by their two last segments (the router serves a page by them): a nav written for
# pages one level up (`../visit/find-us/` is right from `/visit/`, not from `/visit/find-us/`),
# so from every inner page it climbs one level and descends two, one level deeper each time.
_LADDER = {
    ("visit", "opening-hours"): (
        "Opening hours",
        "The reading room opens at nine on weekdays and ten on Saturdays; the harbour archive "
        "is open by appointment on Tuesday and Thursday afternoons.",
    ),
    ("visit", "find-us"): (
        "Find us",
        "We are in the old customs house on the quay, two minutes from the ferry slip; the "
        "nearest car park is behind the fish market.",
    ),
    ("help", "membership"): (
        "Membership",
        "Anyone who lives, works or studies in the borough may join for free with proof of "
        "address; visitors may read in the building without a card.",
    ),
    ("help", "faq"): (
        "Questions",
        "Lost cards are replaced at the desk for two pounds, renewals can be made by phone, and "
        "the printers take coins and contactless payment.",
    ),
}


async def _ladder(request: Request) -> Response:
    path = request.url.path
    nav = [(f"../{a}/{b}/", title) for (a, b), (title, _) in _LADDER.items()]  # one level off
    if path == "/":
        links = [(f"/{a}/{b}/", title) for (a, b), (title, _) in _LADDER.items()]
        intro = ["The town library by the harbour: books, maps, the archive and a quiet room."]
        return _page("Quayside Library", intro, [("/", "Home"), *links])
    segments = [part for part in path.split("/") if part]
    page = _LADDER.get(tuple(segments[-2:])) if path.endswith("/") else None  # type: ignore[arg-type]
    if len(segments) < 2 or page is None:
        return _not_found()
    title, text = page
    trail = " / ".join(segments)
    return _page(title, [f"Library / {trail}", text], [("/", "Home"), *nav])


def _ladder_trap(target: str) -> bool:
    return len([part for part in target.split("?")[0].split("/") if part]) > 2


# --- added after the relative-link loop's rule: a real site of namesake sections -----------------

NAMESAKE_HOST = "toolwright.test"
# A hardware maker whose sections share names legitimately: `/products/tools/products/` (the
# tools' own product line), `/docs/api/v1/api/` (the v1 API's `api` module), `/blog/blog/`
# (posts about the blog itself), `/support/docs/` beside `/docs/`. Every page holds its own text.
_NAMESAKE_PATHS = (
    "/products/", "/products/tools/", "/products/tools/products/", "/products/garden/",
    "/products/garden/tools/", "/docs/", "/docs/api/", "/docs/api/v1/", "/docs/api/v1/api/",
    "/docs/guide/", "/docs/guide/api/", "/api/", "/blog/", "/blog/blog/", "/blog/products/",
    "/support/", "/support/docs/", "/support/products/",
)  # fmt: skip
_NAMESAKE_WORDS = (
    "chisel", "spokeshave", "mallet", "dovetail", "hinge", "trowel", "secateurs", "hoe",
    "endpoint", "token", "webhook", "pagination", "warranty", "sharpening", "oilstone", "ash",
    "beech", "forged", "tempered", "handle", "ferrule", "blade", "bevel", "honing", "rake",
    "shipment", "invoice", "schema", "version", "release", "apprentice", "workshop",
)  # fmt: skip


def _namesake_text(path: str) -> list[str]:
    rng = random.Random(f"toolwright-{path}")
    return [
        " ".join(rng.choice(_NAMESAKE_WORDS) for _ in range(14)).capitalize() + "."
        for _ in range(4)
    ]


async def _namesake(request: Request) -> Response:
    path = request.url.path
    nav = [("/", "Home"), ("/products/", "Products"), ("/docs/", "Docs"), ("/blog/", "Blog")]
    children = [
        (p[len(path) :], p.strip("/").split("/")[-1])  # relative, as a site's template writes
        for p in _NAMESAKE_PATHS
        if p != path and p.startswith(path) and p[len(path) :].count("/") == 1
    ]
    if path == "/":
        return _page("Toolwright", ["Hand tools made in our forge."], nav + children)
    if path not in _NAMESAKE_PATHS:
        return _not_found()
    title = " ".join(part.title() for part in path.strip("/").split("/"))
    return _page(title, _namesake_text(path), nav + children)


FRESH_SITES: dict[str, FreshSite] = {
    site.host: site
    for site in (
        FreshSite(
            WIKI_HOST,
            _wiki,
            frozenset({"/", *(f"/wiki/{a}" for a in _ARTICLES)}),
            lambda target: target.startswith(_RC) and target != _RC_ENTRY,
        ),
        FreshSite(
            LOOP_HOST,
            _loop,
            frozenset(
                {
                    "/",
                    "/projects/",
                    *(f"/{n}/" for n in _NAV),
                    *(f"/projects/{s}/" for s in _PROJECTS),
                }
            ),
            _loop_trap,
        ),
        FreshSite(
            SHOP_HOST,
            _shop,
            frozenset({"/", "/tents", *_TENT_PATHS}),
            _shop_trap,
            sitemap=("/", "/tents", *_TENT_PATHS),
        ),
        FreshSite(
            RELATED_HOST,
            _related,
            frozenset({"/", *(f"/recipe/{s}" for s in _RECIPES)}),
            lambda target: target.startswith("/ideas/"),
            sitemap=("/", *(f"/recipe/{s}" for s in _RECIPES)),
        ),
        FreshSite(
            SEARCH_HOST,
            _search,
            frozenset({"/", *(f"/entry/{p}" for p in _PLANTS)}),
            lambda target: target.startswith("/search"),
        ),
        FreshSite(
            VARIANTS_HOST,
            _variants,
            frozenset({"/", *(f"/guide/{g}" for g in _GUIDES)}),
            lambda target: target.startswith("/guide/") and "?" in target,
        ),
        FreshSite(FORUM_HOST, _forum, frozenset({"/", *_FORUM_PAGES, *_THREAD_PATHS})),
        FreshSite(
            GLOSSARY_HOST,
            _glossary,
            frozenset({"/", *(f"/letter/{c}" for c in _LETTERS), *_WORD_PATHS}),
            sitemap=("/", *_WORD_PATHS),
        ),
        FreshSite(NEWS_HOST, _news_site, frozenset({"/", *_NEWS_INDEXES, *_NEWS_PATHS})),
        FreshSite(
            CATALOGUE_HOST,
            _catalogue,
            frozenset({"/", *_LISTINGS, *_ITEM_PATHS}),
            sitemap=("/", *_LISTINGS, *_ITEM_PATHS),
        ),
        FreshSite(
            LADDER_HOST,
            _ladder,
            frozenset({"/", *(f"/{a}/{b}/" for a, b in _LADDER)}),
            _ladder_trap,
        ),
        FreshSite(NAMESAKE_HOST, _namesake, frozenset({"/", *_NAMESAKE_PATHS})),
        FreshSite(
            APIREF_HOST,
            _apiref,
            frozenset(
                {
                    "/",
                    *(f"/api/{m}/" for m in _MODULES),
                    *(f"/api/{m}/{c}.html" for m, cs in _MODULES.items() for c in cs),
                    *_API_PATHS,
                }
            ),
        ),
    )
}
FRESH_HOSTS = tuple(FRESH_SITES)


def _sitemap(request: Request, paths: tuple[str, ...]) -> Response:
    origin = str(request.base_url).rstrip("/")
    urls = "".join(f"<url><loc>{html.escape(origin + path)}</loc></url>" for path in paths)
    return Response(
        '<?xml version="1.0" encoding="UTF-8"?>'
        f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>',
        media_type="application/xml",
    )


def build_fresh_sites(state: SiteState) -> Starlette:
    """The sites on one server, told apart by the Host header."""

    async def endpoint(request: Request) -> Response:
        host = request.headers.get("host", "").rsplit(":", 1)[0]
        state.record(host, _target(request))
        site = FRESH_SITES.get(host)
        if site is None:
            return PlainTextResponse("no such site", status_code=404)
        if request.url.path == "/robots.txt":
            origin = str(request.base_url).rstrip("/")
            named = f"Sitemap: {origin}/sitemap.xml\n" if site.sitemap else ""
            return PlainTextResponse(f"User-agent: *\nDisallow:\n{named}")
        if request.url.path == "/sitemap.xml":
            return _sitemap(request, site.sitemap) if site.sitemap else _not_found()
        return await site.handler(request)

    return Starlette(routes=[Route("/{rest:path}", endpoint)])
