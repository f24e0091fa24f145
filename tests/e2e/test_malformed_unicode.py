"""Malformed Unicode in any text field — a lone UTF-16 surrogate, which JSON can spell
(`"\\ud800"`) but UTF-8 cannot carry — is the caller's error: `invalid_input`, never a 500 from
whichever layer first tried to encode it (the model call, the cache key, a log line)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from netsift.errors import InvalidInput
from netsift.params import SearchParams, validated
from netsift.server import create_app
from tests.integration.research.fixtures import *  # noqa: F403

LONE = "\ud800"  # a high surrogate with no low one after it

ASK = [{"role": "user", "content": f"When was Webb launched? {LONE}"}]


def _raw(body: dict[str, Any]) -> bytes:
    """The body as a JSON client sends it: surrogates escaped (`\\ud800`), as json.dumps does."""
    import json

    return json.dumps(body).encode("ascii")


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/v1/chat/completions", {"messages": ASK}),
        (
            "/v1/chat/completions",
            {"messages": [{"role": "user", "content": [{"type": "text", "text": LONE}]}]},
        ),
        ("/v1/search", {"query": f"rust {LONE} async"}),
        ("/v1/search/batch", {"queries": ["rust", f"{LONE}tokio"]}),
        ("/v1/fetch", {"url": f"http://news.test/{LONE}"}),
        ("/v1/research", {"question": f"When was Webb launched {LONE}?"}),
    ],
)
async def test_a_lone_surrogate_is_invalid_input(
    research_settings, llm, path: str, body: dict[str, Any]
):
    transport = httpx.ASGITransport(app=create_app(research_settings()))
    async with httpx.AsyncClient(transport=transport, base_url="http://api.test") as http:
        response = await http.post(
            path, content=_raw(body), headers={"content-type": "application/json"}
        )
    assert response.status_code in (400, 422), response.text
    error = response.json()["error"]
    assert error["code"] == "invalid_input" and "unicode" in error["message"].lower()
    assert llm.state.requests == []  # refused before the model was called


def test_the_params_models_refuse_it_at_every_door() -> None:
    with pytest.raises(InvalidInput, match=r"(?i)query.*unicode"):
        validated(SearchParams, query=f"rust {LONE}")
    assert validated(SearchParams, query="rust ✓ 𝄞 async").query == "rust ✓ 𝄞 async"


async def test_an_agent_tool_call_answers_invalid_input() -> None:
    from netsift import tools

    answer = await tools.dispatch("web_search", {"query": f"rust {LONE}"})
    assert answer["error"]["code"] == "invalid_input", answer
