"""deep_research and research_status over MCP (the official SDK's in-process client)."""

from __future__ import annotations

import json
from typing import Any

from mcp import Client as MCPClient

from netsift.client import Client
from netsift.mcp import create_server
from tests.integration.research.fixtures import *  # noqa: F403
from tests.integration.research.web import QUESTION


async def test_deep_research_reports_progress_and_returns_the_cited_report(
    research_settings, research_web, llm
):
    seen: list[tuple[float, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, message))

    async with Client(research_settings()) as netsift:
        async with MCPClient(create_server(client=netsift)) as mcp:
            tools = {tool.name for tool in (await mcp.list_tools()).tools}
            assert {"deep_research", "research_status", "flag_discovery", "sleep"} <= tools
            result = await mcp.call_tool(
                "deep_research",
                {"question": QUESTION, "depth": "quick"},
                progress_callback=on_progress,
            )
            report: dict[str, Any] = json.loads(result.content[0].text)  # type: ignore[union-attr]
            status = await mcp.call_tool(
                "research_status", {"job_id": report["job_id"], "since": 2}
            )
            missing = await mcp.call_tool("research_status", {"job_id": "nope"})
    assert not result.is_error and report["citations"] and report["mode"] == "llm"
    messages = [message or "" for _, message in seen]
    assert messages[0].startswith("started") and messages[-1].startswith("done")
    assert any(m.startswith("search_done") for m in messages)
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)
    body = json.loads(status.content[0].text)  # type: ignore[union-attr]
    assert body["job"]["status"] == "done" and body["events"][0]["seq"] == 3
    assert missing.is_error and json.loads(missing.content[0].text)["error"]["code"] == "not_found"  # type: ignore[union-attr]
