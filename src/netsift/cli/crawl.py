"""`netsift crawl URL`: read a site, page by page, as a durable job.

People get a progress bar on stderr and one line per page kept; `--json` prints JSON lines as
the crawl goes — `{"type": "page", "n", "depth", "page"}` for each page kept, `{"type":
"skipped", "url", "code", "message"}` for each URL left out, and one `{"type": "done", …}`
summary last.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer

from .boundary import build_settings, run
from .output import emit_json

if TYPE_CHECKING:
    from ..crawl.kind import CrawlSummary
    from ..models import Event, Page

__all__ = ["crawl"]


def crawl(
    url: Annotated[str, typer.Argument(help="Where to start: an http(s) URL of the site.")],
    max_pages: Annotated[int, typer.Option(help="Pages to keep at most.")] = 50,
    max_depth: Annotated[
        int, typer.Option(help="Link hops to follow from the nearest seed (start URL, sitemap).")
    ] = 3,
    sitemap: Annotated[
        str,
        typer.Option(
            help="include: the sitemaps seed it with the start URL; only: the sitemaps' URLs "
            "alone; skip: the start URL and its links alone."
        ),
    ] = "include",
    include: Annotated[
        list[str] | None,
        typer.Option(help="Read only paths matching this regular expression (repeatable)."),
    ] = None,
    exclude: Annotated[
        list[str] | None,
        typer.Option(help="Skip paths matching this regular expression (repeatable)."),
    ] = None,
    query: Annotated[
        str | None, typer.Option(help="Read the pages most relevant to this first.")
    ] = None,
    subdomains: Annotated[bool, typer.Option(help="Also read the site's subdomains.")] = False,
    deadline: Annotated[float, typer.Option(help="Seconds before it stops.")] = 600.0,
    workers: Annotated[
        int, typer.Option(help="Workers that may share it (others: `netsift worker`).")
    ] = 1,
    robots: Annotated[bool, typer.Option("--robots/--no-robots", help="Obey robots.txt.")] = True,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON lines.")] = False,
) -> None:
    """Crawl a site: its pages as Markdown, within its scope, robots.txt and budgets."""
    from ..client import Client
    from ..params import CrawlParams

    settings = build_settings()

    async def work() -> CrawlSummary:
        params = CrawlParams.model_validate(
            {
                "url": url,
                "max_pages": max_pages,
                "max_depth": max_depth,
                "sitemap": sitemap,
                "include": include or [],
                "exclude": exclude or [],
                "query": query,
                "subdomains": subdomains,
                "deadline": deadline,
                "workers": workers,
                "respect_robots": robots,
            }
        )
        async with Client(settings) as client:  # the crawl runs here
            job = await client.start_crawl(params)
            with _Progress(params.max_pages, enabled=not as_json) as progress:
                async for event, page in client.stream_crawl(job.id):
                    if as_json:
                        _emit(event, page)
                    else:
                        progress.show(event)
            done = await client.job(job.id)
        # raised outside the job runtime's task group, which would wrap it in an ExceptionGroup
        return client.crawl_summary(done)

    summary = run(work, as_json=as_json)
    if as_json:
        emit_json({"type": "done", **summary.model_dump(mode="json")})
    else:
        sys.stderr.write(
            f"{summary.pages_read} pages, {summary.bytes} bytes, "
            f"{summary.elapsed_ms / 1000:.1f} s, stopped: {', '.join(summary.stopped_because)}\n"
        )
        if summary.unread:
            sys.stderr.write(_unread(summary) + "\n")


def _emit(event: Event, page: Page | None) -> None:
    if event.type == "page" and page is not None:
        data = {"n": event.data["n"], "depth": event.data["depth"]}
        emit_json({"type": "page", **data, "page": page.model_dump(mode="json")})
    elif event.type == "skipped":
        emit_json({"type": "skipped", **event.data})


class _Progress:
    """A rich progress bar on stderr (pages kept of the budget) and a line per page on
    stdout; nothing but the lines when stderr is not a terminal."""

    def __init__(self, total: int, *, enabled: bool) -> None:
        self.enabled = enabled
        self.total = total
        self._bar: Any = None
        self._task: Any = None

    def __enter__(self) -> _Progress:
        if self.enabled and sys.stderr.isatty():
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

            self._bar = Progress(
                TextColumn("crawling"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[last]}"),
                console=Console(stderr=True),
                transient=True,
            )
            self._bar.__enter__()
            self._task = self._bar.add_task("crawl", total=self.total, last="")
        return self

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.__exit__(None, None, None)

    def show(self, event: Event) -> None:
        if event.type != "page":
            return
        data = event.data
        line = f"{data['n']:>5}  {data.get('title') or ''}  <{data.get('final_url')}>"
        sys.stdout.write(line.rstrip() + "\n")
        sys.stdout.flush()
        if self._bar is not None:
            self._bar.update(self._task, advance=1, last=str(data.get("final_url"))[-60:])


def _unread(summary: CrawlSummary) -> str:
    """What the crawl left unread, and why, in one line."""
    parts = []
    if summary.beyond_depth:
        parts.append(f"{summary.beyond_depth} beyond --max-depth")
    if summary.trapped:
        parts.append(f"{summary.trapped} in traps ({', '.join(summary.traps)})")
    if rest := summary.unread - summary.beyond_depth - summary.trapped:
        parts.append(f"{rest} when it stopped")
    return f"{summary.unread} URLs left unread: " + "; ".join(parts)
