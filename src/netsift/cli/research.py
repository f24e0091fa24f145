"""`netsift research`, `netsift discoveries`, `netsift wake` and `netsift jobs`."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer

from .boundary import build_settings, run
from .output import emit_json

if TYPE_CHECKING:
    from ..models import Event, ResearchReport
    from ..research.discoveries import DiscoveryRead

__all__ = ["discoveries", "jobs", "research", "wake"]


def _line(event: Event) -> str | None:
    data = event.data
    match event.type:
        case "started":
            return f"researching ({data.get('mode')} mode): {data.get('question')}"
        case "planned":
            return f"round {data.get('iteration')}: " + "; ".join(data.get("queries", []))
        case "search_done":
            if data.get("ok"):
                return f"  searched {data.get('query')!r}: {data.get('results')} results"
            return f"  search {data.get('query')!r} failed ({data['error']['code']})"
        case "fetch_done":
            if data.get("ok"):
                return f"  read [{data.get('n')}] {data.get('title') or data.get('url')}"
            return f"  could not read {data.get('url')} ({data['error']['code']})"
        case "gap_found":
            return "  still open: " + "; ".join(data.get("gaps", []))
        case "discovery":
            return f"  discovery: {data.get('title')}"
        case "synthesizing":
            return f"  writing the answer from {data.get('sources')} sources"
        case "done":
            return f"done: {data.get('stopped_because')}"
        case _:
            return None


def print_report(report: ResearchReport) -> None:
    out = sys.stdout
    out.write(report.answer.rstrip() + "\n\n")
    if report.citations:
        out.write("Citations\n")
        for citation in report.citations:
            out.write(f"[{citation.n}] {citation.title or ''} <{citation.url}>\n")
            out.write(f"    “{citation.quote}”\n")
    if report.sources:
        out.write("\nSources\n")
        for source in report.sources:
            out.write(f"[{source.rank}] {source.title} <{source.url}>\n")
    for note in report.notes:
        sys.stderr.write(f"note: {note}\n")
    if not report.answered:
        sys.stderr.write("note: no source read answers the question (answered: false)\n")
    for warning in report.warnings:
        sys.stderr.write(f"warning: {warning}\n")
    sys.stderr.write(
        f"{report.searches} searches, {report.pages_read} pages, {report.tokens} tokens, "
        f"{report.elapsed_ms / 1000:.1f} s, stopped: {report.stopped_because}\n"
    )


def research(
    question: Annotated[str, typer.Argument(help="The question to research.")],
    depth: Annotated[str, typer.Option(help="quick (1 round), standard (3) or deep (5).")] = (
        "standard"
    ),
    breadth: Annotated[
        int | None,
        typer.Option(
            help="Queries per round (1-20; default 4, wider for a larger --max-searches)."
        ),
    ] = None,
    max_iterations: Annotated[
        int | None, typer.Option(help="Rounds at most (1-5; default from --depth).")
    ] = None,
    max_searches: Annotated[
        int | None,
        typer.Option(help="Searches at most (1-100; default 30)."),
    ] = None,
    max_pages: Annotated[int, typer.Option(help="Pages read at most.")] = 12,
    max_tokens: Annotated[int, typer.Option(help="LLM tokens at most.")] = 60_000,
    deadline: Annotated[float, typer.Option(help="Seconds before it stops and answers.")] = 180,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Research a question: searches, reads and answers with verified citations."""
    from rich.console import Console

    from ..client import Client
    from ..params import ResearchParams

    settings = build_settings()
    console = Console(stderr=True)

    async def work() -> ResearchReport:
        params = ResearchParams.model_validate(
            {
                "question": question,
                "depth": depth,
                "breadth": breadth,
                "max_iterations": max_iterations,
                "max_searches": max_searches,
                "max_pages": max_pages,
                "max_tokens": max_tokens,
                "deadline": deadline,
            }
        )
        async with Client(settings) as client:
            job = await client.start_research(params)
            with console.status("researching…", spinner="dots") as status:
                async for event in client.follow_job(job.id):
                    line = _line(event)
                    if line and not as_json:
                        console.print(line, highlight=False, markup=False)
                        status.update(line.strip()[:80])
            return client.research_report(await client.job(job.id))

    report = run(work, as_json=as_json)
    if as_json:
        emit_json(report)
    else:
        print_report(report)


def discoveries(
    job: Annotated[str | None, typer.Option(help="Only this research job's.")] = None,
    limit: Annotated[int, typer.Option(help="The most recent N.")] = 50,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """List the findings agents flagged for a human."""
    from ..client import Client

    settings = build_settings()

    async def work() -> DiscoveryRead:
        async with Client(settings) as client:
            return await client.read_discoveries(job_id=job, limit=limit)

    read = run(work, as_json=as_json)
    if as_json:
        emit_json(
            {
                "discoveries": [d.model_dump(mode="json") for d in read.discoveries],
                "corrupt_lines": read.corrupt_lines,
            }
        )
        return
    for item in read.discoveries:
        sys.stdout.write(f"{item.at:%Y-%m-%d %H:%M} {item.title}\n    {item.description}\n")
        if item.url:
            sys.stdout.write(f"    {item.url}\n")
    if read.corrupt_lines:
        sys.stderr.write(f"note: skipped corrupt lines {read.corrupt_lines}\n")


def wake(
    sleep_id: Annotated[str, typer.Argument(help="The sleep's id.")],
    message: Annotated[
        str | None, typer.Option(help="What the sleeper is told it woke for.")
    ] = None,
) -> None:
    """Wake a sleeping agent (a manual sleep, or any sleep before its time)."""
    from ..client import Client

    settings = build_settings()

    async def work() -> dict[str, Any]:
        async with Client(settings) as client:
            record = await client.wake(sleep_id, message=message)
            return record.model_dump(mode="json")

    emit_json(run(work, as_json=False))  # the record on stdout; an error on stderr


def jobs(
    limit: Annotated[int, typer.Option(help="The most recent N.")] = 20,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """List research jobs and their status."""
    from ..client import Client

    settings = build_settings()

    async def work() -> list[dict[str, Any]]:
        async with Client(settings) as client:
            found = await client.list_jobs(limit=limit)
            return [j.model_dump(mode="json", exclude={"result"}) for j in found]

    rows = run(work, as_json=as_json)
    if as_json:
        emit_json(rows)
        return
    for row in rows:
        question = (row.get("params") or {}).get("question", "")
        sys.stdout.write(f"{row['id']}  {row['status']:<11} {row['created_at'][:19]}  {question}\n")
