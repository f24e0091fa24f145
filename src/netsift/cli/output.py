"""How the CLI shows things: JSON for programs, rich renderings for people on a terminal."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic import BaseModel

    from ..models import Metadata, Page, PageTypeExplanation, SearchResponse

__all__ = ["emit_json", "human", "print_meta", "print_page", "print_search", "status"]


def human() -> bool:
    return sys.stdout.isatty()


def emit_json(value: BaseModel | dict[str, Any] | list[Any]) -> None:
    from pydantic import BaseModel

    data = value.model_dump(mode="json") if isinstance(value, BaseModel) else value
    sys.stdout.write(json.dumps(data, ensure_ascii=False) + "\n")
    sys.stdout.flush()


class _NoStatus:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def status(message: str) -> Any:
    """A spinner on stderr when a person is watching; nothing when piped."""
    if sys.stderr.isatty():
        from rich.console import Console

        return Console(stderr=True).status(message)
    return _NoStatus()


def print_page(page: Page) -> None:
    sys.stdout.write(page.content)
    if not page.content.endswith("\n"):
        sys.stdout.write("\n")
    if page.truncated:
        sys.stderr.write(
            f"[truncated: {len(page.content)} of {page.total_length} characters; "
            f"continue with --start-index {page.next_start_index}]\n"
        )


def print_meta(meta: Metadata) -> None:
    fields: tuple[str, ...] = ("title", "description", "site_name", "url", "image", "favicon")
    fields += ("type", "author", "published", "lang", "canonical", "page_type")
    for name in fields:
        value = getattr(meta, name)
        if value:
            sys.stdout.write(f"{name}: {value}\n")
    if meta.page_type_explanation is not None:
        print_page_type_explanation(meta.page_type_explanation)


def print_page_type_explanation(why: PageTypeExplanation) -> None:
    """`meta --explain`: the decision, each signal with its weight and where it was found (in
    the order found), the totals and the runner-up."""
    sys.stdout.write(f"page_type_rule: {why.rule}\n")
    sys.stdout.write(f"page_type_confidence: {why.confidence:g}\n")
    for signal in why.signals:
        weight = f"+{signal.weight:g}"
        sys.stdout.write(f"  {weight:<6}{signal.type:<14}{signal.signal}  ({signal.where})\n")
    if why.scores:
        totals = ", ".join(f"{kind} {score:g}" for kind, score in why.scores.items())
        sys.stdout.write(f"page_type_scores: {totals}\n")
    if why.runner_up is not None:
        sys.stdout.write(f"page_type_runner_up: {why.runner_up} ({why.runner_up_score:g})\n")


def print_search(response: SearchResponse, *, verbose: bool = False) -> None:
    """The results on stdout; on stderr a note per failed provider, or with `verbose` every
    attempt (the answering one too, with its latency)."""
    failed = [] if verbose else [a for a in response.attempts if not a.ok]
    if human():
        from rich.console import Console
        from rich.table import Table

        table = Table(title=f"{response.query!r} via {response.provider or 'no provider'}")
        table.add_column("#", justify="right")
        table.add_column("result", overflow="fold")
        for result in response.results:
            cell = f"[bold]{result.title}[/bold]\n[cyan]{result.url}[/cyan]"
            if result.snippet:
                cell += f"\n{result.snippet}"
            table.add_row(str(result.rank), cell)
        Console().print(table)
    else:
        for result in response.results:
            sys.stdout.write(f"{result.rank}. {result.title}\n   {result.url}\n")
            if result.snippet:
                sys.stdout.write(f"   {result.snippet}\n")
    for attempt in failed:
        sys.stderr.write(
            f"note: {attempt.provider} failed ({attempt.error_code}): {attempt.message or ''}\n"
        )
    if verbose and response.attempts:
        from .boundary import attempt_line

        cached = " (from the cache)" if response.cached else ""
        sys.stderr.write(f"attempts{cached}:\n")
        for attempt in response.attempts:
            sys.stderr.write(attempt_line(attempt.model_dump()))
    if not response.results:
        sys.stderr.write("no results\n")
