"""The doors use Client's methods only: never its private attributes, nor the object graph
its properties expose (the HTTP client, the fetcher, the search service, the stores…).

A door (the CLI, the server and its compatible APIs, MCP, the agent tools) translates to and
from one `Client` call; when it reaches past the method into what the Client holds, the
validation, the capability check and the usage counting the method does are skipped, and a
change inside the library breaks a door. Checked without running anything: each door module
is parsed, and every attribute read on an expression that holds a Client must be one of the
door surface (DOOR_SURFACE): Client's public methods, its `settings`, and `billing`, which a
host configures (quota, cap, metrics).

An expression holds a Client when it is
- a name bound to one in the module: a parameter annotated `Client`, `async with Client(…) as
  c` (or `jobless_client(…)`), `c = Client(…)` or `c = ….require_client()`; or a name `client`;
- an attribute called `client` (`self.client`, `toolbox.client`, `state.client`);
- a call of `require_client()`.
`getattr(<client>, "name")` counts as reading `name`. As a backstop for a Client reached under
another name, reading any of Client's private attribute names (`._http`, `._runner`…) on any
object in a door fails too.
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

from netsift.client import Client
from netsift.config import Settings
from tests.paths import REPO

SRC = REPO / "src" / "netsift"
DOORS = sorted(
    [
        *(SRC / "cli").glob("*.py"),
        *(SRC / "server").rglob("*.py"),
        *(SRC / "tools").glob("*.py"),
        SRC / "mcp.py",
        SRC / "mcp_http.py",
    ]
)
# What a host sets on its Client rather than calls: how usage is limited and recorded.
HOST_ATTRIBUTES = frozenset({"settings", "billing"})
DOOR_SURFACE = HOST_ATTRIBUTES | {
    name
    for name, value in vars(Client).items()
    if not name.startswith("_") and inspect.isfunction(value)
}
# The job doors, which the job runtime's rebuild (issue 24) converts with the runtime itself:
# each (door, attribute) pair it still reads. An entry no longer read fails the test, so the
# list only shrinks.
JOB_DOORS_PENDING: frozenset[tuple[str, str]] = frozenset()
CLIENT_FACTORIES = frozenset({"Client", "jobless_client", "require_client"})
CONNECTIONS = frozenset({"request", "connection", "websocket"})  # Starlette's, by their names


def _private_names() -> frozenset[str]:
    """Client's private attributes: those its class defines and an instance sets."""
    instance = Client(Settings())
    names = {*vars(Client), *vars(instance)}
    return frozenset(n for n in names if n.startswith("_") and not n.startswith("__"))


def _called(node: ast.expr) -> str | None:
    """The name a call's function goes by (`Client`, `state.require_client` → its last part)."""
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    return func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)


def _annotated_client(annotation: ast.expr | None) -> bool:
    if annotation is None:
        return False
    text = ast.unparse(annotation).strip("'\"")
    return text == "Client" or text.endswith((".Client", "Client | None"))


def _client_names(tree: ast.Module) -> set[str]:
    """The names bound to a Client anywhere in the module."""
    names = {"client"}
    for node in ast.walk(tree):
        if isinstance(node, ast.arg) and _annotated_client(node.annotation):
            names.add(node.arg)
        elif isinstance(node, ast.withitem) and _called(node.context_expr) in CLIENT_FACTORIES:
            if isinstance(node.optional_vars, ast.Name):
                names.add(node.optional_vars.id)
        elif isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if _called(node.value) in CLIENT_FACTORIES or (
                isinstance(node, ast.AnnAssign) and _annotated_client(node.annotation)
            ):
                names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


def _holds_client(node: ast.expr, names: set[str]) -> bool:
    if isinstance(node, ast.Name):
        return node.id in names
    if isinstance(node, ast.Attribute):  # but Starlette's `request.client`: the peer's address
        peer = isinstance(node.value, ast.Name) and node.value.id in CONNECTIONS
        return node.attr == "client" and not peer
    return _called(node) == "require_client"


def reads(path: Path) -> list[tuple[int, str, bool]]:
    """(line, attribute, on a Client?) for each attribute read in `path` worth checking."""
    tree = ast.parse(path.read_text())
    names = _client_names(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            found.append((node.lineno, node.attr, _holds_client(node.value, names)))
        elif (
            isinstance(node, ast.Call)
            and _called(node) == "getattr"
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
        ):
            found.append((node.lineno, node.args[1].value, _holds_client(node.args[0], names)))
    return found


def violations() -> dict[tuple[str, str], list[int]]:
    """(door, attribute) → the lines where a door reads past Client's methods."""
    private = _private_names()
    out: dict[tuple[str, str], list[int]] = {}
    for path in DOORS:
        door = path.relative_to(SRC).as_posix()
        for line, name, on_client in reads(path):
            if (on_client and name not in DOOR_SURFACE) or name in private:
                out.setdefault((door, name), []).append(line)
    return out


def test_the_doors_use_clients_methods_only() -> None:
    found = violations()
    new = [
        f"{door}:{lines[0]} .{name}"
        for (door, name), lines in sorted(found.items())
        if (door, name) not in JOB_DOORS_PENDING
    ]
    assert not new, "a door reads past Client's methods; give Client a method for it: " + ", ".join(
        new
    )
    assert JOB_DOORS_PENDING <= set(found), "converted: drop from JOB_DOORS_PENDING " + str(
        sorted(JOB_DOORS_PENDING - set(found))
    )


@pytest.mark.parametrize(
    ("source", "bad"),
    [
        ("async def f(client):\n    return client.search_service\n", "search_service"),
        ("def f(state):\n    return state.require_client().sleeper\n", "sleeper"),
        ("def f(box):\n    return box.client._runner\n", "_runner"),
        ("async def f(s):\n    async with Client(s) as c:\n        c.jobs\n", "jobs"),
        ("def f(x):\n    return x._http\n", "_http"),  # a private name on any receiver
        ("def f(client):\n    return getattr(client, 'fetcher')\n", "fetcher"),
        ("def f(c: Client):\n    return c.ledger\n", "ledger"),
    ],
)
def test_the_check_sees_each_way_of_reaching_in(tmp_path: Path, source: str, bad: str) -> None:
    door = tmp_path / "door.py"
    door.write_text(source)
    private = _private_names()
    flagged = {
        name for _, name, on_client in reads(door) if (on_client and name not in DOOR_SURFACE)
    }
    flagged |= {name for _, name, _ in reads(door) if name in private}
    assert bad in flagged


def test_a_door_calling_methods_passes(tmp_path: Path) -> None:
    door = tmp_path / "door.py"
    door.write_text(
        "async def f(state, params):\n"
        "    client = state.require_client()\n"
        "    if client.settings.enabled('fetch'):\n"
        "        return await client.fetch(params.url)\n"
        "    return client.provider_status()\n"
    )
    assert not [name for _, name, on in reads(door) if on and name not in DOOR_SURFACE]
