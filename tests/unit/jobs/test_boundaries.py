"""Where jobs may be reached from: research and crawl declare their kinds apart (neither
imports the other), and the doors (CLI, HTTP, MCP, tools) reach jobs through Client's public
methods only, never its private attributes nor the runtime and stores behind it."""

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


def _imports(path: Path) -> set[str]:
    """The netsift modules a file imports, as dotted names relative to the package."""
    package = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts[:-1])
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = package.split(".")
            if node.level:
                base = base[: len(base) - node.level + 1]
                name = ".".join([*base, node.module] if node.module else base)
            else:
                name = node.module or ""
            found.add(name)
            found.update(f"{name}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


@pytest.mark.parametrize(("one", "other"), [("crawl", "research"), ("research", "crawl")])
def test_crawl_and_research_do_not_import_each_other(one: str, other: str) -> None:
    for path in sorted((PACKAGE / one).rglob("*.py")):
        reached = {name for name in _imports(path) if name.startswith(f"netsift.{other}")}
        assert not reached, f"{path.relative_to(PACKAGE)} imports {sorted(reached)}"


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
