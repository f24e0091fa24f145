"""`netsift map URL`: a site's URLs, one per line for people and pipes, or JSON."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated

import typer

from .boundary import build_settings, run
from .output import emit_json, status

if TYPE_CHECKING:
    from ..models import MapResult

__all__ = ["map_site"]


def map_site(
    url: Annotated[str | None, typer.Argument(help="The site's start URL.")] = None,
    limit: Annotated[int, typer.Option("--limit", "-n", help="List at most this many URLs.")] = 100,
    query: Annotated[
        str | None, typer.Option("--query", "-q", help="Rank the URLs by relevance to this.")
    ] = None,
    include: Annotated[
        list[str] | None,
        typer.Option("--include", help="A regular expression the path must match (repeatable)."),
    ] = None,
    exclude: Annotated[
        list[str] | None,
        typer.Option("--exclude", help="A regular expression that leaves a path out (repeatable)."),
    ] = None,
    subdomains: Annotated[
        bool, typer.Option("--subdomains", help="Also list the site's subdomains.")
    ] = False,
    sitemaps: Annotated[
        str,
        typer.Option(
            "--sitemaps", help="include, only (sitemaps alone) or skip (the start page alone)."
        ),
    ] = "include",
    no_robots: Annotated[
        bool, typer.Option("--no-robots", help="List URLs robots.txt disallows too.")
    ] = False,
    timeout: Annotated[
        float | None, typer.Option(help="Seconds for the whole map (default 60).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the whole map as JSON.")] = False,
    stdin: Annotated[
        bool, typer.Option("--stdin", help="Read JSON requests per line; write JSON per line.")
    ] = False,
) -> None:
    """List a site's URLs from its sitemaps, feeds and start page, without reading them."""
    from ..client import Client
    from ..errors import InvalidInput
    from ..params import MapOptions, validated

    settings = build_settings()
    if stdin:
        from .jsonlines import serve_operation

        run(lambda: serve_operation("map", settings), as_json=True)
        return

    async def one() -> MapResult:
        if url is None:
            raise InvalidInput("give a URL, or --stdin for JSON lines")
        params = validated(
            MapOptions,
            url=url,
            limit=limit,
            query=query,
            include=include or [],
            exclude=exclude or [],
            subdomains=subdomains,
            sitemaps=sitemaps,
            respect_robots=False if no_robots else None,
            timeout=timeout,
        )
        async with Client(settings) as client:
            with status(f"Mapping {url}"):
                return await client.map(**params.model_dump())

    result = run(one, as_json=as_json)
    if as_json:
        emit_json(result)
    else:
        print_map(result)


def print_map(result: MapResult) -> None:
    """One URL per line on stdout (pipeable); what was left out and why on stderr."""
    for link in result.links:
        sys.stdout.write(link.url + "\n")
    shown = len(result.links)
    left = ", ".join(f"{n} {why}" for why, n in result.left_out.items() if n)
    sys.stderr.write(
        f"{shown} of {result.found} URLs" + (f"; left out: {left}" if left else "") + "\n"
    )
    for report in result.sitemaps:
        if report.status in ("refused", "failed"):
            sys.stderr.write(f"note: sitemap {report.url} {report.status}: {report.reason}\n")
    for note in (*result.stopped_because, *result.warnings):
        sys.stderr.write(f"note: {note}\n")
