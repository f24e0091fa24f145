"""The MCP server through the official SDK's client: in process, and `netsift mcp` over stdio."""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import pytest
from mcp import Client as MCPClient
from mcp import MCPError, StdioServerParameters
from mcp.types import INVALID_PARAMS, TextContent

from netsift.client import Client
from netsift.mcp import create_server

SEARCH_TOOLS = {
    "web_search",
    "web_fetch",
    "page_meta",
    "web_map",
    "web_context",
    "web_crawl",
    "batch_search",
    "dedupe_rank",  # folds a result list: under search, with no network of its own
    "extract_data",
}


def text_of(result: Any) -> str:
    """The text of a tool result's first block."""
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


def body(result: Any) -> Any:
    """The JSON object of a tool result (its first text block, before any hint)."""
    text = result.content[0].text
    return json.loads(text.split("\n\n", 1)[0])


async def test_tools_are_listed_with_their_schemas(door_settings):
    async with Client(door_settings()) as netsift, MCPClient(create_server(client=netsift)) as mcp:
        tools = {tool.name: tool for tool in (await mcp.list_tools()).tools}
    # research is switched off: its tools are not offered; `fetch` is the reference server's
    assert set(tools) == SEARCH_TOOLS | {"fetch"}
    assert tools["web_fetch"].annotations and tools["web_fetch"].annotations.read_only_hint
    assert tools["fetch"].annotations and tools["fetch"].annotations.open_world_hint
    assert set(tools["fetch"].input_schema["properties"]) == {
        "url",
        "max_length",
        "start_index",
        "raw",
    }
    fetch = tools["web_fetch"].input_schema
    assert fetch["required"] == ["url"]
    assert fetch["properties"]["max_length"]["default"] == 5000
    assert tools["web_search"].description


async def test_each_tool_answers(door_settings, offline_web):
    async with Client(door_settings()) as netsift, MCPClient(create_server(client=netsift)) as mcp:
        found = await mcp.call_tool("web_search", {"query": "rust async runtime", "count": 3})
        article = await mcp.call_tool(
            "web_fetch", {"url": offline_web.url("news.test", "/article")}
        )
        card = await mcp.call_tool("page_meta", {"url": offline_web.url("news.test", "/article")})
        batch = await mcp.call_tool("batch_search", {"queries": ["rust async", "python web"]})
    assert not found.is_error
    assert found.structured_content["provider"] == "tavily"
    assert 0 < len(body(found)["results"]) <= 3
    assert not article.is_error
    assert article.structured_content["title"] == "Harbour town switches its ferries to batteries"
    text = text_of(article)
    assert text.startswith("title: Harbour town switches its ferries to batteries\n")
    assert body(card)["site_name"] == "The Coastal Courier"
    assert [item["query"] for item in body(batch)["results"]] == ["rust async", "python web"]


async def test_truncated_fetch_hints_and_continues_from_the_cache(door_settings, offline_web):
    url = offline_web.url("files.test", "/long.txt")
    async with Client(door_settings()) as netsift, MCPClient(create_server(client=netsift)) as mcp:
        first = await mcp.call_tool("web_fetch", {"url": url, "max_length": 1000})
        page = first.structured_content
        assert page["next_start_index"] == 1000 and page["total_length"] > 1000
        block = first.content[0]
        assert isinstance(block, TextContent)
        assert "start_index=1000" in block.text.rsplit("\n\n", 1)[1]
        second = await mcp.call_tool(
            "web_fetch", {"url": url, "max_length": 1000, "start_index": 1000}
        )
    assert second.structured_content["start_index"] == 1000
    assert second.structured_content["content"] != page["content"]
    # The page's facts come once, with the first part, not on every continuation.
    assert "total_length" not in second.structured_content
    assert len(text_of(second)) < len(text_of(first)) + 200
    assert offline_web.state.hits("files.test", "/long.txt") == 1  # not downloaded again


async def test_errors_come_back_as_tool_results(door_settings, offline_web):
    async with Client(door_settings(allow_networks=[])) as netsift:
        async with MCPClient(create_server(client=netsift)) as mcp:
            blocked = await mcp.call_tool(
                "web_fetch", {"url": offline_web.url("news.test", "/article")}
            )
            bad = await mcp.call_tool("web_search", {"query": "rust", "count": 500})
            with pytest.raises(MCPError) as unknown:  # a protocol error, not a tool result
                await mcp.call_tool("web_teleport", {"url": "http://x.test/"})
            research = await mcp.call_tool("deep_research", {"question": "why is the sky blue"})
            as_string = await mcp.call_tool(
                "web_fetch", {"url": offline_web.url("news.test", "/article"), "max_length": "500"}
            )
    assert blocked.is_error and body(blocked)["error"]["code"] == "blocked_address"
    assert set(body(blocked)["error"]) == {"code", "message", "retryable", "details"}
    assert bad.is_error and body(bad)["error"]["code"] == "invalid_input"
    assert "count" in body(bad)["error"]["message"]
    assert unknown.value.code == INVALID_PARAMS and "web_teleport" in unknown.value.message
    assert "web_search" in unknown.value.message  # names what there is, by MCP's names
    assert research.is_error  # switched off on this host
    assert body(research)["error"]["code"] == "disabled"
    assert as_string.is_error and body(as_string)["error"]["code"] == "invalid_input"
    assert "max_length" in body(as_string)["error"]["message"]


async def test_long_calls_send_progress(door_settings, sims):
    sims["tavily"].latency = 2.6
    seen: list[tuple[float, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, message))

    async with Client(door_settings()) as netsift, MCPClient(create_server(client=netsift)) as mcp:
        result = await mcp.call_tool(
            "web_search", {"query": "rust async runtime"}, progress_callback=on_progress
        )
    assert not result.is_error
    messages = [message for _, message in seen]
    assert "working" in messages and messages[-1] == "done"
    progress = [value for value, _ in seen]
    assert progress == sorted(set(progress)), progress  # strictly increasing, "done" included


@pytest.mark.slow
async def test_stdio_server_as_a_subprocess(sims, offline_web, tmp_path):
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("NETSIFT_")},
        **sims.env(),
        "NETSIFT_RESOLVE": ",".join(sims.pins + offline_web.pins),
        "NETSIFT_PROVIDERS": "tavily",
        "NETSIFT_CAPABILITIES": "search,fetch",
        "NETSIFT_DATA_DIR": str(tmp_path / "data"),
        "NETSIFT_CACHE_URL": "memory://",
    }
    server = StdioServerParameters(
        command=sys.executable, args=["-m", "netsift", "mcp"], env=env, cwd=str(tmp_path)
    )
    async with MCPClient(server) as mcp:
        tools = {tool.name for tool in (await mcp.list_tools()).tools}
        found = await mcp.call_tool("web_search", {"query": "rust async runtime"})
        page = await mcp.call_tool("web_fetch", {"url": offline_web.url("news.test", "/article")})
        blocked = await mcp.call_tool("web_fetch", {"url": "http://169.254.169.254/latest/"})
    assert tools == SEARCH_TOOLS | {"fetch"}
    assert body(found)["provider"] == "tavily"
    assert page.structured_content["title"] == "Harbour town switches its ferries to batteries"
    assert blocked.is_error and body(blocked)["error"]["code"] == "blocked_address"


async def test_deep_research_argument_errors_name_the_field(door_settings):
    settings = door_settings(capabilities=["search", "fetch", "research"])
    async with Client(settings) as netsift, MCPClient(create_server(client=netsift)) as mcp:
        short = await mcp.call_tool("deep_research", {"question": "hi"})
        typed = await mcp.call_tool("deep_research", {"question": "why is it", "depth": 3})
        alias = await mcp.call_tool("research", {"question": "hi"})  # the library's name
    assert short.is_error and body(short)["error"]["message"].startswith("bad arguments: question")
    assert typed.is_error and "depth" in body(typed)["error"]["message"]
    assert alias.is_error and "question" in body(alias)["error"]["message"]


async def test_fetch_answers_as_the_reference_server_does(door_settings, offline_web):
    """`fetch` with the reference MCP fetch server's arguments and texts, so a host that ran
    mcp-server-fetch switches by changing the command."""
    url = offline_web.url("files.test", "/long.txt")
    async with Client(door_settings()) as netsift, MCPClient(create_server(client=netsift)) as mcp:
        first = await mcp.call_tool("fetch", {"url": url, "max_length": 1000})
        rest = await mcp.call_tool("fetch", {"url": url, "max_length": 10**6, "start_index": 1000})
        past = await mcp.call_tool("fetch", {"url": url, "start_index": 10**7})
        blocked = await mcp.call_tool("fetch", {"url": "http://169.254.169.254/latest/"})
    text = text_of(first)
    assert text.startswith(f"Contents of {url}:\n") and not first.is_error
    assert text.endswith(
        "<error>Content truncated. Call the fetch tool with a start_index of 1000 to get "
        "more content.</error>"
    )
    assert len(text) < 1000 + 200  # compact: no metadata block, no JSON
    assert "Content truncated" not in text_of(rest)
    assert text_of(past) == f"Contents of {url}:\n<error>No more content available.</error>"
    assert blocked.is_error and "169.254.169.254" in text_of(blocked)


def test_stdio_answers_every_unreadable_request_and_goes_on(tmp_path):
    """Lines the transport cannot read (lone surrogates, 5000-deep arrays, not JSON) each get
    JSON-RPC's parse error; before, they got no reply at all and the client waited forever."""
    import select
    import subprocess
    import time

    env = {**os.environ, "NETSIFT_DATA_DIR": str(tmp_path), "NETSIFT_CAPABILITIES": "fetch"}
    cli = [sys.executable, "-m", "netsift", "mcp"]
    server = subprocess.Popen(cli, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
    assert server.stdin is not None and server.stdout is not None
    hello = {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    }
    deep = "[" * 5000 + "]" * 5000
    lines = [
        json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello}),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"web_fetch",'
        '"arguments":{"url":"\\ud800"}}}',
        '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"web_fetch",'
        f'"arguments":{{"url":{deep}}}}}}}',
        "{not json",
        json.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}),
    ]
    server.stdin.write("\n".join(lines).encode() + b"\n")
    server.stdin.flush()
    replies: list[dict[str, Any]] = []
    deadline = time.monotonic() + 30
    try:
        while len(replies) < 5 and time.monotonic() < deadline:
            if select.select([server.stdout], [], [], 0.5)[0]:
                replies.append(json.loads(server.stdout.readline()))
    finally:
        server.kill()
        server.wait()
    errors = [reply for reply in replies if "error" in reply]
    assert [error["error"]["code"] for error in errors] == [-32700, -32700, -32700]
    assert all(error["id"] is None for error in errors)
    assert any(reply.get("id") == 3 and "tools" in reply["result"] for reply in replies)


async def test_fetch_raw_is_the_pages_source_in_parts(door_settings, offline_web):
    """`raw=true` hands over the page as served (the reference server's raw), not its main
    content: the navigation and the <head> are there, and it continues like any content."""
    url = offline_web.url("news.test", "/article")
    async with Client(door_settings()) as netsift, MCPClient(create_server(client=netsift)) as mcp:
        first = await mcp.call_tool("fetch", {"url": url, "raw": True, "max_length": 300})
        rest = await mcp.call_tool("fetch", {"url": url, "raw": True, "start_index": 300})
        past = await mcp.call_tool("fetch", {"url": url, "raw": True, "start_index": 10**7})
        whole = await netsift.fetch(url, keep_source=True)
    assert not first.is_error and "start_index of 300" in text_of(first)
    source = whole.source or ""
    assert "<head" in source.lower() and source[:300] in text_of(first)
    assert source[300:5300] in text_of(rest)  # the default max_length, 5000
    assert "No more content available" in text_of(past)


async def test_a_result_over_the_hosts_budget_is_cut_and_says_how_to_go_on(
    door_settings, offline_web
):
    url = offline_web.url("files.test", "/long.txt")
    settings = door_settings(mcp_max_result_tokens=1000)  # 4,000 characters
    async with Client(settings) as netsift, MCPClient(create_server(client=netsift)) as mcp:
        whole = (await netsift.fetch(url, max_length=100_000)).content
        assert len(whole) > 4000
        first = await mcp.call_tool("web_fetch", {"url": url, "max_length": 100_000})
        text = text_of(first)
        assert len(text) <= 4000 and first.structured_content is None
        note = text.rsplit("\n\n", 1)[1]
        start = int(note.split("start_index=")[1].split()[0])
        assert 0 < start < 4000
        content = text.rsplit("\n\n", 1)[0]
        assert content.endswith(whole[:start][-200:])  # the content, up to where to go on
        second = await mcp.call_tool(
            "web_fetch", {"url": url, "max_length": 1000, "start_index": start}
        )
        assert second.structured_content["content"] == whole[start : start + 1000]
        listed = await mcp.call_tool(
            "batch_search", {"queries": [f"rust async {n}" for n in range(8)], "count": 10}
        )
    small = text_of(listed)
    assert len(small) <= 4000 and "ask for less" in small


async def test_a_result_under_the_budget_is_whole(door_settings, offline_web):
    url = offline_web.url("files.test", "/long.txt")
    async with Client(door_settings()) as netsift, MCPClient(create_server(client=netsift)) as mcp:
        page = await mcp.call_tool("web_fetch", {"url": url, "max_length": 5000})
    assert page.structured_content is not None and "[cut" not in text_of(page)
