"""`netsift context QUERY`: the passages that answer a query, within a token budget."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated

import typer

from .boundary import build_settings, run
from .output import emit_json, status

if TYPE_CHECKING:
    from ..models import ContextAnswer

__all__ = ["context"]


def context(
    query: Annotated[str, typer.Argument(help="What to look up.")],
    max_tokens: Annotated[
        int | None, typer.Option("--max-tokens", help="Token budget (512-32768; default 4096).")
    ] = None,
    max_sources: Annotated[
        int | None, typer.Option("--max-sources", help="Pages read at most (1-20; default 5).")
    ] = None,
    per_source: Annotated[
        int | None,
        typer.Option("--per-source", help="Passages from one page at most (1-10; default 3)."),
    ] = None,
    providers: Annotated[
        str | None,
        typer.Option(
            "--providers", "--provider", "-p", help="A provider or a comma list, in order."
        ),
    ] = None,
    time_range: Annotated[
        str | None, typer.Option("--time-range", "--time", "-t", help="d, w, m or y.")
    ] = None,
    region: Annotated[str | None, typer.Option(help="Region, e.g. us-en, de-de.")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Bypass the caches.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the ContextAnswer.")] = False,
) -> None:
    """The passages most relevant to a query across the pages a search finds, within a token
    budget: verbatim, deduplicated, each with its source."""
    from ..client import Client

    settings = build_settings()

    async def one() -> ContextAnswer:
        async with Client(settings) as client:
            with status(f"Gathering context for {query!r}"):
                return await client.context(
                    query,
                    max_tokens=max_tokens,
                    max_sources=max_sources,
                    per_source=per_source,
                    providers=providers.split(",") if providers else None,
                    time_range=time_range,  # type: ignore[arg-type]  # validated by the Client
                    region=region,
                    no_cache=no_cache,
                )

    answer = run(one, as_json=as_json)
    if as_json:
        emit_json(answer)
    else:
        print_context(answer)


def print_context(answer: ContextAnswer) -> None:
    """Each passage under its source line on stdout; the budget and what was left out on
    stderr, so stdout is the context itself."""
    for passage in answer.passages:
        sys.stdout.write(f"[{passage.n}] {passage.title} — {passage.url}\n{passage.text}\n\n")
    left = ", ".join(f"{n} {why}" for why, n in answer.left_out.items() if n)
    sys.stderr.write(
        f"{len(answer.passages)} passages from {sum(1 for s in answer.sources if s.passages)} "
        f"of {len(answer.sources)} pages, ~{answer.tokens} of {answer.max_tokens} tokens"
        + (f"; left out: {left}" if left else "")
        + "\n"
    )
    for warning in answer.warnings:
        sys.stderr.write(f"note: {warning}\n")
