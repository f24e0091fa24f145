"""Every door is documented: each CLI command, HTTP route, WebSocket message type, tool and
Client method.

The doors are read from the code (typer's app, the OpenAPI document, the WebSocket's message
types, the agent tools and MCP's extra `fetch`), never from a list kept here, so a new door
nobody documented fails: in its page (docs/cli.md, docs/http-api.md, docs/agents.md,
docs/python.md), with
its options in that page's table, and in the README's lists. Counts written in words ("all
ten tools") are checked against the code too.
"""

from __future__ import annotations

import inspect
import re
from typing import Any

import pytest
import typer.main

from netsift.cli import app as cli_app
from netsift.client import Client
from netsift.config import Settings
from netsift.operations import CATALOGUE, by_tool
from netsift.server import create_app
from netsift.server.routers import ws
from netsift.tools.schemas import ARGS, TOOL_ALIASES, TOOLS
from tests.paths import REPO

DOCS = REPO / "docs"
README = (REPO / "README.md").read_text()
CLI_MD = (DOCS / "cli.md").read_text()
HTTP_MD = (DOCS / "http-api.md").read_text()
AGENTS_MD = (DOCS / "agents.md").read_text()
PYTHON_MD = (DOCS / "python.md").read_text()
REFERENCE_FETCH = "fetch"  # MCP's copy of the reference fetch server's tool (mcp.py)
NUMBERS = ("zero one two three four five six seven eight nine ten eleven twelve").split()


def commands() -> dict[str, Any]:
    return dict(typer.main.get_command(cli_app).commands)  # type: ignore[attr-defined]


def routes() -> list[str]:
    """`METHOD /path` of every route the OpenAPI document lists."""
    document = create_app(Settings()).openapi()
    return [
        f"{method.upper()} {path}"
        for path, methods in document["paths"].items()
        for method in methods
    ]


def same_path(text: str) -> str:
    """A route with its path parameters unnamed: the docs write `{id}` for `{job_id}`."""
    return re.sub(r"\{[^}]*\}", "{}", text)


def table_rows(page: str) -> dict[str, str]:
    """A Markdown table's rows by their first cell's first code span (`fetch URL` → fetch)."""
    rows = {}
    for line in page.splitlines():
        if line.startswith("| `"):
            first, _, rest = line[3:].partition("`")
            rows[same_path(first.split(" ")[0] if " /" not in first else first)] = rest
    return rows


def code_spans(text: str) -> set[str]:
    """The code spans of `text` outside parentheses (which hold defaults and notes)."""
    return set(re.findall(r"`([^`]+)`", re.sub(r"\([^)]*\)", "", text)))


@pytest.mark.parametrize("name", sorted(commands()))
def test_each_command_is_in_cli_md_with_its_options_and_in_the_readme(name: str) -> None:
    row = table_rows(CLI_MD).get(name)
    assert row is not None, f"docs/cli.md's table has no row for `netsift {name}`"
    options = [p for p in commands()[name].params if p.param_type_name == "option"]
    written = set(re.findall(r"--[a-z][a-z-]*", row))
    for option in options:
        flags = {o for o in [*option.opts, *option.secondary_opts] if o.startswith("--")}
        assert flags & written, f"docs/cli.md: `{name}` lacks {sorted(flags)}"
        written -= flags
    assert not written, f"docs/cli.md: `{name}` has no options {sorted(written)}"
    assert re.search(rf"^netsift {name}\b", README, re.M), f"README's CLI lacks {name}"


@pytest.mark.parametrize("route", routes())
def test_each_route_is_in_http_api_md_and_in_the_readme(route: str) -> None:
    path = route.split(" ")[1]
    documented = {same_path(span) for span in re.findall(r"`([A-Z]+ /[^`]*)`", HTTP_MD)}
    assert same_path(route) in documented, f"docs/http-api.md lacks `{route}`"
    listed = {same_path(span.split(" ")[-1]) for span in re.findall(r"`([A-Z ]*/[^`]*)`", README)}
    assert same_path(path) in listed, f"README's endpoints lack `{path}`"


def _message_types(page: str) -> set[str]:
    """The message types a page lists in its `{"type": "a" | "b", …}` synopsis."""
    found: set[str] = set()
    for union in re.findall(r'\{"type": ((?:"\w+" ?\| ?)*"\w+")', page):
        found |= set(re.findall(r'"(\w+)"', union))
    return found


def test_each_websocket_message_type_is_documented() -> None:
    types = set(ws.MODELS) | set(ws.JOB_MESSAGES)
    assert _message_types(HTTP_MD) == types
    assert _message_types(README) == types


@pytest.mark.parametrize("name", [tool.name for tool in TOOLS])
def test_each_tool_is_in_agents_md_with_its_arguments_and_in_the_readme(name: str) -> None:
    row = table_rows(AGENTS_MD).get(name)
    assert row is not None, f"docs/agents.md's table has no row for `{name}`"
    capability, arguments = (cell.strip() for cell in row.split("|")[1:3])
    assert capability == by_tool()[name].capability
    assert code_spans(arguments) == set(ARGS[name].model_fields), f"{name}'s arguments"
    assert f"`{name}`" in README, f"README's tool list lacks {name}"


def test_the_reference_fetch_tool_is_documented() -> None:
    assert f"`{REFERENCE_FETCH}`" in AGENTS_MD and f"`{REFERENCE_FETCH}`" in README


@pytest.mark.parametrize(
    "op", [op for op in CATALOGUE if op.http and op.params], ids=lambda op: op.name
)
def test_each_operations_route_row_names_its_params(op: Any) -> None:
    """The row of an operation's route lists its params (the catalogue's: the same on every
    door); a row may add HTTP's own (`request_id`) and notes in parentheses."""
    row = table_rows(HTTP_MD).get(same_path(op.http[0]))
    assert row is not None, f"docs/http-api.md's table has no row for `{op.http[0]}`"
    cell = row.split("|")[1]
    written = {word for span in code_spans(cell) for word in re.findall(r"\w+", span)}
    written |= set(re.findall(r"\{(\w+)\}", op.http[0]))  # the path names its parameters
    assert op.fields() <= written, f"{op.http[0]}: {sorted(op.fields() - written)} missing"


def test_counts_in_words_match_the_code() -> None:
    """ "all eight tools" went stale when two tools came; a count in words is checked."""
    counts = {"tools": len(TOOLS), "operations are accepted as aliases": len(TOOL_ALIASES)}
    for text in [README, *(path.read_text() for path in DOCS.glob("*.md"))]:
        page = " ".join(text.split())  # a count may wrap across lines
        for word, noun in re.findall(rf"\b({'|'.join(NUMBERS)}) ({'|'.join(counts)})\b", page):
            assert NUMBERS.index(word) == counts[noun], f"{word} {noun}: there are {counts[noun]}"


@pytest.mark.parametrize(("alias", "tool"), sorted(TOOL_ALIASES.items()))
def test_each_tool_alias_is_documented(alias: str, tool: str) -> None:
    assert f"`{alias}` runs `{tool}`" in " ".join(AGENTS_MD.split())


@pytest.mark.parametrize(
    "method",
    sorted(
        name
        for name, value in vars(Client).items()
        if not name.startswith("_") and inspect.isfunction(value)
    ),
)
def test_each_client_method_is_in_python_md(method: str) -> None:
    assert re.search(rf"`(await )?{method}\(", PYTHON_MD), f"docs/python.md lacks {method}"
