"""The MCP server: netsift's agent tools over the Model Context Protocol (official `mcp` SDK).

Built on the SDK's low-level `Server` so that tool schemas come from the same pydantic models
as every other door and every failure of a tool, bad arguments included, comes back as a tool
result with `isError` and netsift's error object. Only a tool that does not exist is a protocol
error (JSON-RPC -32602), as the specification asks.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import anyio
from anyio.abc import TaskGroup
from mcp import MCPError, types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from pydantic import ValidationError

from ._version import __version__
from .config import Settings
from .errors import InvalidInput, NetsiftError
from .models import Event
from .params import CHARS_PER_TOKEN
from .tools.dispatch import TOOL_NAMES, Toolbox
from .tools.fetch_text import (
    NO_MORE_CONTENT,
    REFERENCE_DESCRIPTION,
    ReferenceFetchArgs,
    raw_part,
    reference_text,
)
from .tools.schemas import ResearchArgs, definitions, enabled_tools, tool_name

if TYPE_CHECKING:  # built at the first tool call (_DeferredToolbox)
    from .client import Client

__all__ = ["create_server", "serve_http", "serve_stdio"]

HEARTBEAT_SECONDS = 2.0
CUT_NOTE_ROOM = 300  # characters kept free for the note that says how to get the rest
# The reference MCP fetch server's tool, served as it is, so a host that ran it switches by
# changing the command; netsift's own tools sit beside it.
REFERENCE_FETCH = "fetch"
# What each tool does to the world, for MCP clients that decide what to confirm: reading the
# open web changes nothing; a discovery or a sleep is the agent's own record, not the web's.
READ_ONLY = types.ToolAnnotations(read_only_hint=True, open_world_hint=True)
ANNOTATIONS = {
    "web_search": READ_ONLY,
    "web_fetch": READ_ONLY,
    "page_meta": READ_ONLY,
    "web_map": READ_ONLY,
    "batch_search": READ_ONLY,
    "web_context": READ_ONLY,
    "web_crawl": READ_ONLY,
    "deep_research": READ_ONLY,
    "extract_data": READ_ONLY,
    "research_status": types.ToolAnnotations(read_only_hint=True, open_world_hint=False),
    "robots_check": READ_ONLY,
    # a save asks the Internet Archive to capture the page: it writes to the world
    "wayback_lookup": types.ToolAnnotations(read_only_hint=False, open_world_hint=True),
    "citation_pack": types.ToolAnnotations(read_only_hint=False, open_world_hint=True),
    "dedupe_rank": types.ToolAnnotations(read_only_hint=True, open_world_hint=False),
    REFERENCE_FETCH: types.ToolAnnotations(
        read_only_hint=True, idempotent_hint=True, open_world_hint=True
    ),
}
INSTRUCTIONS = (
    "netsift searches the web and reads pages safely. Use web_search to find pages, "
    "web_fetch to read one (long pages come in parts: continue with start_index), "
    "page_meta for a link preview, web_map to list a site's URLs, "
    "web_crawl to read a site's pages from a start URL, "
    "batch_search for several queries at once, "
    "web_context for the passages that answer a query, within a token budget, "
    "deep_research for a cited answer to a question (progress is reported as it runs), "
    "robots_check to ask robots.txt, wayback_lookup for archived copies, "
    "citation_pack for references, dedupe_rank to fold and rank a result list, "
    "extract_data for typed fields (a JSON Schema) read from pages, each with its evidence."
)


def create_server(
    settings: Settings | None = None, *, client: Client | None = None
) -> Server[Toolbox]:
    """An MCP server whose lifespan owns one Client (or uses the one given, for tests)."""

    @asynccontextmanager
    async def lifespan(_: Server[Toolbox]) -> AsyncIterator[Toolbox]:
        if client is not None:
            yield Toolbox(client)
            return
        async with anyio.create_task_group() as group:
            toolbox = _DeferredToolbox(settings if settings is not None else Settings(), group)
            try:
                yield toolbox
            finally:
                await toolbox.stop()

    async def list_tools(
        ctx: ServerRequestContext[Toolbox], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        toolbox = ctx.lifespan_context
        tools = [types.Tool(**_tool_fields(d)) for d in toolbox.definitions("mcp")]
        if "web_fetch" in toolbox.names():
            tools.append(
                types.Tool(
                    name=REFERENCE_FETCH,
                    description=REFERENCE_DESCRIPTION,
                    input_schema=ReferenceFetchArgs.model_json_schema(),
                    annotations=ANNOTATIONS[REFERENCE_FETCH],
                )
            )
        return types.ListToolsResult(tools=tools)

    async def reference_fetch(
        ctx: ServerRequestContext[Toolbox], arguments: dict[str, Any]
    ) -> types.CallToolResult:
        """`fetch` as the reference server answers it: one text, the part asked for."""
        try:
            args = ReferenceFetchArgs.model_validate(arguments)
            client = ctx.lifespan_context.client
            if args.raw:  # the page's source, as the reference server gives it
                page = raw_part(
                    await client.fetch(args.url, max_length=1, keep_source=True),
                    start_index=args.start_index,
                    max_length=args.max_length,
                )
            else:
                page = await client.fetch(
                    args.url, max_length=args.max_length, start_index=args.start_index
                )
        except ValidationError as exc:
            error = InvalidInput.from_validation(exc, subject="arguments", lead="bad arguments: ")
            return _error_result(error)
        except InvalidInput as exc:
            if "total_length" not in exc.details:  # past the end is a normal answer there
                return _error_result(exc)
            text = f"Contents of {arguments.get('url')}:\n{NO_MORE_CONTENT}"
            return types.CallToolResult(content=[types.TextContent(type="text", text=text)])
        except NetsiftError as exc:
            return _error_result(exc)
        text = reference_text(args.url, page, raw=args.raw)
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])

    async def research(
        ctx: ServerRequestContext[Toolbox], arguments: dict[str, Any]
    ) -> dict[str, Any]:
        """deep_research: run as a job, each event a progress notification, the report last."""
        toolbox = ctx.lifespan_context
        try:
            params = ResearchArgs.model_validate(arguments).to_params()
            job = await toolbox.client.start_research(params)
        except ValidationError as exc:
            error = InvalidInput.from_validation(exc, subject="arguments", lead="bad arguments: ")
            return {"error": error.to_dict()}
        except NetsiftError as exc:
            return {"error": exc.to_dict()}
        async for event in toolbox.client.follow_job(job.id):
            await ctx.session.report_progress(event.seq, None, _describe(event))
        done = await toolbox.client.job(job.id)
        if done.result is not None:
            return {"job_id": job.id, **done.result}
        return {"error": done.error or {"code": "internal", "message": f"job {done.status}"}}

    async def call_tool(
        ctx: ServerRequestContext[Toolbox], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        if isinstance(ctx.lifespan_context, _DeferredToolbox):
            try:
                await ctx.lifespan_context.start()
            except NetsiftError as exc:
                return _error_result(exc)
        name = tool_name(params.name)
        if name == REFERENCE_FETCH and "web_fetch" in ctx.lifespan_context.names():
            return await reference_fetch(ctx, params.arguments or {})
        if name not in TOOL_NAMES:  # one switched off on this host answers `disabled`
            names = ctx.lifespan_context.names()
            raise MCPError(
                types.INVALID_PARAMS,
                f"unknown tool {params.name!r}; available: {', '.join(names)}",
                {"tool": params.name},
            )
        arguments = params.arguments or {}
        if name == "deep_research" and name in ctx.lifespan_context.names():
            result = await research(ctx, arguments)
        else:
            result = await _with_heartbeat(
                ctx, lambda: ctx.lifespan_context.dispatch(name, arguments)
            )
        if name == "web_fetch" and "error" not in result:
            text = _page_text(result)
        else:
            text = json.dumps(result, ensure_ascii=False)
            if hint := result.get("hint"):
                text = f"{text}\n\n{hint}"
        limit = ctx.lifespan_context.client.settings.mcp_max_result_tokens * CHARS_PER_TOKEN
        if len(text) > limit:
            return _cut(name, text, result, limit)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)],
            structured_content=result,
            is_error="error" in result,
        )

    return Server(
        "netsift",
        version=__version__,
        instructions=INSTRUCTIONS,
        lifespan=lifespan,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


class _DeferredToolbox(Toolbox):
    """The server's Toolbox, whose Client is built at the first tool call, not at start.

    A host starts an MCP server per session and lists its tools at once; the Client (HTTP
    layer, stores, the job runtime) is only needed to run one. `initialize` and
    `tools/list` answer from the settings alone. The Client lives in a task of the
    lifespan's task group, so it is entered and closed in one task as it requires.
    """

    def __init__(self, settings: Settings, group: TaskGroup) -> None:
        # Toolbox.__init__ is not called: `client` is set when the Client is entered.
        self.settings = settings
        self._group = group
        self._ready: anyio.Event | None = None
        self._failure: BaseException | None = None
        self._done = anyio.Event()

    def definitions(self, format: Any = "openai") -> list[dict[str, Any]]:
        return definitions(format, settings=self.settings)

    def names(self) -> list[str]:
        return [tool.name for tool in enabled_tools(self.settings)]

    async def start(self) -> None:
        """Build and enter the Client once (the first caller starts it, the rest wait)."""
        if self._ready is None:
            self._ready = anyio.Event()
            self._group.start_soon(self._hold)
        await self._ready.wait()
        if self._failure is not None:
            if isinstance(self._failure, NetsiftError):
                raise self._failure
            raise NetsiftError(f"the server could not start ({type(self._failure).__name__})")

    async def _hold(self) -> None:
        from .client import Client

        assert self._ready is not None
        try:
            async with Client(self.settings) as client:
                self.client = client
                self._ready.set()
                await self._done.wait()
        except Exception as exc:
            self._failure = exc
        finally:
            self._ready.set()

    async def stop(self) -> None:
        self._done.set()


def _describe(event: Event) -> str:
    data = event.data
    detail = data.get("query") or data.get("url") or data.get("stopped_because") or ""
    if isinstance(detail, list):  # a crawl's reasons
        detail = ", ".join(str(reason) for reason in detail)
    return f"{event.type} {detail}".strip()


def _tool_fields(definition: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": definition["name"],
        "description": definition["description"],
        "input_schema": definition["inputSchema"],
        "annotations": ANNOTATIONS.get(definition["name"]),
    }


def _error_result(error: NetsiftError) -> types.CallToolResult:
    text = f"<error>{error.message} ({error.code})</error>"
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)],
        structured_content={"error": error.to_dict()},
        is_error=True,
    )


def _cut(name: str, text: str, result: dict[str, Any], limit: int) -> types.CallToolResult:
    """A result over the host's budget (NETSIFT_MCP_MAX_RESULT_TOKENS): its text cut to fit,
    with how to get the rest; the structured copy is left out, since it would cost as much.
    A page is cut in its content, where web_fetch's `start_index` picks it up again."""
    if name == "web_fetch":
        content = str(result.get("content", ""))
        head = len(_page_text({**result, "content": "", "hint": None}))
        keep = max(0, limit - head - CUT_NOTE_ROOM)
        start = int(result.get("start_index") or 0)
        how = f"call web_fetch again with start_index={start + keep} to read on"
        text = _page_text({**result, "content": content[:keep], "hint": None})
    else:
        how = (
            "ask for less (a smaller limit, count, max_length or max_tokens), or read the "
            "whole result through the HTTP API or the library"
        )
        text = text[: limit - CUT_NOTE_ROOM]
    note = f"\n\n[cut to this host's {limit}-character budget for a tool result; {how}]"
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text + note)],
        is_error="error" in result,
    )


def _page_text(result: dict[str, Any]) -> str:
    """web_fetch's text for a model: the page named once (on its first part), the content,
    then where to continue; the same facts are in the structured result."""
    lines: list[str] = []
    if "title" in result or "metadata" in result:
        facts = {
            "title": result.get("title"),
            "url": result.get("final_url") or result.get("url"),
            "type": result.get("page_type"),
            **result.get("metadata", {}),
        }
        lines.extend(f"{key}: {value}" for key, value in facts.items() if value)
        lines.append("")
    lines.append(result.get("content", ""))
    if hint := result.get("hint"):
        lines.extend(["", hint])
    return "\n".join(lines)


async def _with_heartbeat(ctx: ServerRequestContext[Toolbox], work: Any) -> dict[str, Any]:
    """Run a tool call, telling the client it is alive every few seconds (progress notices).

    Progress only goes up, as MCP requires: each beat is the next tick, "done" the one after."""
    result: dict[str, Any] = {}
    ticks = 0
    async with anyio.create_task_group() as group:

        async def beat() -> None:
            nonlocal ticks
            while True:
                await anyio.sleep(HEARTBEAT_SECONDS)
                ticks += 1
                await ctx.session.report_progress(ticks, None, "working")

        group.start_soon(beat)
        result = await work()
        group.cancel_scope.cancel()
    await ctx.session.report_progress(ticks + 1, ticks + 1, "done")
    return result


async def serve_stdio(settings: Settings | None = None) -> None:
    from mcp.server.stdio import stdio_server
    from mcp.shared._context_streams import create_context_streams
    from mcp.shared.message import SessionMessage

    server = create_server(settings)
    async with stdio_server() as (read_stream, write_stream), anyio.create_task_group() as tasks:
        # The SDK's transport hands a line it cannot read (not JSON, lone surrogates, nesting
        # past its parser's depth) to the server as an exception, which the server only logs:
        # the client waited forever. Each such line is answered here with JSON-RPC's error.
        screened_writer, screened = create_context_streams[SessionMessage | Exception](0)

        async def screen() -> None:
            async with screened_writer:
                async for item in read_stream:
                    if isinstance(item, Exception):
                        await write_stream.send(SessionMessage(unreadable_request(item)))
                    else:
                        await screened_writer.send(item)

        tasks.start_soon(screen)
        await server.run(screened, write_stream, server.create_initialization_options())
        tasks.cancel_scope.cancel()


def unreadable_request(exc: Exception) -> types.JSONRPCError:
    """JSON-RPC's answer to a line that is not a readable message: a parse error (-32700),
    with a null id, as the specification asks when the request's id cannot be read."""
    return types.JSONRPCError(
        jsonrpc="2.0",
        id=None,
        error=types.ErrorData(
            code=types.PARSE_ERROR,
            message=f"the request could not be read as JSON-RPC ({type(exc).__name__})",
        ),
    )


# Where the streamable HTTP transport answers (the SDK's default, said to the user at start).
HTTP_PATH = "/mcp"


def serve_http(
    settings: Settings | None = None,
    *,
    host: str = "127.0.0.1",
    port: int = 8765,
    announce: Callable[[str], None] | None = None,
) -> None:
    """Streamable HTTP on `host` (loopback by default; the SDK checks Host and Origin there).

    The socket is bound and listening before `announce` is told the server's URL (so a client
    that reads it can connect at once; port 0 picks a free port). Every POST body is screened
    first (`mcp_http.ScreenedBodies`): at most NETSIFT_SERVER_MAX_BODY bytes, as on the HTTP
    API, and one readable JSON-RPC message."""
    import socket

    import uvicorn

    from .mcp_http import ScreenedBodies

    settings = settings if settings is not None else Settings()
    max_body = settings.server_max_body
    server = create_server(settings)
    app = server.streamable_http_app(
        streamable_http_path=HTTP_PATH, host=host, max_request_body_size=max_body
    )
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen()
    bound = sock.getsockname()[1]
    if announce is not None:
        shown = f"[{host}]" if ":" in host else host
        announce(f"http://{shown}:{bound}{HTTP_PATH}")
    config = uvicorn.Config(ScreenedBodies(app, max_body=max_body), log_level="warning")
    uvicorn.Server(config).run(sockets=[sock])
