"""Where jobs may be reached from: the doors (CLI, HTTP, MCP, tools) reach jobs through
Client's public methods only, never its private attributes nor the runtime and stores behind
it. (That research and crawl never import each other is tests/unit/test_import_graph.py's.)"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[3] / "src" / "netsift"
DOORS = sorted(
    [
        *(PACKAGE / "cli").glob("*.py"),
        *(PACKAGE / "server").rglob("*.py"),
        *(PACKAGE / "tools").glob("*.py"),
        PACKAGE / "mcp.py",
        PACKAGE / "mcp_http.py",
    ]
)
# What a Client holds behind its job methods: a door that used them would skip the methods'
# checks (the job's kind, the capability) and tie itself to how jobs are stored.
BEHIND_THE_METHODS = {"jobs", "job_store", "frontier"}


def _is_client(node: ast.expr) -> bool:
    """`client`, `own` (a door's own Client) or `<anything>.client`."""
    if isinstance(node, ast.Name):
        return node.id in {"client", "own"}
    return isinstance(node, ast.Attribute) and node.attr == "client"


@pytest.mark.parametrize("path", DOORS, ids=lambda path: str(path.relative_to(PACKAGE)))
def test_a_door_uses_only_clients_public_job_methods(path: Path) -> None:
    reached = [
        f"line {node.lineno}: .{node.attr}"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Attribute)
        and _is_client(node.value)
        and (node.attr.startswith("_") or node.attr in BEHIND_THE_METHODS)
    ]
    assert reached == []
