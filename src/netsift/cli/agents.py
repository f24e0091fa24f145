"""`netsift tools` and `netsift mcp`: the doors for agent loops and MCP clients."""

from __future__ import annotations

from typing import Annotated

import typer

from ..errors import InvalidInput
from .boundary import build_settings, check_port_free, fail, guarded
from .output import emit_json

__all__ = ["mcp", "tools"]

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def tools(
    format: Annotated[
        str, typer.Option("--format", "-f", help="openai, anthropic, mcp or jsonschema.")
    ] = "openai",
    strict: Annotated[
        bool,
        typer.Option(
            "--strict", help="Schemas in the form OpenAI's strict mode accepts (strict: true)."
        ),
    ] = False,
) -> None:
    """Print the agent tool definitions (JSON) for OpenAI, Anthropic or MCP; `jsonschema`:
    each command's `--stdin` request schema (its operation's params)."""
    from ..tools.schemas import definitions

    settings = build_settings()
    if format == "jsonschema":
        emit_json(_line_schemas())
        return
    if format not in ("openai", "anthropic", "mcp"):
        fail(
            InvalidInput(f"--format must be openai, anthropic, mcp or jsonschema, not {format!r}"),
            as_json=False,
        )
    emit_json(definitions(format, settings=settings, strict=strict))  # type: ignore[arg-type]


def _line_schemas() -> list[dict[str, object]]:
    """Every command that serves JSON lines: its names and its request's JSON Schema, from
    the catalogue (the same model its lines are validated with)."""
    from ..operations import CATALOGUE
    from ..tools.schemas import input_schema
    from .jsonlines import line_model

    return [
        {
            "command": op.cli,
            "operation": op.name,
            "tool": op.tool,
            "description": " ".join((op.params.__doc__ or op.summary).split()),
            "input_schema": input_schema(line_model(op)),
        }
        for op in CATALOGUE
        if op.cli and op.params is not None and op.name in STDIN_OPERATIONS
    ]


# The commands that serve `--stdin` JSON lines: every one-call operation (jobs, their
# listings and wakes are followed, not answered per line).
STDIN_OPERATIONS = frozenset(
    {
        "search",
        "fetch",
        "meta",
        "map",
        "extract",
        "robots_check",
        "wayback_lookup",
        "citation_pack",
        "dedupe_rank",
    }
)


def mcp(
    http: Annotated[bool, typer.Option("--http", help="Serve streamable HTTP, not stdio.")] = False,
    host: Annotated[str, typer.Option(help="Address to bind with --http.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to bind with --http.", min=0, max=65535)] = 8765,
) -> None:
    """Run the MCP server (stdio by default): the agent tools this host offers."""
    import anyio

    settings = build_settings()
    if http and host not in LOOPBACK:
        fail(
            InvalidInput(
                f"the MCP HTTP server binds loopback only (asked for {host}); "
                "put an authenticating proxy in front to expose it"
            ),
            as_json=False,
        )
    with guarded(as_json=False):
        from ..mcp import serve_http, serve_stdio

        if not http:
            anyio.run(serve_stdio, settings)
            return
        check_port_free(host, port)
        serve_http(settings, host=host, port=port, announce=_announce_mcp_http)


def _announce_mcp_http(url: str) -> None:
    """Where the server listens, and the configuration an MCP client takes, to paste."""
    import json

    client = {"mcpServers": {"netsift": {"type": "http", "url": url}}}
    print(
        f"netsift MCP server (streamable HTTP) on {url}; Ctrl-C stops it.\n"
        f"An MCP client's configuration:\n{json.dumps(client, indent=2)}",
        flush=True,
    )
