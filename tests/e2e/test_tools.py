"""Agent tools end to end: `dispatch` never raises, and `netsift tools` prints the definitions."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from netsift import tools
from netsift.cli import app as cli
from netsift.client import Client


async def test_dispatch_runs_each_tool(door_settings, offline_web):
    async with Client(door_settings()) as client:
        found = await tools.dispatch("web_search", {"query": "rust async"}, client=client)
        # OpenAI hands arguments over as a JSON string: accepted as is.
        card = await tools.dispatch(
            "page_meta",
            json.dumps({"url": offline_web.url("news.test", "/article")}),
            client=client,
        )
        batch = await tools.dispatch("batch_search", {"queries": ["a b", "c d"]}, client=client)
        page = await tools.dispatch(
            "web_fetch",
            {"url": offline_web.url("files.test", "/long.txt"), "max_length": 500},
            client=client,
        )
    assert found["provider"] == "tavily" and found["results"]
    assert card["site_name"] == "The Coastal Courier"
    assert [item["query"] for item in batch["results"]] == ["a b", "c d"]
    assert page["next_start_index"] == 500 and "start_index=500" in page["hint"]
    assert page["total_length"] > 500 and "json_ld" not in json.dumps(page)  # lean: facts only
    json.dumps([found, card, batch, page])  # every result is JSON as it stands


@pytest.mark.parametrize(
    ("name", "arguments", "code", "words"),
    [
        ("web_teleport", {}, "invalid_input", "unknown tool 'web_teleport'"),
        ("web_search", {"query": ""}, "invalid_input", "query"),
        ("web_search", {"query": "x", "colour": "red"}, "invalid_input", "colour"),
        ("web_search", "{not json", "invalid_input", "not valid JSON"),
        ("web_search", "[1, 2]", "invalid_input", "JSON object"),
        ("web_fetch", {"url": "ftp://x.test/"}, "unsupported_scheme", "http"),
        ("research", {"question": "why is the sky blue"}, "disabled", "switched off"),
        ("deep_research", {"question": "why is the sky"}, "disabled", "deep_research"),
    ],
)
async def test_dispatch_never_raises(door_settings, name, arguments, code, words):
    async with Client(door_settings()) as client:
        result = await tools.dispatch(name, arguments, client=client)
    assert set(result) == {"error"}
    assert result["error"]["code"] == code
    assert words in result["error"]["message"]


async def test_blocked_url_is_an_error_object(door_settings, offline_web):
    async with Client(door_settings(allow_networks=[])) as client:
        result = await tools.dispatch(
            "web_fetch", {"url": offline_web.url("news.test", "/article")}, client=client
        )
    assert result["error"]["code"] == "blocked_address"
    assert offline_web.state.hits("news.test") == 0


class BrokenClient(Client):
    async def search(self, query, **options):
        raise ZeroDivisionError("a bug with a secret: sk-live-123")


async def test_a_crash_is_an_internal_error_object(door_settings):
    async with BrokenClient(door_settings()) as client:
        result = await tools.dispatch("web_search", {"query": "rust"}, client=client)
    assert result["error"]["code"] == "internal"
    assert "sk-live" not in json.dumps(result)


async def test_dispatch_opens_its_own_client(door_settings, offline_web):
    result = await tools.dispatch(
        "page_meta", {"url": offline_web.url("news.test", "/article")}, settings=door_settings()
    )
    assert result["site_name"] == "The Coastal Courier"


@pytest.mark.parametrize("fmt", ["openai", "anthropic", "mcp"])
def test_cli_prints_the_definitions(fmt, monkeypatch, tmp_path):
    monkeypatch.setenv("NETSIFT_DATA_DIR", str(tmp_path))
    result = CliRunner().invoke(cli, ["tools", "--format", fmt])
    assert result.exit_code == 0, result.output
    printed = json.loads(result.output)
    assert printed == tools.definitions(fmt)


def test_cli_prints_the_strict_definitions(monkeypatch, tmp_path):
    monkeypatch.setenv("NETSIFT_DATA_DIR", str(tmp_path))
    result = CliRunner().invoke(cli, ["tools", "--format", "openai", "--strict"])
    assert result.exit_code == 0, result.output
    printed = json.loads(result.output)
    assert printed == tools.definitions("openai", strict=True)
    assert all(tool["function"]["strict"] is True for tool in printed)


def test_cli_follows_the_capabilities(monkeypatch, tmp_path):
    monkeypatch.setenv("NETSIFT_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("NETSIFT_CAPABILITIES", "fetch")
    result = CliRunner().invoke(cli, ["tools", "-f", "anthropic"])
    names = {tool["name"] for tool in json.loads(result.output)}
    assert names == {"web_fetch", "page_meta", "web_map", "web_crawl", "extract_data"}


def test_cli_refuses_an_unknown_format(monkeypatch, tmp_path):
    monkeypatch.setenv("NETSIFT_DATA_DIR", str(tmp_path))
    result = CliRunner().invoke(cli, ["tools", "--format", "gemini"])
    assert result.exit_code == 2
    assert "openai, anthropic, mcp or jsonschema" in result.output
