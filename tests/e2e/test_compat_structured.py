"""Firecrawl's structured formats and extract, and Tavily's research `output_schema`, driven by
the real clients (firecrawl-py v1 and v2, tavily-python) against a real server and the
offline web's product page (shop.test/product: JSON-LD and a specifications table), without a
model: the fields come from the page's structured data, each with its evidence."""

from __future__ import annotations

import time

import httpx
import pytest
from firecrawl import Firecrawl
from firecrawl.v1 import V1FirecrawlApp
from firecrawl.v2.utils.error_handler import BadRequestError
from tavily import TavilyClient

from tests.e2e.test_compat import serve_structured_doors

SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "price": {"type": "number"},
        "weight": {"type": "string"},
        "colour": {"type": "string"},
    },
}
EXPECTED = {"name": "Trail Runner 3", "price": 129.0, "weight": "280 g", "colour": None}


@pytest.fixture
def doors(door_settings):
    with serve_structured_doors(door_settings) as both:
        yield both


def test_firecrawl_v2_scrape_json_and_summary_formats(doors, offline_web):
    firecrawl = Firecrawl(api_key="any", api_url=doors.main.url(""))
    product = offline_web.url("shop.test", "/product")
    document = firecrawl.scrape(
        product, formats=["markdown", {"type": "json", "schema": SCHEMA}, "summary"]
    )
    assert document.json == EXPECTED
    assert document.markdown and "Trail Runner 3" in document.markdown
    assert document.summary and "[1]" in document.summary
    raw = httpx.post(
        doors.main.url("/v2/scrape"),
        json={"url": product, "formats": [{"type": "json", "schema": SCHEMA}, "summary"]},
    ).json()["data"]
    evidence = raw["jsonEvidence"]
    assert evidence["evidence"]["price"][0]["quote"] == "129.00"
    assert evidence["missing"]["colour"]
    assert raw["summaryCitations"][0]["url"] == product


def test_firecrawl_json_format_without_a_schema_or_prompt_is_a_bad_request(doors, offline_web):
    firecrawl = Firecrawl(api_key="any", api_url=doors.main.url(""))
    with pytest.raises(BadRequestError, match="schema or a prompt"):
        firecrawl.scrape(offline_web.url("shop.test", "/product"), formats=[{"type": "json"}])


# firecrawl-py marks extract deprecated (its service's maintenance mode), and its v1 client
# still calls pydantic's deprecated `.dict()`: their warnings, not ours.
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_firecrawl_v2_extract_answers_at_once(doors, offline_web):
    firecrawl = Firecrawl(api_key="any", api_url=doors.main.url(""))
    product = offline_web.url("shop.test", "/product")
    result = firecrawl.extract(urls=[product], schema=SCHEMA, show_sources=True)
    assert result.status == "completed" and result.data == EXPECTED
    assert result.sources == {name: [product] for name in ("name", "price", "weight")}


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.filterwarnings("ignore::pydantic.warnings.PydanticDeprecatedSince20")
def test_firecrawl_v1_extract_and_json_format_on_the_listener(doors, offline_web):
    app = V1FirecrawlApp(api_key="any", api_url=doors.firecrawl.url(""))
    product = offline_web.url("shop.test", "/product")
    result = app.extract([product], schema=SCHEMA)  # polls GET /v1/extract/{id}
    assert result.success and result.data == EXPECTED
    scraped = app.scrape_url(product, formats=["json"], json_options={"schema": SCHEMA})
    assert scraped.json_field == EXPECTED  # v1 names the `json` field so


def test_firecrawl_extract_refuses_a_wildcard_and_an_unknown_id(doors):
    refused = httpx.post(doors.main.url("/v2/extract"), json={"urls": ["http://shop.test/*"]})
    assert refused.status_code == 400 and "crawl" in refused.json()["error"]
    unknown = httpx.get(doors.main.url("/v2/extract/0123"))
    assert unknown.status_code == 404 and unknown.json()["success"] is False


def test_tavily_research_with_an_output_schema(doors, offline_web):
    tavily = TavilyClient(api_key="any", api_base_url=doors.main.url("/tavily"))
    product = offline_web.url("shop.test", "/product")
    started = tavily.research(f"Trail Runner 3 price {product}", output_schema=SCHEMA)
    assert started["status"] in ("pending", "completed") and started["request_id"]
    done = tavily.get_research(started["request_id"])
    assert done["status"] == "completed"
    assert done["content"]["price"] == 129.0
    assert {source["url"] for source in done["sources"]} == {product}


def test_tavily_research_without_a_schema_is_a_research_job_polled_to_its_end(doors):
    tavily = TavilyClient(api_key="any", api_base_url=doors.main.url("/tavily"))
    started = tavily.research("When did the Kelby ferries switch to batteries?", model="mini")
    assert started["status"] == "pending"
    deadline = time.monotonic() + 90
    while (done := tavily.get_research(started["request_id"]))["status"] in (
        "pending",
        "in_progress",
    ):
        assert time.monotonic() < deadline, done
        time.sleep(0.5)
    assert done["status"] == "completed", done
    assert isinstance(done["content"], str) and isinstance(done["sources"], list)
    refused = httpx.post(doors.main.url("/tavily/research"), json={"input": "why?", "stream": True})
    assert refused.status_code == 400 and "poll" in refused.json()["detail"]["error"]
