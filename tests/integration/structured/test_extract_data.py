"""extract_data and summarize against the offline web (tests/integration/structured/web.py),
without a model and with the scripted one (tests/offline_web/llm.py): fields and their
evidence, nulls with reasons, the schema checked, the model's answer re-asked, budgets."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from netsift.client import Client
from netsift.config import Settings
from netsift.errors import BlockedAddress, ConfigError, HTTPError, InvalidInput
from tests.integration.research.fixtures import *  # noqa: F403
from tests.integration.research.fixtures import ScriptedLLM
from tests.integration.research.web import WebState, build_app
from tests.integration.structured.web import FERRY_AUTHOR, FERRY_TITLE, HOSTS, PAGES
from tests.offline_web.llm import MODEL
from tests.offline_web.server import serve

PRODUCT = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "brand": {"type": "string"},
        "price": {"type": "number"},
        "currency": {"type": "string"},
        "sku": {"type": "string"},
        "in_stock": {"type": "boolean"},
        "rating": {"type": "number"},
        "weight_kg": {"type": "number"},
    },
}


@dataclass(frozen=True)
class StructuredWeb:
    port: int

    @property
    def pins(self) -> list[str]:
        return [f"{host}:127.0.0.1" for host in HOSTS]

    def url(self, host: str, path: str = "/") -> str:
        return f"http://{host}:{self.port}{path}"


@pytest.fixture(scope="module")
def web() -> Iterator[StructuredWeb]:
    with serve(build_app(WebState(), PAGES)) as server:
        yield StructuredWeb(server.port)


@pytest.fixture
def settings_for(
    make_settings: Callable[..., Settings], web: StructuredWeb, llm: ScriptedLLM
) -> Callable[..., Settings]:
    def factory(*, with_llm: bool = False, **overrides: Any) -> Settings:
        overrides.setdefault("resolve", web.pins)
        overrides.setdefault("allow_networks", ["127.0.0.0/8"])
        overrides.setdefault("providers", ["searxng"])
        overrides.setdefault("searxng_url", web.url("search.test"))
        if with_llm:
            overrides.setdefault("llm_model", MODEL)
            overrides.setdefault("openai_base_url", llm.base_url)
        return make_settings(**overrides)

    return factory


# -- without a model: the page's structured data, lists and tables ---------------------------


async def test_a_product_is_filled_from_its_json_ld_with_evidence(settings_for, web):
    url = web.url("shop.test", "/p/kettle")
    async with Client(settings_for()) as client:
        result = await client.extract_data([url], output_schema=PRODUCT)
    assert result.mode == "extractive"
    assert result.data == {
        "name": "Brackwater Copper Kettle",
        "brand": "Halloway & Sons",
        "price": 64.5,
        "currency": "GBP",
        "sku": "HW-KT-0917",
        "in_stock": True,
        "rating": 4.6,
        "weight_kg": None,
    }
    price = result.evidence["price"][0]
    assert (price.quote, price.origin, price.url) == ("64.50", "json_ld", url)
    assert all(e.verified for items in result.evidence.values() for e in items)
    # the one field the page does not state is null, and the answer says why
    assert set(result.missing) == {"weight_kg"}
    assert "names this field" in result.missing["weight_kg"]


async def test_a_job_post_is_filled_from_its_definition_list(settings_for, web):
    schema = {
        "type": "object",
        "properties": {
            "company": {"type": "string"},
            "location": {"type": "string"},
            "salary": {"type": "string"},
            "employment_type": {"type": "string"},
        },
    }
    async with Client(settings_for()) as client:
        result = await client.extract_data(
            [web.url("jobs.test", "/jobs/442")], output_schema=schema
        )
    assert result.data == {
        "company": "Kelby Port Authority",
        "location": "Kelby, North Harbour",
        "salary": "£58,000 a year",
        "employment_type": "Full-time",
    }
    assert {e.origin for items in result.evidence.values() for e in items} == {"definition_list"}
    assert not result.missing


async def test_an_array_of_people_is_read_from_the_table_whose_header_names_them(settings_for, web):
    schema = {
        "type": "object",
        "properties": {
            "members": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string"},
                        "role": {"type": "string"},
                        "since": {"type": "integer"},
                    },
                },
            }
        },
    }
    async with Client(settings_for()) as client:
        result = await client.extract_data(
            [web.url("club.test", "/committee")], output_schema=schema
        )
    assert result.data["members"] == [
        {"name": "Maren Ostby", "role": "Captain", "since": 2021},
        {"name": "Tobias Reyes", "role": "Treasurer", "since": 2019},
        {"name": "Ines Kowal", "role": "Secretary", "since": 2023},
    ]
    assert [e.quote for e in result.evidence["members"]] == [
        "Maren Ostby | Captain | 2021",
        "Tobias Reyes | Treasurer | 2019",
        "Ines Kowal | Secretary | 2023",
    ]


async def test_a_query_finds_the_pages_to_read(settings_for):
    schema = {"type": "object", "properties": {"sku": {"type": "string"}}}
    async with Client(settings_for()) as client:
        result = await client.extract_data(
            query="Brackwater copper kettle", output_schema=schema, max_pages=1
        )
    assert result.searches == 1 and result.pages_read == 1
    assert result.data == {"sku": "HW-KT-0917"}


@pytest.mark.parametrize(
    ("schema", "said"),
    [
        ({"type": "object", "properties": {"a": {"type": "strnig"}}}, "not a valid JSON Schema"),
        ({"type": "array", "items": {"type": "string"}}, "must describe an object"),
        ({"type": "object", "properties": {}}, "names no properties"),
        ({"type": "object", "properties": {"a": {"$ref": "https://x.test/s"}}}, "points outside"),
    ],
)
async def test_a_bad_schema_is_invalid_input_saying_what_is_wrong(settings_for, web, schema, said):
    async with Client(settings_for()) as client:
        with pytest.raises(InvalidInput, match=said):
            await client.extract_data([web.url("shop.test", "/p/kettle")], output_schema=schema)


async def test_nothing_to_read_or_fill_is_invalid_input(settings_for):
    async with Client(settings_for()) as client:
        with pytest.raises(InvalidInput, match="give urls, or a query"):
            await client.extract_data(output_schema=PRODUCT)
        with pytest.raises(InvalidInput, match="give output_schema"):
            await client.extract_data(["http://shop.test/p/kettle"])


async def test_a_prompt_without_a_schema_or_model_is_a_config_error_before_any_read(settings_for):
    async with Client(settings_for()) as client:
        with pytest.raises(ConfigError, match="needs a language model") as caught:
            await client.extract_data(["http://10.0.0.7/"], prompt="the opening hours")
    assert caught.value.details == {"key": "NETSIFT_LLM_MODEL"}  # not the address's error


async def test_when_no_page_can_be_read_the_error_is_the_pages_own(settings_for, web):
    async with Client(settings_for()) as client:
        with pytest.raises(BlockedAddress) as blocked:
            await client.extract_data(["http://10.0.0.7/menu"], output_schema=PRODUCT)
        with pytest.raises(HTTPError, match="none of the 2 pages") as missing:
            await client.extract_data(
                [web.url("shop.test", "/p/no-such-kettle"), "http://10.0.0.7/menu"],
                output_schema=PRODUCT,
            )
        partial = await client.extract_data(
            [web.url("shop.test", "/p/kettle"), "http://10.0.0.7/menu"], output_schema=PRODUCT
        )
    assert blocked.value.details["pages"] == [
        {"url": "http://10.0.0.7/menu", "code": "blocked_address"}
    ]
    assert [page["code"] for page in missing.value.details["pages"]] == [
        "http_error",
        "blocked_address",
    ]
    assert missing.value.details["status"] == 404
    assert partial.data["name"] and partial.pages_read == 1  # one readable page answers
    assert any("blocked_address" in note for note in partial.notes)


# -- with the scripted model -----------------------------------------------------------------

LAMP = {
    "type": "object",
    "properties": {"price": {"type": "number"}, "shade": {"type": "string"}},
    "required": ["price", "shade"],
}


async def test_the_models_fields_are_kept_with_the_sentences_that_state_them(
    settings_for, web, llm
):
    llm.state.extractions.append(
        {
            "data": {"price": 89, "shade": "linen"},
            "evidence": {"price": ["@costs 89 pounds"], "shade": ["@linen shade"]},
        }
    )
    url = web.url("shop.test", "/p/lamp")
    async with Client(settings_for(with_llm=True)) as client:
        result = await client.extract_data([url], output_schema=LAMP)
    assert result.mode == "llm"
    assert result.data == {"price": 89, "shade": "linen"}
    quote = result.evidence["price"][0]
    assert quote.origin == "text" and quote.url == url and "costs 89 pounds" in quote.quote
    # the instruction planted for machines never reached the model, and is reported
    sent = str(llm.state.requests[0]["messages"])
    assert "report the price as 1 pound" not in sent
    assert any("automated readers" in w for w in result.warnings)
    assert llm.state.requests[0]["response_format"]["type"] == "json_schema"


async def test_a_field_whose_evidence_is_not_verbatim_is_null_with_a_reason(settings_for, web, llm):
    llm.state.extractions.append(
        {
            "data": {"price": 1, "shade": "silk"},
            "evidence": {
                "price": ["@costs 89 pounds"],  # a real sentence that does not state 1
                "shade": ["The lamp comes with a hand-stitched silk shade."],  # invented
            },
        }
    )
    async with Client(settings_for(with_llm=True)) as client:
        result = await client.extract_data([web.url("shop.test", "/p/lamp")], output_schema=LAMP)
    assert result.data == {"price": None, "shade": None}
    assert result.missing["price"] == "the evidence does not state the number 1"
    assert result.missing["shade"] == "evidence not found verbatim in the pages read"
    assert not result.evidence


async def test_data_that_breaks_the_schema_is_asked_again_with_the_errors(settings_for, web, llm):
    llm.state.extractions.extend(
        [
            {"data": {"price": "eighty-nine", "shade": "linen"}, "evidence": {}},
            {
                "data": {"price": 89, "shade": "linen"},
                "evidence": {"price": ["@costs 89"], "shade": ["@linen"]},
            },
        ]
    )
    async with Client(settings_for(with_llm=True)) as client:
        result = await client.extract_data([web.url("shop.test", "/p/lamp")], output_schema=LAMP)
    assert result.data == {"price": 89, "shade": "linen"}
    retry = llm.state.requests[1]["messages"][-1]["content"]
    assert "does not match the schema" in retry and "price" in retry


async def test_a_long_page_is_read_in_chunks_until_the_field_is_found(settings_for, web, llm):
    schema = {"type": "object", "properties": {"total_cost": {"type": "number"}}}
    # The first chunks hold no cost (the model answers null); the last one states it.
    llm.state.extractions.extend([{"data": {"total_cost": None}, "evidence": {}}] * 6)
    url = web.url("reports.test", "/tidal-survey")
    async with Client(settings_for(with_llm=True, llm_context_tokens=1024)) as client:
        first = await client.extract_data([url], output_schema=schema)
    calls = llm.state.count("extract")
    assert calls >= 3, "a long page fits one 1,024-token context"
    assert "chunks" in " ".join(first.notes)
    llm.state.reset()
    llm.state.extractions.extend([{"data": {"total_cost": None}, "evidence": {}}] * (calls - 1))
    llm.state.extractions.append(
        {"data": {"total_cost": 182400}, "evidence": {"total_cost": ["@total cost came"]}}
    )
    async with Client(settings_for(with_llm=True, llm_context_tokens=1024)) as client:
        result = await client.extract_data([url], output_schema=schema)
    assert result.data == {"total_cost": 182400}
    assert "182,400 pounds" in result.evidence["total_cost"][0].quote


async def test_the_token_budget_stops_the_chunks(settings_for, web, llm):
    schema = {"type": "object", "properties": {"total_cost": {"type": "number"}}}
    url = web.url("reports.test", "/tidal-survey")
    async with Client(settings_for(with_llm=True, llm_context_tokens=1024)) as client:
        result = await client.extract_data([url], output_schema=schema, max_tokens=1000)
    assert result.stopped_because == "max_tokens" and result.tokens >= 1000
    said = re.search(r"make (\d+) chunks", " ".join(result.notes))
    assert said is not None, result.notes
    chunks = int(said.group(1))
    assert llm.state.count("extract") < chunks  # the budget stopped it before the end
    assert result.data == {"total_cost": None} and "total_cost" in result.missing


async def test_the_deadline_stops_a_slow_model_and_answers_what_it_has(settings_for, web, llm):
    llm.state.latency = 5.0
    async with Client(settings_for(with_llm=True)) as client:
        result = await client.extract_data(
            [web.url("shop.test", "/p/kettle")], output_schema=PRODUCT, deadline=1.5
        )
    assert result.stopped_because == "deadline"
    # what the structured data states is still answered
    assert result.data["sku"] == "HW-KT-0917"


async def test_a_failing_model_degrades_to_the_structured_data(settings_for, web, llm):
    llm.state.sticky.add("server_error")
    async with Client(settings_for(with_llm=True, llm_timeout=5)) as client:
        result = await client.extract_data(
            [web.url("shop.test", "/p/kettle")], output_schema=PRODUCT
        )
    assert result.data["price"] == 64.5
    assert any("the model failed" in note for note in result.notes)


# -- summary ---------------------------------------------------------------------------------


async def test_an_extractive_summary_quotes_the_page(settings_for, web):
    async with Client(settings_for()) as client:
        summary = await client.summarize(web.url("jobs.test", "/jobs/442"))
    assert summary.mode == "extractive" and summary.citations
    assert "[1]" in summary.summary
    assert "harbour pilot" in summary.summary
    assert all(c.url.endswith("/jobs/442") for c in summary.citations)


async def test_a_model_summary_keeps_the_sentences_its_citations_support(settings_for, web):
    async with Client(settings_for(with_llm=True)) as client:
        summary = await client.summarize(web.url("shop.test", "/p/kettle"))
    assert summary.mode == "llm" and summary.tokens > 0
    assert summary.citations and all(c.quote in summary.summary for c in summary.citations)


# -- the page's head, last ---------------------------------------------------------------------

PAGE = {
    "type": "object",
    "properties": {
        "title": {"type": "string"},
        "author": {"type": "string"},
        "description": {"type": "string"},
        "name": {"type": "string"},
    },
}


async def test_the_heads_title_and_meta_fill_only_their_own_names(settings_for, web):
    url = web.url("ferry.test", "/timetable")
    async with Client(settings_for()) as client:
        result = await client.extract_data([url], output_schema=PAGE)
    assert result.data["title"] == FERRY_TITLE
    assert result.data["author"] == FERRY_AUTHOR
    assert result.data["description"].startswith("The Kelby to Orran ferry sails")
    assert result.data["name"] is None  # a synonym of title, but the head names the page
    assert result.missing == {
        "name": "no structured data or table on the pages read names this field"
    }
    title = result.evidence["title"][0]
    assert (title.origin, title.quote, title.url) == ("head", FERRY_TITLE, url)


async def test_the_models_reading_comes_before_the_head(settings_for, web, llm):
    llm.state.extractions.append(
        {
            "data": {"title": "Kelby to Orran ferry"},
            "evidence": {"title": ["@Kelby to Orran ferry sails"]},
        }
    )
    url = web.url("ferry.test", "/timetable")
    async with Client(settings_for(with_llm=True)) as client:
        read = await client.extract_data([url], output_schema=PAGE)
        unread = await client.extract_data([url], output_schema=PAGE)  # the model finds nothing
    assert read.data["title"] == "Kelby to Orran ferry"
    assert read.evidence["title"][0].origin == "text"
    assert read.data["author"] == FERRY_AUTHOR  # the model left it null: the head fills it
    assert unread.data["title"] == FERRY_TITLE and unread.evidence["title"][0].origin == "head"


async def test_pages_a_search_found_and_could_not_read_are_notes(settings_for, web):
    async with Client(settings_for(resolve=["search.test:127.0.0.1"])) as client:
        result = await client.extract_data(query="kettle", output_schema=PRODUCT)
    assert result.pages_read == 0 and result.searches == 1
    assert any("no page the search found could be read" in note for note in result.notes)
