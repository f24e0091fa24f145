import pytest

from netsift import Settings
from netsift.tools import definitions


@pytest.mark.parametrize("fmt", ["openai", "anthropic", "mcp"])
def test_definitions_envelopes(fmt):
    tools = definitions(fmt)
    names = set()
    for tool in tools:
        if fmt == "openai":
            assert tool["type"] == "function"
            tool = tool["function"]
            schema = tool["parameters"]
        elif fmt == "anthropic":
            schema = tool["input_schema"]
        else:
            schema = tool["inputSchema"]
        names.add(tool["name"])
        assert tool["description"]
        assert schema["type"] == "object" and schema["additionalProperties"] is False
        assert "title" not in schema
    assert {"web_search", "web_fetch", "page_meta", "batch_search"} <= names


def test_web_fetch_schema_defaults_for_agents():
    fetch = next(t for t in definitions("anthropic") if t["name"] == "web_fetch")
    props = fetch["input_schema"]["properties"]
    assert props["max_length"]["default"] == 5000
    assert props["start_index"]["default"] == 0
    assert fetch["input_schema"]["required"] == ["url"]


def test_disabled_capability_hides_its_tools(tmp_path):
    names = {t["name"] for t in definitions("mcp", settings=Settings(capabilities="search", data_dir=tmp_path))}
    assert names == {"web_search", "batch_search"}
