"""Call one tool of `netsift mcp` the way an MCP host does: `python -m tests.offline_web.mcp_call`.

    python -m tests.offline_web.mcp_call web_search '{"query": "rust async runtime"}'

The official SDK's stdio client starts `netsift mcp` (with this shell's environment, so the
offline tour's settings reach it), initializes the session, calls the tool and prints its text;
the exit status is 1 when the tool answered an error. A pipe of JSON-RPC lines into `netsift
mcp` is no substitute: the server stops at end of input, before a slow call has answered.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys

from mcp import Client as MCPClient
from mcp import StdioServerParameters


async def call(tool: str, arguments: dict[str, object]) -> int:
    netsift = shutil.which("netsift")
    command, args = (netsift, ["mcp"]) if netsift else (sys.executable, ["-m", "netsift", "mcp"])
    server = StdioServerParameters(command=command, args=args, env=dict(os.environ))
    async with MCPClient(server) as mcp:
        result = await mcp.call_tool(tool, arguments)
    for block in result.content:
        print(getattr(block, "text", block))
    return 1 if result.is_error else 0


def main() -> int:
    if len(sys.argv) != 3:
        print("usage: python -m tests.offline_web.mcp_call TOOL JSON-ARGUMENTS", file=sys.stderr)
        return 2
    return asyncio.run(call(sys.argv[1], json.loads(sys.argv[2])))


if __name__ == "__main__":
    sys.exit(main())
