"""`netsift search` and `netsift providers`."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer

from .boundary import build_settings, run
from .clients import jobless_client
from .output import emit_json, human, print_search, status

if TYPE_CHECKING:
    from ..models import SearchResponse

__all__ = ["providers", "search"]


def search(
    query: Annotated[str | None, typer.Argument(help="What to search for.")] = None,
    count: Annotated[int, typer.Option("--count", "-n", help="Number of results (1-50).")] = 10,
    providers: Annotated[
        str | None,
        typer.Option(
            "--providers", "--provider", "-p", help="A provider or a comma list, in order."
        ),
    ] = None,
    merge: Annotated[bool, typer.Option(help="Ask several providers and merge.")] = False,
    time_range: Annotated[
        str | None, typer.Option("--time-range", "--time", "-t", help="d, w, m or y.")
    ] = None,
    region: Annotated[str | None, typer.Option(help="Region, e.g. us-en, de-de.")] = None,
    safesearch: Annotated[str, typer.Option(help="off, moderate or strict.")] = "moderate",
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Bypass the cache.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the SearchResponse.")] = False,
    stdin: Annotated[
        bool, typer.Option("--stdin", help="Read JSON requests per line; write JSON per line.")
    ] = False,
    verbose: Annotated[
        bool,
        typer.Option(
            "--verbose", "-v", help="Show every provider attempt (code, message) on stderr."
        ),
    ] = False,
) -> None:
    """Search the web across providers with failover; failures are reported, never hidden."""
    from ..errors import InvalidInput
    from ..models import TIME_RANGE_WORDS
    from ..params import SearchParams

    settings = build_settings()

    if stdin:
        from .jsonlines import serve_operation

        run(lambda: serve_operation("search", settings), as_json=True)
        return

    async def one() -> SearchResponse:
        if not query:
            raise InvalidInput("give a query, or --stdin for JSON lines")
        if time_range is not None and time_range not in TIME_RANGE_WORDS:
            raise InvalidInput(f"--time-range must be d, w, m or y, not {time_range!r}")
        options: dict[str, Any] = {
            "query": query,
            "count": count,
            "providers": providers,
            "merge": merge,
            "time_range": TIME_RANGE_WORDS[time_range] if time_range else None,
            "region": region,
            "safesearch": safesearch,
            "no_cache": no_cache,
        }
        params = SearchParams.model_validate(options)
        async with jobless_client(settings) as client:
            with status(f"Searching {query!r}"):
                return await client.search(**params.model_dump())

    response = run(one, as_json=as_json, verbose=verbose)
    if as_json:
        emit_json(response)
    else:
        print_search(response, verbose=verbose)


def providers(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """List search providers: configured or not, limits and breaker state."""
    from ..client import Client

    settings = build_settings()

    async def listing() -> list[dict[str, Any]]:
        async with Client(settings) as client:
            return client.provider_status()

    rows = run(listing, as_json=as_json)
    if as_json:
        emit_json(rows)
        return
    if human():
        from rich.console import Console
        from rich.table import Table

        table = Table(title="search providers")
        for column in ("name", "kind", "configured", "enabled", "rate limit", "state"):
            table.add_column(column)
        for row in rows:
            table.add_row(*_cells(row))
        Console().print(table)
    else:
        for row in rows:
            sys.stdout.write("\t".join(_cells(row)) + "\n")


def _cells(row: dict[str, Any]) -> list[str]:
    breaker = row.get("breaker") or {}
    state = "suspended" if breaker.get("suspended_until") else "ok"
    return [
        str(row.get("name")),
        str(row.get("kind", "")),
        "yes" if row.get("configured") else f"no (set {row.get('needs', '')})",
        "yes" if row.get("enabled") else "no",
        str(row.get("rate_limit", "")),
        state,
    ]
