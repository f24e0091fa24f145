"""LLM access through the real openai SDK against the scripted OpenAI-compatible server."""

from __future__ import annotations

import time

import pytest

from netsift.errors import LLMError
from netsift.research.llm import LLM
from netsift.research.planner import PLAN_SCHEMA, plan_queries

QUESTION = "What caused the 2008 financial crisis and how did regulators respond?"


@pytest.fixture
def make_llm(make_settings, llm):
    made: list[LLM] = []

    def factory(**overrides) -> LLM:
        overrides.setdefault("llm_model", "scripted-test-model")
        overrides.setdefault("openai_base_url", llm.base_url)
        model = LLM(make_settings(**overrides))
        made.append(model)
        return model

    yield factory


def _formats(llm) -> list[str | None]:
    return [(body.get("response_format") or {}).get("type") for body in llm.state.requests]


async def test_plan_uses_json_schema_and_counts_tokens_from_usage(make_llm, llm):
    model = make_llm()
    queries, tokens = await plan_queries(QUESTION, model, breadth=4)
    assert len(queries) == 4 and queries[0] == QUESTION
    assert _formats(llm) == ["json_schema"]
    sent = llm.state.requests[0]["response_format"]["json_schema"]
    assert sent["schema"] == PLAN_SCHEMA and sent["name"] == "plan"
    assert tokens > 0 and model.tokens_used == tokens
    await model.aclose()


@pytest.mark.parametrize(
    ("mode", "formats"),
    [
        ("no_schema", ["json_schema", "json_object", "json_object"]),
        # A 500 is retried by the SDK before its message shows it was a refusal.
        ("llamacpp", ["json_schema"] * 3 + ["json_object", "json_object"]),
        ("no_formats", ["json_schema", "json_object", None, None]),
    ],
)
async def test_output_mode_steps_down_once_and_remembers(make_llm, llm, mode, formats):
    llm.state.modes.append(mode)
    model = make_llm()
    first, _ = await plan_queries(QUESTION, model, breadth=3)
    second, _ = await plan_queries(QUESTION, model, breadth=3)
    assert len(first) == len(second) == 3
    assert _formats(llm) == formats
    if formats[-1] is None:  # plain text: the schema went into the prompt instead
        assert "matching this schema" in str(llm.state.requests[-1]["messages"])
    await model.aclose()


async def test_a_malformed_plan_is_asked_again_once(make_llm, llm):
    llm.state.modes.append("malformed")
    model = make_llm()
    value, tokens = await model.json(
        [
            {"role": "system", "content": "You plan web searches."},
            {"role": "user", "content": "Question: q\nWrite 3 queries."},
        ],
        schema=PLAN_SCHEMA,
        name="plan",
    )
    assert len(value["queries"]) == 3 and len(llm.state.requests) == 2
    assert "not a valid JSON object" in str(llm.state.requests[1]["messages"])
    assert tokens > 0
    await model.aclose()


async def test_always_malformed_is_an_llm_error_with_the_tokens_spent(make_llm, llm):
    llm.state.sticky.add("malformed")
    model = make_llm()
    with pytest.raises(LLMError) as caught:
        await plan_queries(QUESTION, model, breadth=3)
    assert len(llm.state.requests) == 2 and caught.value.details["tokens"] > 0
    await model.aclose()


async def test_429_is_retried_then_answers(make_llm, llm):
    llm.state.modes.append("rate_limit")
    model = make_llm()
    queries, _ = await plan_queries(QUESTION, model, breadth=3)
    assert len(queries) == 3 and len(llm.state.requests) == 2
    await model.aclose()


@pytest.mark.parametrize(("mode", "status"), [("rate_limit", 429), ("server_error", 500)])
async def test_retries_are_bounded(make_llm, llm, mode, status):
    llm.state.sticky.add(mode)
    model = make_llm()
    with pytest.raises(LLMError) as caught:
        await model.complete([{"role": "user", "content": "hi"}])
    error = caught.value
    assert error.code == "llm_error" and error.retryable and error.details["status"] == status
    assert len(llm.state.requests) == 3  # the first try and two retries
    await model.aclose()


async def test_a_slow_model_times_out(make_llm, llm):
    llm.state.latency = 2.0
    model = make_llm(llm_timeout=0.3)
    started = time.monotonic()
    with pytest.raises(LLMError) as caught:
        await model.complete([{"role": "user", "content": "hi"}])
    assert "in time" in caught.value.message and caught.value.retryable
    assert time.monotonic() - started < 6
    await model.aclose()


async def test_an_unreachable_endpoint_is_an_llm_error_without_the_url(make_settings):
    model = LLM(
        make_settings(
            llm_model="m", openai_base_url="http://user:secret@127.0.0.1:9/v1", llm_timeout=1
        )
    )
    with pytest.raises(LLMError) as caught:
        await model.complete([{"role": "user", "content": "hi"}])
    assert "secret" not in str(caught.value.to_dict())
    await model.aclose()


async def test_model_calls_go_through_netsift_transport_and_the_audit_log(
    make_settings, llm, tmp_path
):
    """The Client hands the SDK netsift's HTTP client: every model call is audited as "llm"."""
    import json

    from netsift import Client

    audit = tmp_path / "audit.ndjson"
    settings = make_settings(
        llm_model="scripted-test-model", openai_base_url=llm.base_url, audit_log=audit
    )
    async with Client(settings) as client:
        assert client.llm is not None
        await plan_queries(QUESTION, client.llm, breadth=2)
    lines = [json.loads(line) for line in audit.read_text().splitlines()]
    calls = [line for line in lines if line["kind"] == "llm"]
    assert calls and calls[0]["url"].endswith("/chat/completions")
    assert calls[0]["status"] == 200 and calls[0]["resolved_ip"] == "127.0.0.1"
