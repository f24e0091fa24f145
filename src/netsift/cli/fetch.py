"""`netsift fetch`, `netsift meta` and `netsift extract`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from .boundary import build_settings, run
from .clients import jobless_client
from .output import emit_json, print_meta, print_page, status

if TYPE_CHECKING:
    from ..config import Settings
    from ..models import ContentFormat, Metadata, Page

__all__ = ["extract", "fetch", "meta"]

FormatOption = Annotated[
    str, typer.Option("--format", "-f", help="markdown, text or html.", show_default=True)
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON (the whole Page).")]
StdinOption = Annotated[
    bool, typer.Option("--stdin", help="Read JSON requests per line; write JSON per line.")
]


PageTypeOption = Annotated[
    str,
    typer.Option(
        "--page-type",
        help="auto, article, documentation, forum, product, service, listing or collection.",
        show_default=True,
    ),
]


def _one_shot(settings: Settings) -> None:
    """Fork the command's extraction worker now, before the event loop starts a thread, so a
    one-page command pays for one interpreter's start-up instead of three (netsift/oneshot.py
    says why this keeps the worker's limits); --stdin serves many pages and keeps the pool.

    The pages' models and the readers' dispatch (fetch/content.py) are imported first: the
    command builds its Page with them anyway, and the worker then shares them instead of
    importing them again."""
    from ..compute import PRELOAD
    from ..fetch import content  # noqa: F401
    from ..oneshot import fork_worker

    fork_worker(settings.task_memory_mb, PRELOAD)


def _format(value: str) -> ContentFormat:
    from ..errors import InvalidInput

    if value not in ("markdown", "text", "html"):
        raise InvalidInput(f"--format must be markdown, text or html, not {value!r}")
    return value  # type: ignore[return-value]


def fetch(
    url: Annotated[str | None, typer.Argument(help="The http(s) URL to fetch.")] = None,
    format: FormatOption = "markdown",
    page_type: PageTypeOption = "auto",
    as_json: JsonOption = False,
    max_length: Annotated[
        int | None, typer.Option(help="Return at most this many characters.")
    ] = None,
    start_index: Annotated[int, typer.Option(help="Continue a truncated page here.")] = 0,
    no_robots: Annotated[bool, typer.Option("--no-robots", help="Ignore robots.txt.")] = False,
    timeout: Annotated[float | None, typer.Option(help="Total seconds for the fetch.")] = None,
    max_bytes: Annotated[int | None, typer.Option(help="Largest body to read.")] = None,
    stdin: StdinOption = False,
    render: Annotated[
        str | None,
        typer.Option(
            "--render",
            help="Run the page's JavaScript in the guarded browser: auto, always or never "
            "(default: auto when netsift[browser] is installed).",
        ),
    ] = None,
    keep_hidden: Annotated[
        bool,
        typer.Option(
            "--keep-hidden",
            help="Keep the text the page hides from its visitors (display:none, off-screen, "
            "noscript...); by default it is dropped and counted in the warnings.",
        ),
    ] = False,
) -> None:
    """Fetch a page safely and print its main content."""
    from ..errors import InvalidInput
    from ..params import FetchParams

    settings = build_settings(
        respect_robots=False if no_robots else None, timeout=timeout, max_bytes=max_bytes
    )

    if stdin:
        from .jsonlines import serve_operation

        run(lambda: serve_operation("fetch", settings), as_json=True)
        return

    _one_shot(settings)

    async def one() -> Page:
        if url is None:
            raise InvalidInput("give a URL, or --stdin for JSON lines")
        params = FetchParams.model_validate(
            {
                "url": url,
                "format": _format(format),
                "max_length": max_length,
                "start_index": start_index,
                "page_type": page_type,
                "render": render,
                "keep_hidden": keep_hidden,
            }
        )
        async with jobless_client(settings) as client:
            with status(f"Fetching {url}"):
                return await client.fetch(**params.model_dump())

    page = run(one, as_json=as_json)
    if as_json:
        emit_json(page)
    else:
        print_page(page)


def meta(
    url: Annotated[str | None, typer.Argument(help="The http(s) URL to describe.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    no_robots: Annotated[bool, typer.Option("--no-robots", help="Ignore robots.txt.")] = False,
    stdin: StdinOption = False,
    explain: Annotated[
        bool,
        typer.Option(
            "--explain",
            help="Say why the page was read as its page type: each signal, its weight and "
            "where it was found, and the runner-up.",
        ),
    ] = False,
) -> None:
    """Print a page's link-preview card: title, description, image, site name, favicon."""
    from ..errors import InvalidInput
    from ..params import MetaParams

    settings = build_settings(respect_robots=False if no_robots else None)
    if stdin:
        from .jsonlines import serve_operation

        run(lambda: serve_operation("meta", settings), as_json=True)
        return
    _one_shot(settings)

    async def one() -> Metadata:
        if url is None:
            raise InvalidInput("give a URL, or --stdin for JSON lines")
        params = MetaParams(url=url, explain=explain)
        async with jobless_client(settings) as client:
            with status(f"Reading {url}"):
                return await client.meta(params.url, explain=params.explain)

    card = run(one, as_json=as_json)
    if as_json:
        emit_json(card)
    else:
        print_meta(card)


def extract(
    file: Annotated[
        str, typer.Argument(help="An HTML file, or - for standard input.", show_default=True)
    ] = "-",
    url: Annotated[str | None, typer.Option(help="The page's URL, to resolve links.")] = None,
    format: FormatOption = "markdown",
    page_type: PageTypeOption = "auto",
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON with metadata.")] = False,
    max_length: Annotated[
        int | None, typer.Option(help="Return at most this many characters.")
    ] = None,
    start_index: Annotated[int, typer.Option(help="Continue a truncated page here.")] = 0,
    stdin: Annotated[
        bool,
        typer.Option(
            "--stdin", help="Read JSON requests per line (with their html); write JSON per line."
        ),
    ] = False,
) -> None:
    """Extract main content from HTML you already have (no network)."""
    from ..errors import InvalidInput

    # A file is as hostile as a page: it is read in the command's extraction worker, under
    # the same CPU and memory budget (NETSIFT_TASK_*), never in the command's own process.
    settings = build_settings()
    if stdin:
        from .jsonlines import serve_operation

        run(lambda: serve_operation("extract", settings), as_json=True)
        return
    _one_shot(settings)

    def read() -> bytes:
        if file == "-":
            return sys.stdin.buffer.read()
        path = Path(file)
        if not path.is_file():
            raise InvalidInput(f"no such file: {file}")
        return path.read_bytes()

    async def one() -> Page:
        fmt = _format(format)
        # Read on the main thread: Ctrl-C interrupts it at once (a worker thread blocked on a
        # terminal ignored the first Ctrl-C and aborted the interpreter on the second).
        body = read()
        async with jobless_client(settings) as client:
            return await client.extract_isolated(
                body,
                url=url,
                format=fmt,
                max_length=max_length,
                start_index=start_index,
                page_type=page_type,  # type: ignore[arg-type]  # checked by ExtractParams
                what=f"the HTML in {file}",
            )

    page = run(one, as_json=as_json)
    if as_json:
        emit_json(page)
    else:
        print_page(page)
