"""The offline test web: one Starlette app that plays many websites, routed by the Host header.

Every hostname is pinned to 127.0.0.1 through `Settings.resolve`, so netsift reaches these
pages through the real guard, transport and redirects — the production path. Each route is a
real-world case: a cluttered news article, charsets declared in one place or none, feeds, a
PDF, files of every type, redirect chains and loops, slow drips, stalls, huge bodies,
compression bombs, error statuses and robots.txt variants. Pages of other owners are listed
in `pages/manifest.toml` ("host/path" → file and content type) and served as they are.

The site counts every request in a `SiteState`, so tests can prove what the server saw.
"""

from __future__ import annotations

import tomllib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response, StreamingResponse
from starlette.routing import Route

from tests.offline_web import documents as docs
from tests.offline_web.sitemaps import MAP_ROUTES
from tests.offline_web.spa import SPA_ROUTES
from tests.offline_web.state import SiteState
from tests.offline_web.streams import (
    compress_gzip,
    stream_bomb,
    stream_drip,
    stream_filler,
    stream_stall,
)
from tests.offline_web.toolbelt import TOOLBELT_ROUTES
from tests.offline_web.walls import WALL_ROUTES

__all__ = ["HOSTS", "MANIFEST", "PAGES", "ManifestPage", "build_app", "load_manifest"]

PAGES = Path(__file__).parent / "pages"
HTML = "text/html; charset=utf-8"
MiB = 1024 * 1024

ALLOW_ALL = "User-agent: *\nDisallow:\n"
DOCS_ROBOTS = "User-agent: *\nDisallow: /private/\n"

Handler = Callable[[Request, SiteState], Awaitable[Response]]


@dataclass(frozen=True)
class ManifestPage:
    host: str
    path: str
    file: Path
    content_type: str
    status: int = 200


def load_manifest(path: Path = PAGES / "manifest.toml") -> dict[tuple[str, str], ManifestPage]:
    """Rows of `pages/manifest.toml`: `["host/path"]` with `file` and `content_type`."""
    if not path.is_file():
        return {}
    rows = tomllib.loads(path.read_text("utf-8"))
    pages: dict[tuple[str, str], ManifestPage] = {}
    for key, row in rows.items():
        host, _, rest = key.partition("/")
        page = ManifestPage(
            host=host.lower(),
            path="/" + rest,
            file=path.parent / row["file"],
            content_type=row.get("content_type", HTML),
            status=int(row.get("status", 200)),
        )
        pages[(page.host, page.path)] = page
    return pages


MANIFEST = load_manifest()


def _page(name: str) -> bytes:
    return (PAGES / name).read_bytes()


def _html(body: str | bytes, status: int = 200, **headers: str) -> Response:
    return Response(body, status_code=status, media_type=HTML, headers=headers)


def _text(body: str, media_type: str = "text/plain; charset=utf-8", status: int = 200) -> Response:
    return Response(body, status_code=status, media_type=media_type)


def _simple(title: str, *paragraphs: str, status: int = 200, **headers: str) -> Response:
    return _html(docs.build_simple_page(title, list(paragraphs)), status, **headers)


def _redirect(location: str, status: int = 302) -> Response:
    # Starlette's RedirectResponse would quote the URL; send the Location exactly as given.
    response = RedirectResponse("/", status_code=status)
    response.headers["location"] = location
    return response


# news.test ---------------------------------------------------------------------------------


async def _article(request: Request, state: SiteState) -> Response:
    return _html(_page("article.html"))


def _charset(name: str) -> Handler:
    async def handler(request: Request, state: SiteState) -> Response:
        body, content_type = docs.build_charset_page(name)
        return Response(body, media_type=None, headers={"content-type": content_type})

    return handler


# blog.test ---------------------------------------------------------------------------------


async def _post(request: Request, state: SiteState) -> Response:
    return _html(_page("blog-post.html"))


async def _rss(request: Request, state: SiteState) -> Response:
    return _text(docs.RSS_FEED, "application/rss+xml; charset=utf-8")


async def _atom(request: Request, state: SiteState) -> Response:
    return _text(docs.ATOM_FEED, "application/atom+xml; charset=utf-8")


# docs.test ---------------------------------------------------------------------------------


async def _guide(request: Request, state: SiteState) -> Response:
    return _html(_page("docs-guide.html"))


async def _secret(request: Request, state: SiteState) -> Response:
    return _simple(
        "Internal deployment notes",
        "The staging cluster rotates its credentials every Monday at 04:00.",
        "This page is readable over HTTP, but robots.txt asks crawlers to stay away from it.",
    )


# files.test --------------------------------------------------------------------------------


def _bytes(body: Callable[[], bytes] | bytes, content_type: str) -> Handler:
    async def handler(request: Request, state: SiteState) -> Response:
        data = body() if callable(body) else body
        return Response(data, media_type=None, headers={"content-type": content_type})

    return handler


async def _untyped_html(request: Request, state: SiteState) -> Response:
    page = docs.build_simple_page(
        "Served without a content type",
        [
            "This HTML page is labelled application/octet-stream by a careless server.",
            "A reader that sniffs the first bytes still recognises it as a web page.",
        ],
    )
    return Response(page.encode(), headers={"content-type": "application/octet-stream"})


# redirect.test -----------------------------------------------------------------------------


async def _hop(request: Request, state: SiteState) -> Response:
    try:
        n = int(request.url.path.removeprefix("/hop/"))
    except ValueError:
        return _simple("Not found", "No such hop.", status=404)
    if n <= 0:
        return _simple("Arrived", "You followed every hop of the redirect chain and arrived here.")
    return _redirect(f"/hop/{n - 1}")


async def _to(request: Request, state: SiteState) -> Response:
    target = request.query_params.get("url")
    if not target:
        return _simple("Bad request", "Give ?url=", status=400)
    return _redirect(target)


def _fixed_redirect(location: str, status: int) -> Handler:
    async def handler(request: Request, state: SiteState) -> Response:
        return _redirect(location, status)

    return handler


# slow.test ---------------------------------------------------------------------------------


async def _drip(request: Request, state: SiteState) -> Response:
    return StreamingResponse(stream_drip(state.stopping), media_type=HTML)


async def _stall(request: Request, state: SiteState) -> Response:
    return StreamingResponse(stream_stall(state.stopping), media_type=HTML)


async def _slow(request: Request, state: SiteState) -> Response:
    delay = min(float(request.query_params.get("delay", "1")), 60.0)
    waited = 0.0
    while waited < delay and not state.stopping.is_set():
        step = min(0.05, delay - waited)
        await anyio.sleep(step)
        waited += step
    return _simple("Slow page", f"This page took {delay:g} seconds to answer.")


# big.test ----------------------------------------------------------------------------------


async def _huge(request: Request, state: SiteState) -> Response:
    return StreamingResponse(stream_filler(state.stopping, size=20 * MiB), media_type=HTML)


async def _huge_declared(request: Request, state: SiteState) -> Response:
    size = 50 * MiB
    return StreamingResponse(
        stream_filler(state.stopping, size=size),
        media_type=HTML,
        headers={"content-length": str(size)},
    )


def _bomb(encoding: str) -> Handler:
    async def handler(request: Request, state: SiteState) -> Response:
        return StreamingResponse(
            stream_bomb(state.stopping, encoding=encoding),
            media_type=HTML,
            headers={"content-encoding": encoding},
        )

    return handler


GZIP_OK_TEXT = "This page travelled gzip-compressed and arrived whole."


async def _gzip_ok(request: Request, state: SiteState) -> Response:
    page = docs.build_simple_page(
        "Compressed but harmless",
        [GZIP_OK_TEXT, "Compression is normal on the web; only bombs must be refused."],
    )
    return Response(
        compress_gzip(page.encode()),
        media_type=HTML,
        headers={"content-encoding": "gzip", "vary": "Accept-Encoding"},
    )


# status.test -------------------------------------------------------------------------------


def _status(code: int, **headers: str) -> Handler:
    async def handler(request: Request, state: SiteState) -> Response:
        return _simple(f"Error {code}", f"The server answered {code}.", status=code, **headers)

    return handler


async def _flaky(request: Request, state: SiteState) -> Response:
    if state.hits("status.test", "/flaky") == 1:
        return _simple("Try again", "The first request of each test fails.", status=503)
    return _simple("Flaky but fine", "The second request of each test succeeds.")


# robots variants ---------------------------------------------------------------------------


def _robots(body: str, status: int = 200) -> Handler:
    async def handler(request: Request, state: SiteState) -> Response:
        return _text(body, status=status)

    return handler


async def _plain_page(request: Request, state: SiteState) -> Response:
    host = request.headers.get("host", "").split(":")[0]
    return _simple(f"A page on {host}", f"This is an ordinary page served by {host}.")


ROUTES: dict[str, dict[str, Handler]] = {
    "news.test": {
        "/article": _article,
        **{f"/{name}": _charset(name) for name in docs.CHARSET_TEXT},
        "/robots.txt": _robots(ALLOW_ALL),
    },
    "blog.test": {
        "/post": _post,
        "/feed.rss": _rss,
        "/feed.atom": _atom,
        "/robots.txt": _robots(ALLOW_ALL),
    },
    "docs.test": {
        "/guide": _guide,
        "/private/secret": _secret,
        "/robots.txt": _robots(DOCS_ROBOTS),
    },
    "files.test": {
        "/report.pdf": _bytes(docs.build_pdf, "application/pdf"),
        "/data.json": _bytes(docs.DATA_JSON.encode(), "application/json"),
        "/notes.txt": _bytes(docs.NOTES_TXT.encode(), "text/plain; charset=utf-8"),
        "/readme.md": _bytes(docs.README_MD.encode(), "text/markdown; charset=utf-8"),
        "/logo.png": _bytes(docs.build_logo_png, "image/png"),
        "/archive.bin": _bytes(docs.ARCHIVE_BIN, "application/octet-stream"),
        "/untyped-html": _untyped_html,
        "/long.txt": _bytes(docs.LONG_TEXT.encode(), "text/plain; charset=utf-8"),
    },
    "redirect.test": {
        "/to": _to,
        "/loop-a": _fixed_redirect("/loop-b", 302),
        "/loop-b": _fixed_redirect("/loop-a", 302),
        "/relative": _fixed_redirect("hop/1", 301),
        "/307": _fixed_redirect("/hop/0", 307),
    },
    "slow.test": {"/drip": _drip, "/stall": _stall, "/slow": _slow},
    "big.test": {
        "/huge": _huge,
        "/huge-declared": _huge_declared,
        "/gzip-bomb": _bomb("gzip"),
        "/brotli-bomb": _bomb("br"),
        "/zstd-bomb": _bomb("zstd"),
        "/gzip-ok": _gzip_ok,
    },
    "status.test": {
        "/404": _status(404),
        "/410": _status(410),
        "/500": _status(500),
        "/503": _status(503, **{"retry-after": "1"}),
        "/429": _status(429, **{"retry-after": "1"}),
        "/flaky": _flaky,
        "/robots.txt": _robots(ALLOW_ALL),
    },
    "robots5xx.test": {"/robots.txt": _robots("overloaded", 503), "/page": _plain_page},
    "robots4xx.test": {"/robots.txt": _robots("not here", 404), "/page": _plain_page},
}

ROUTES.update(SPA_ROUTES)  # spa.test: JavaScript-rendered pages (tests/offline_web/spa.py)
ROUTES.update(MAP_ROUTES)  # map.test and its traps: sitemaps to map (tests/offline_web/sitemaps.py)
ROUTES.update(WALL_ROUTES)  # walls.test and notwalls.test (tests/offline_web/walls.py)
ROUTES.update(TOOLBELT_ROUTES)  # rules.test and scans.test (tests/offline_web/toolbelt.py)

PREFIX_ROUTES: dict[str, dict[str, Handler]] = {"redirect.test": {"/hop/": _hop}}

HOSTS: tuple[str, ...] = tuple(dict.fromkeys([*ROUTES, *(host for host, _ in MANIFEST)]))


def _find(host: str, path: str) -> Handler | None:
    if handler := ROUTES.get(host, {}).get(path):
        return handler
    for prefix, handler in PREFIX_ROUTES.get(host, {}).items():
        if path.startswith(prefix):
            return handler
    return None


def build_app(
    state: SiteState, manifest: dict[tuple[str, str], ManifestPage] | None = None
) -> Starlette:
    """The whole offline web as one ASGI app; `state` counts what it is asked."""
    pages = MANIFEST if manifest is None else manifest

    async def dispatch(request: Request) -> Response:
        host = request.headers.get("host", "").rsplit(":", 1)[0].strip("[]").lower()
        path = request.url.path
        state.record(host, path)
        if handler := _find(host, path):
            return await handler(request, state)
        if page := pages.get((host, path)):
            return Response(
                page.file.read_bytes(),
                status_code=page.status,
                media_type=None,
                headers={"content-type": page.content_type},
            )
        return _simple("Not found", f"Nothing at {host}{path}.", status=404)

    return Starlette(routes=[Route("/{path:path}", dispatch, methods=["GET", "HEAD"])])
