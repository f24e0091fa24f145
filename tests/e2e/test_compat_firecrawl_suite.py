"""What Firecrawl's own SDK suites ask of its API beyond a plain scrape, driven by firecrawl-py
against a real server and the offline web: the structured formats on every document of a
crawl and a batch scrape, a page's images, URLs without a scheme (Firecrawl's doors only), and
a cancel that comes after the job ended. Without a model: the fields come from the pages'
structured data and heads."""

from __future__ import annotations

import time

import httpx
import pytest
from firecrawl import Firecrawl
from firecrawl.v2.types import ScrapeOptions
from firecrawl.v2.utils.error_handler import BadRequestError, WebsiteNotSupportedError

from tests.e2e.test_compat import serve_structured_doors
from tests.e2e.test_compat_structured import EXPECTED, SCHEMA
from tests.offline_web.sitemaps import DASHBOARD, DASHBOARD_2X, LOGO

TITLE = {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]}


@pytest.fixture
def doors(door_settings):
    with serve_structured_doors(door_settings) as both:
        yield both


@pytest.fixture
def firecrawl(doors) -> Firecrawl:
    return Firecrawl(api_key="any", api_url=doors.main.url(""))


def test_a_crawls_documents_carry_json_and_summary(doors, firecrawl, offline_web):
    start = offline_web.url("map.test", "/")
    formats = ["markdown", {"type": "json", "schema": TITLE}, "summary"]
    job = firecrawl.crawl(
        start, limit=2, scrape_options=ScrapeOptions(formats=formats), poll_interval=1
    )
    assert job.status == "completed" and len(job.data) == 2
    for document in job.data:
        assert document.json == {"title": document.metadata_typed.title}
        assert document.summary is not None and document.markdown
    # the home page's sentence; the pricing page's one line is too short to be one
    home = next(d for d in job.data if d.metadata_typed.source_url == start)
    assert home.summary and "Map Test sells plans for teams" in home.summary
    assert "[1]" in home.summary
    # read again (the status call, as a poll): the same fields, kept, not asked again
    again = httpx.get(doors.main.url(f"/v2/crawl/{job.id}")).json()["data"]
    assert sorted(d["json"]["title"] for d in again) == sorted(d.json["title"] for d in job.data)
    assert all(d["jsonEvidence"]["evidence"]["title"][0]["origin"] == "head" for d in again)


def test_a_batch_scrapes_documents_carry_json(firecrawl, offline_web):
    product = offline_web.url("shop.test", "/product")
    job = firecrawl.batch_scrape(
        [product, product],
        formats=["markdown", {"type": "json", "schema": SCHEMA}],
        poll_interval=1,
    )
    assert job.status == "completed" and [d.json for d in job.data] == [EXPECTED, EXPECTED]


def test_a_json_format_without_a_schema_or_prompt_refuses_the_job_at_once(firecrawl, offline_web):
    asked = ScrapeOptions(formats=[{"type": "json"}])
    with pytest.raises(BadRequestError, match="schema or a prompt"):
        firecrawl.start_crawl(offline_web.url("map.test", "/"), scrape_options=asked)
    with pytest.raises(BadRequestError, match="schema or a prompt"):
        firecrawl.start_batch_scrape([offline_web.url("map.test", "/")], formats=asked.formats)


def test_the_images_of_a_page_are_its_logo_and_product_shot(firecrawl, offline_web):
    document = firecrawl.scrape(offline_web.url("map.test", "/"), formats=["images"])
    base = offline_web.url("map.test", "")
    assert document.images == [base + LOGO, base + DASHBOARD, base + DASHBOARD_2X]
    host = {"host": f"map.test:{offline_web.port}"}
    logo = httpx.get(f"http://127.0.0.1:{offline_web.port}{LOGO}", headers=host)
    assert logo.headers["content-type"].startswith("image/svg+xml")


def test_a_url_without_a_scheme_is_http_on_firecrawls_doors_only(doors, firecrawl, offline_web):
    bare = offline_web.url("map.test", "/").removeprefix("http://")
    job = firecrawl.crawl(bare, limit=1, poll_interval=1)
    assert job.status == "completed"
    assert job.data[0].metadata_typed.source_url == "http://" + bare
    scraped = firecrawl.scrape(bare + "about", formats=["markdown"])
    assert scraped.markdown and "About" in scraped.markdown
    # the URL made is the guard's to judge, as any other
    with pytest.raises(WebsiteNotSupportedError):
        firecrawl.scrape("169.254.169.254/latest/meta-data", formats=["markdown"])
    # netsift's own door asks for a scheme rather than guess one
    own = httpx.post(doors.main.url("/v1/crawl"), json={"url": bare, "max_pages": 1})
    assert own.status_code in (400, 422) and "http" in own.text


def test_cancelling_a_finished_batch_answers_as_firecrawl_and_keeps_its_status(
    doors, firecrawl, offline_web
):
    started = firecrawl.start_batch_scrape([offline_web.url("map.test", "/about")])
    deadline = time.monotonic() + 30
    while firecrawl.get_batch_scrape_status(started.id).status == "scraping":
        assert time.monotonic() < deadline
        time.sleep(0.2)
    assert firecrawl.cancel_batch_scrape(started.id) is True  # Firecrawl's answer
    answer = httpx.delete(doors.main.url(f"/v2/batch/scrape/{started.id}")).json()
    assert answer["jobStatus"] == "completed" and "already ended" in answer["warning"]
    # the job itself is not re-labelled: it completed, and its status says so
    assert firecrawl.get_batch_scrape_status(started.id).status == "completed"
