"""`netsift extract-data URL... --schema FILE`: a JSON Schema's fields read from pages, each
with its evidence."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ..errors import InvalidInput
from .boundary import build_settings, fail, run
from .output import emit_json, status

if TYPE_CHECKING:
    from ..structured.model import ExtractDataResult

__all__ = ["extract_data"]


def _schema(value: str | None) -> dict[str, Any] | None:
    """`--schema`: JSON text, a file holding it, or `-` for standard input."""
    if value is None:
        return None
    text = value
    if not value.lstrip().startswith("{"):
        try:
            text = sys.stdin.read() if value == "-" else Path(value).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InvalidInput(f"--schema: cannot read {value}: {exc}") from None
    try:
        schema = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"--schema: not JSON: {exc.msg} (line {exc.lineno})") from None
    if not isinstance(schema, dict):
        raise InvalidInput("--schema: a JSON Schema is a JSON object")
    return schema


def extract_data(
    urls: Annotated[list[str] | None, typer.Argument(help="The pages to read.")] = None,
    query: Annotated[
        str | None, typer.Option("--query", "-q", help="Search for the pages to read instead.")
    ] = None,
    output_schema: Annotated[
        str | None,
        typer.Option(
            "--schema", help="The fields to fill: a JSON Schema as text, a file, or - for stdin."
        ),
    ] = None,
    prompt: Annotated[
        str | None, typer.Option("--prompt", help="What to extract, in words (for the model).")
    ] = None,
    max_pages: Annotated[int | None, typer.Option(help="Pages read at most (default 5).")] = None,
    max_tokens: Annotated[
        int | None, typer.Option(help="Model tokens at most (default 30000).")
    ] = None,
    deadline: Annotated[
        float | None, typer.Option(help="Seconds before it stops and answers (default 120).")
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the whole answer as JSON.")
    ] = False,
) -> None:
    """Extract typed data from pages: each field with the passage and URL it came from."""
    from ..client import Client

    settings = build_settings()
    try:
        schema = _schema(output_schema)
    except InvalidInput as error:
        fail(error, as_json=as_json)

    async def one() -> ExtractDataResult:
        async with Client(settings) as client:
            with status("Extracting"):
                return await client.extract_data(
                    urls or None,
                    query=query,
                    output_schema=schema,
                    prompt=prompt,
                    max_pages=max_pages,
                    max_tokens=max_tokens,
                    deadline=deadline,
                )

    result = run(one, as_json=as_json)
    if as_json:
        emit_json(result)
    else:
        print_result(result)


def print_result(result: ExtractDataResult) -> None:
    """The data as JSON on stdout; each field's evidence and each null's reason on stderr."""
    sys.stdout.write(json.dumps(result.data, ensure_ascii=False, indent=2) + "\n")
    for name, evidence in result.evidence.items():
        for item in evidence:
            sys.stderr.write(
                f"{name}: \u201c{item.quote[:160]}\u201d ({item.origin}, {item.url})\n"
            )
    for name, why in result.missing.items():
        sys.stderr.write(f"{name}: null: {why}\n")
    for note in result.notes:
        sys.stderr.write(f"note: {note}\n")
