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
    names = {
        t["name"]
        for t in definitions("mcp", settings=Settings(capabilities="search", data_dir=tmp_path))
    }
    assert names == {"web_search", "batch_search", "dedupe_rank"}


def test_unknown_format_is_invalid_input():
    from netsift.errors import InvalidInput

    with pytest.raises(InvalidInput):
        definitions("gemini")  # type: ignore[arg-type]


def test_schemas_come_from_the_argument_models():
    from netsift.tools.schemas import TOOLS, input_schema

    by_name = {t["name"]: t["input_schema"] for t in definitions("anthropic")}
    for tool in TOOLS:
        assert by_name[tool.name] == input_schema(tool.args)
        assert set(by_name[tool.name]["properties"]) == set(tool.args.model_fields)
    assert by_name["web_search"]["properties"]["count"]["maximum"] == 50
    assert by_name["batch_search"]["properties"]["queries"]["maxItems"] == 20
