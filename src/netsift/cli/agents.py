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
        str, typer.Option("--format", "-f", help="openai, anthropic or mcp.")
    ] = "openai",
    strict: Annotated[
        bool,
        typer.Option(
            "--strict", help="Schemas in the form OpenAI's strict mode accepts (strict: true)."
        ),
    ] = False,
) -> None:
    """Print the agent tool definitions (JSON) for OpenAI, Anthropic or MCP."""
    from ..tools.schemas import definitions

    settings = build_settings()
    if format not in ("openai", "anthropic", "mcp"):
        fail(
            InvalidInput(f"--format must be openai, anthropic or mcp, not {format!r}"),
            as_json=False,
        )
    emit_json(definitions(format, settings=settings, strict=strict))  # type: ignore[arg-type]


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
