"""The package's import graph: no circles, and the layers' one direction kept.

Edges are the imports a module names, at any depth (a factory's import inside a function is
a circle all the same, only a later one); imports under `if TYPE_CHECKING:` are left out, as
they never run. Importing `a.b.c` runs the packages `a` and `a.b` first, but that is not an
edge of the module's own: a package's `__init__` may open its children lazily (a factory
choosing a backend) while the children import their siblings, never the package.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import netsift

ROOT = Path(netsift.__file__).parent
PACKAGE = "netsift"


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES: dict[str, Path] = {_module_name(p): p for p in ROOT.rglob("*.py")}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement in `tree`, skipping the bodies of `if TYPE_CHECKING:`."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for other in node.orelse:
                yield from _imports(other)
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        yield from _imports(node)


def _targets(module: str, node: ast.Import | ast.ImportFrom) -> Iterator[str]:
    """The netsift modules one import statement loads by name."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name.split(".")[0] == PACKAGE:
                yield alias.name
        return
    base = node.module or ""
    if node.level:
        package = module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]
        for _ in range(node.level - 1):
            package = package.rpartition(".")[0]
        base = f"{package}.{base}" if base else package
    if base.split(".")[0] != PACKAGE:
        return
    for alias in node.names:
        child = f"{base}.{alias.name}"
        yield child if child in MODULES else base


def graph() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {}
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text(), str(path))
        edges[module] = {
            target
            for node in _imports(tree)
            for target in _targets(module, node)
            if target in MODULES and target != module
        }
    return edges


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_the_package_has_no_import_circles() -> None:
    assert circles(graph()) == []


def test_crawl_and_research_never_import_each_other() -> None:
    edges = graph()
    crossing = [
        (source, target)
        for source, targets in edges.items()
        for target in targets
        for a, b in (("crawl", "research"), ("research", "crawl"))
        if source.startswith(f"{PACKAGE}.{a}") and target.startswith(f"{PACKAGE}.{b}")
    ]
    assert crossing == []


def test_the_store_layer_is_gone() -> None:
    assert not (ROOT / "store").exists()
    assert not [m for m in MODULES if m.startswith(f"{PACKAGE}.store")]


def test_the_checker_sees_a_circle_and_a_lazy_import() -> None:
    """The graph is real: a lazy import inside a function is an edge, a TYPE_CHECKING one is
    not, and a two-module loop is reported."""
    tree = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from .client import Client\n"
        "def f():\n    from .errors import InvalidInput\n"
    )
    targets = {t for node in _imports(tree) for t in _targets(f"{PACKAGE}.api", node)}
    assert targets == {f"{PACKAGE}.errors"}
    assert circles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [["a", "b"]]
