"""`netsift robots-check`, `netsift wayback`, `netsift citation-pack`, `netsift dedupe-rank`.

The toolbelt's small tools (issue 29): each prints for people, `--json` prints its result,
`--stdin` serves JSON lines (cli/jsonlines.py, from the catalogue).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from .boundary import build_settings, run
from .clients import jobless_client
from .output import emit_json, status

if TYPE_CHECKING:
    from ..archive.wayback import WaybackResult
    from ..citations.pack import CitationPack
    from ..net.robots import RobotsVerdict
    from ..search.rank import RankedResults

__all__ = ["citation_pack", "dedupe_rank", "robots_check", "wayback"]

JsonOption = Annotated[bool, typer.Option("--json", help="Print the whole result as JSON.")]
StdinOption = Annotated[
    bool, typer.Option("--stdin", help="Read JSON requests per line; write JSON per line.")
]


def _lines(name: str) -> None:
    from .jsonlines import serve_operation

    settings = build_settings()
    run(lambda: serve_operation(name, settings), as_json=True)


def _need(value: object, what: str) -> None:
    from ..errors import InvalidInput

    if not value:
        raise InvalidInput(f"give {what}, or --stdin for JSON lines")


def robots_check(
    url: Annotated[str | None, typer.Argument(help="The http(s) URL to ask about.")] = None,
    user_agent: Annotated[
        str | None, typer.Option("--user-agent", help="The user agent (default: netsift's).")
    ] = None,
    as_json: JsonOption = False,
    stdin: StdinOption = False,
) -> None:
    """May a user agent fetch this URL? robots.txt's answer, crawl delay and deciding rule."""
    if stdin:
        return _lines("robots_check")
    settings = build_settings()

    async def one() -> RobotsVerdict:
        _need(url, "a URL")
        assert url is not None
        async with jobless_client(settings) as client:
            with status(f"Reading robots.txt for {url}"):
                return await client.robots_check(url, user_agent=user_agent)

    verdict = run(one, as_json=as_json)
    if as_json:
        emit_json(verdict)
        return
    delay = f"{verdict.crawl_delay:g}s" if verdict.crawl_delay is not None else "none"
    sys.stdout.write(
        f"{'allowed' if verdict.allowed else 'disallowed'}: {verdict.url}\n"
        f"user agent: {verdict.user_agent}\n"
        f"rule: {verdict.rule or '(none matched)'}"
        + (f" (group User-agent: {verdict.group})" if verdict.group else "")
        + f"\ncrawl delay: {delay}\n"
        f"robots.txt: {verdict.robots_url} ({verdict.reason})\n"
    )


def wayback(
    url: Annotated[str | None, typer.Argument(help="The URL whose snapshot to find.")] = None,
    at: Annotated[
        str | None, typer.Option("--at", help="The date to be nearest: YYYYMMDD… or ISO.")
    ] = None,
    save: Annotated[bool, typer.Option("--save", help="Ask the archive to save it now.")] = False,
    read: Annotated[bool, typer.Option("--read", help="Print the snapshot's content.")] = False,
    max_length: Annotated[
        int | None, typer.Option(help="With --read: at most this many characters.")
    ] = None,
    as_json: JsonOption = False,
    stdin: StdinOption = False,
) -> None:
    """The Internet Archive snapshot of a URL nearest a date (the newest by default)."""
    if stdin:
        return _lines("wayback_lookup")
    settings = build_settings()

    async def one() -> WaybackResult:
        _need(url, "a URL")
        assert url is not None
        async with jobless_client(settings) as client:
            with status(f"Asking the Internet Archive about {url}"):
                return await client.wayback_lookup(
                    url, at=at, save=save, read=read, max_length=max_length
                )

    result = run(one, as_json=as_json)
    if as_json:
        emit_json(result)
        return
    snap = result.snapshot
    if snap is None:
        sys.stderr.write(f"no snapshot of {result.url} in the Internet Archive\n")
    else:
        saved = " (saved now)" if result.saved else ""
        sys.stdout.write(f"{snap.url}\ncaptured {snap.captured_at.isoformat()}{saved}\n")
    for capture in result.captures:
        if snap is None or capture.timestamp != snap.timestamp:
            sys.stderr.write(f"also: {capture.url}\n")
    for warning in result.warnings:
        sys.stderr.write(f"note: {warning}\n")
    if result.page is not None:
        sys.stdout.write("\n" + result.page.content + "\n")


def citation_pack(
    urls: Annotated[list[str] | None, typer.Argument(help="The pages to cite.")] = None,
    report: Annotated[
        str | None,
        typer.Option("--report", help="A research report's JSON file (`research --json`)."),
    ] = None,
    job: Annotated[
        str | None, typer.Option("--job", help="A research job whose report to cite.")
    ] = None,
    format: Annotated[
        str, typer.Option("--format", "-f", help="csl-json, bibtex or markdown.")
    ] = "csl-json",
    archive: Annotated[
        str,
        typer.Option("--archive", help="lookup (link a snapshot), save (request one) or off."),
    ] = "lookup",
    as_json: JsonOption = False,
    stdin: StdinOption = False,
) -> None:
    """Cite pages or a research report's sources, as CSL-JSON, BibTeX or Markdown."""
    if stdin:
        return _lines("citation_pack")
    settings = build_settings()

    async def one() -> CitationPack:
        given: Any = _read_json(report, "--report") if report is not None else None
        async with jobless_client(settings) as client:
            with status("Reading the sources"):
                return await client.citation_pack(
                    urls or [],
                    report=given,
                    job_id=job,
                    format=format,  # type: ignore[arg-type]  # checked by CitationPackParams
                    archive=archive,  # type: ignore[arg-type]
                )

    pack = run(one, as_json=as_json)
    if as_json:
        emit_json(pack)
        return
    sys.stdout.write(pack.output)
    for source in pack.sources:
        if source.error:
            sys.stderr.write(f"note: [{source.n}] {source.url}: {source.error.get('message')}\n")
    for warning in pack.warnings:
        sys.stderr.write(f"note: {warning}\n")


def dedupe_rank(
    results: Annotated[
        str,
        typer.Argument(
            help="A JSON file of results (a list, or `search --json` output); - for stdin."
        ),
    ] = "-",
    query: Annotated[str | None, typer.Option("--query", "-q", help="What to rank for.")] = None,
    count: Annotated[int, typer.Option("--count", "-n", help="Results to keep.")] = 10,
    as_json: JsonOption = False,
    stdin: StdinOption = False,
) -> None:
    """Fold duplicate search results and rank the rest against a query (no network)."""
    if stdin:
        return _lines("dedupe_rank")
    settings = build_settings()

    async def one() -> RankedResults:
        _need(query, "--query")
        assert query is not None
        given = _read_json(results, "the results")
        listed: Any = given.get("results") if isinstance(given, dict) else given
        async with jobless_client(settings) as client:
            return await client.dedupe_rank(query, listed, count=count)

    ranked = run(one, as_json=as_json)
    if as_json:
        emit_json(ranked)
        return
    for result in ranked.results:
        sys.stdout.write(f"{result.rank}. {result.title}\n   {result.url}\n")
    sys.stderr.write(f"{ranked.folded} duplicates folded, {ranked.dropped} past --count\n")


def _read_json(file: str, what: str) -> Any:
    """A JSON file (or standard input for -); InvalidInput when it is missing or not JSON."""
    from ..errors import InvalidInput

    if file == "-":
        text = sys.stdin.read()
    else:
        path = Path(file)
        if not path.is_file():
            raise InvalidInput(f"{what}: no such file: {file}")
        text = path.read_text(encoding="utf-8", errors="replace")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"{what}: {file} is not JSON ({exc.msg})") from None
