"""The compatible APIs, driven by the real clients against a real `netsift serve` (uvicorn) and
the offline web: tavily-python, firecrawl-py (v1 and v2 calls), LangChain's SearxSearchWrapper
and an Open WebUI-shaped SearXNG request. Each answer is parsed by the client's own types.

Every server here also opens the Firecrawl listener (a second socket of the same app), where
Firecrawl's v1 and v2 live at the root; the main port serves v2 at its root and keeps `/v1/`."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from firecrawl import Firecrawl
from firecrawl.v1 import V1FirecrawlApp
from firecrawl.v2.types import CrawlJob
from firecrawl.v2.utils.error_handler import BadRequestError, WebsiteNotSupportedError
from langchain_community.utilities import SearxSearchWrapper
from tavily import TavilyClient
from tavily.errors import BadRequestError as TavilyBadRequest
from tavily.errors import InvalidAPIKeyError, UsageLimitExceededError
from websockets.exceptions import ConnectionClosed, ConnectionClosedOK
from websockets.sync.client import connect

from netsift.config import Settings
from netsift.server import create_app
from netsift.server.compat import firecrawl as firecrawl_door
from tests.e2e.cli import in_process
from tests.integration.crawl.conftest import GeneratedSite, serve_site
from tests.integration.net.apps import free_port
from tests.offline_web.generated import SiteSpec
from tests.offline_web.server import LiveServer, listen, serve

KEY = "compat-test-key"


@pytest.fixture
def settings(door_settings):
    def factory(**overrides):
        overrides.setdefault("providers", ["brave", "tavily", "wikipedia"])
        overrides.setdefault("capabilities", ["search", "fetch"])
        return door_settings(**overrides)

    return factory


@dataclass(frozen=True)
class Doors:
    main: LiveServer  # netsift's own port
    firecrawl: LiveServer  # the Firecrawl listener: every path is Firecrawl's


@contextmanager
def serve_doors(settings: Callable[..., Settings], **overrides) -> Iterator[Doors]:
    """One app on two sockets, as `netsift serve --firecrawl-port` runs it."""
    second = listen()
    port = second.getsockname()[1]
    app = create_app(settings(firecrawl_port=port, **overrides))
    with serve(app, also=[second], lifespan="on") as live:
        yield Doors(main=live, firecrawl=LiveServer(host=live.host, port=port))


STRUCTURED_CAPABILITIES = ["search", "fetch", "research"]  # json/summary/extract use the model


@contextmanager
def serve_structured_doors(door_settings: Callable[..., Settings]) -> Iterator[Doors]:
    """The two doors with research on, as Firecrawl's structured formats need it."""

    def settings(**overrides: Any) -> Settings:
        overrides.setdefault("capabilities", STRUCTURED_CAPABILITIES)
        return door_settings(**overrides)

    with serve_doors(settings) as both:
        yield both


@pytest.fixture
def doors(settings):
    with serve_doors(settings) as both:
        yield both


@pytest.fixture
def server(doors):
    return doors.main


@pytest.fixture
def keyed_server(settings):
    with serve(create_app(settings(api_keys=[KEY])), lifespan="on") as live:
        yield live


# -- Tavily -----------------------------------------------------------------------------------


def test_tavily_search_parses_with_numeric_scores(server):
    client = TavilyClient(api_key="any", api_base_url=server.url("/tavily"))
    found = client.search(
        "rust async runtime",
        max_results=3,
        search_depth="advanced",
        topic="news",
        time_range="week",
        unknown_future_field=True,
    )
    assert found["query"] == "rust async runtime"
    assert 1 <= len(found["results"]) <= 3
    scores = [result["score"] for result in found["results"]]
    assert all(isinstance(score, float) for score in scores)
    assert scores == sorted(scores, reverse=True)
    assert all(result["content"] for result in found["results"])  # KeyError: 'content' before
    assert isinstance(found["response_time"], float)


def test_tavily_domain_filters_hold(server):
    client = TavilyClient(api_key="any", api_base_url=server.url("/tavily"))
    everything = client.search("rust async runtime", max_results=10)
    hosts = {httpx.URL(r["url"]).host for r in everything["results"]}
    assert len(hosts) >= 2, hosts
    kept_host = sorted(hosts)[0]
    only = client.search("rust async runtime", max_results=10, include_domains=[kept_host])
    assert only["results"] and {httpx.URL(r["url"]).host for r in only["results"]} == {kept_host}
    without = client.search("rust async runtime", max_results=10, exclude_domains=[kept_host])
    assert kept_host not in {httpx.URL(r["url"]).host for r in without["results"]}


def test_tavily_extract_lists_refusals_in_failed_results(server, offline_web):
    client = TavilyClient(api_key="any", api_base_url=server.url("/tavily"))
    article = offline_web.url("news.test", "/article")
    extracted = client.extract([article, "http://169.254.169.254/latest/meta-data/"])
    [result] = extracted["results"]
    assert result["url"] == article and "ferries" in result["raw_content"]
    [failed] = extracted["failed_results"]
    assert failed["url"].startswith("http://169.254.169.254")
    assert "169.254.169.254" in failed["error"]


def test_tavily_errors_reach_the_client_with_their_message(server, keyed_server):
    with pytest.raises(TavilyBadRequest, match="query"):
        TavilyClient(api_key="any", api_base_url=server.url("/tavily")).search("")
    with pytest.raises(InvalidAPIKeyError, match=r"\S"):
        TavilyClient(api_key="wrong", api_base_url=keyed_server.url("/tavily")).search("rust")
    right = TavilyClient(api_key=KEY, api_base_url=keyed_server.url("/tavily"))
    assert right.search("rust async runtime")["results"]


def test_tavily_quota_is_its_usage_limit_with_retry_after(settings):
    with serve(create_app(settings(server_search_quota="1/day")), lifespan="on") as live:
        client = TavilyClient(api_key="any", api_base_url=live.url("/tavily"))
        assert client.search("rust async runtime")["results"]
        with pytest.raises(UsageLimitExceededError, match="quota"):
            client.search("rust async runtime")
        raw = httpx.post(live.url("/tavily/search"), json={"query": "rust"})
    assert raw.status_code == 429 and int(raw.headers["Retry-After"]) >= 1
    assert set(raw.json()) == {"detail"}


# -- Firecrawl --------------------------------------------------------------------------------


def test_firecrawl_v2_scrape_and_search_parse(server, offline_web):
    firecrawl = Firecrawl(api_key="any", api_url=server.url(""))
    article = offline_web.url("news.test", "/article")
    document = firecrawl.scrape(article, formats=["markdown", "html"])
    assert document.markdown and "ferries" in document.markdown
    assert document.html and "<" in document.html
    metadata = document.metadata_typed
    assert metadata.title == "Harbour town switches its ferries to batteries"
    assert metadata.source_url == article and metadata.status_code == 200
    found = firecrawl.search("rust async runtime", limit=3)
    assert found.web and [item.position for item in found.web] == list(range(1, len(found.web) + 1))


def test_firecrawl_v2_refusals_are_its_errors(server):
    firecrawl = Firecrawl(api_key="any", api_url=server.url(""))
    with pytest.raises(WebsiteNotSupportedError, match=r"169\.254\.169\.254"):
        firecrawl.scrape("http://169.254.169.254/latest/meta-data/")
    with pytest.raises(BadRequestError, match="changeTracking"):  # not served: said by name
        firecrawl.scrape("http://news.test/article", formats=["changeTracking"])


# firecrawl-py's v1 client still calls pydantic's deprecated `.dict()`: its warning, not ours.
@pytest.mark.filterwarnings("ignore::pydantic.warnings.PydanticDeprecatedSince20")
def test_firecrawl_v1_scrape_and_search_parse_on_the_firecrawl_listener(doors, offline_web):
    app = V1FirecrawlApp(api_key="any", api_url=doors.firecrawl.url(""))
    scraped = app.scrape_url(offline_web.url("news.test", "/article"), formats=["markdown"])
    assert scraped.markdown and "ferries" in scraped.markdown
    found = app.search("rust async runtime", limit=2)
    assert found.success and 1 <= len(found.data) <= 2
    assert found.data[0]["url"] and found.data[0]["description"]


def test_firecrawl_v2_clients_use_either_root(doors, offline_web):
    article = offline_web.url("news.test", "/article")
    for door in (doors.main, doors.firecrawl):
        document = Firecrawl(api_key="any", api_url=door.url("")).scrape(article)
        assert document.markdown and "ferries" in document.markdown


def test_the_main_port_keeps_v1_for_netsift_whatever_the_body(doors):
    response = httpx.post(
        doors.main.url("/v1/search"), json={"query": "rust async runtime", "count": 2}
    )
    assert response.status_code == 200
    assert "attempts" in response.json()  # netsift's shape, not Firecrawl's envelope
    firecrawl_body = {"query": "rust", "limit": 2, "origin": "python-sdk@4"}
    refused = httpx.post(doors.main.url("/v1/search"), json=firecrawl_body)
    assert refused.status_code == 422 and refused.json()["error"]["code"] == "invalid_input"
    assert "limit" in refused.json()["error"]["message"]  # netsift's own refusal, by name
    on_listener = httpx.post(doors.firecrawl.url("/v1/search"), json=firecrawl_body)
    assert on_listener.status_code == 200 and on_listener.json()["success"] is True
    prefixed = httpx.post(doors.main.url("/firecrawl/v1/search"), json=firecrawl_body)
    assert prefixed.status_code == 200 and prefixed.json()["success"] is True


def test_the_firecrawl_listener_serves_only_firecrawl(doors):
    for path in ("/v1/info", "/healthz", "/", "/firecrawl/v1/search"):
        answer = httpx.get(doors.firecrawl.url(path))
        assert answer.status_code == 404 and answer.json()["success"] is False
    refused = httpx.post(doors.firecrawl.url("/v1/scrape"), json={"url": ""})
    assert refused.status_code == 400 and refused.json()["success"] is False
    wrong_method = httpx.delete(doors.firecrawl.url("/v1/scrape"))
    assert wrong_method.status_code == 405 and wrong_method.json()["success"] is False


# -- SearXNG ----------------------------------------------------------------------------------


def test_langchain_searx_wrapper_reads_results(server):
    searx = SearxSearchWrapper(searx_host=server.url(""), k=3)
    results = searx.results("rust async runtime", num_results=3, engines=["brave"])
    assert results and all(r["engines"] == ["brave"] for r in results)
    assert all(r["category"] == "general" for r in results)
    assert searx.run("rust async runtime")


def test_open_webui_shaped_request_gets_json_it_can_sort(server):
    params = {
        "q": "rust async runtime",
        "format": "json",
        "pageno": "1",
        "safesearch": "1",
        "language": "en-US",
        "time_range": "",
        "categories": "",
        "theme": "simple",
        "image_proxy": "0",
    }
    response = httpx.get(server.url("/search"), params=params, headers={"Accept": "text/html"})
    assert response.status_code == 200 and response.headers["content-type"].startswith(
        "application/json"
    )
    results = response.json()["results"]
    assert sorted(results, key=lambda x: x.get("score", 0), reverse=True)  # numeric everywhere


def test_searxng_reports_failed_engines(server, sims):
    sims["brave"].set("rate_limit")
    answer = httpx.get(server.url("/search"), params={"q": "rust", "format": "json"}).json()
    assert ["brave", "rate_limited"] in answer["unresponsive_engines"]


def test_searxng_keyless_callers_need_an_admitted_network(settings):
    keyed = settings(api_keys=[KEY])
    with serve(create_app(keyed), lifespan="on") as live:
        refused = httpx.get(live.url("/search"), params={"q": "rust", "format": "json"})
        assert refused.status_code == 401 and "Bearer" in refused.json()["error"]
    with serve_doors(settings, api_keys=[KEY], searxng_keyless_networks=["127.0.0.0/8"]) as both:
        answer = httpx.get(both.main.url("/search"), params={"q": "rust", "format": "json"})
        assert answer.status_code == 200 and answer.json()["results"]
        native = httpx.post(both.main.url("/v1/search"), json={"query": "rust"})
        assert native.status_code == 401  # the exemption is the SearXNG route's alone
        scrape = httpx.post(both.firecrawl.url("/v2/scrape"), json={"url": "http://a.test/"})
        assert scrape.status_code == 401 and scrape.json()["success"] is False  # same keys


def test_the_web_page_is_still_at_the_root(server):
    page = httpx.get(server.url("/"))
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")


def test_info_lists_each_compatible_base_url(doors, settings):
    info = httpx.get(doors.main.url("/v1/info")).json()
    root = doors.main.url("").rstrip("/")
    assert info["compat"] == {
        "tavily": {"base_url": root + "/tavily", "versions": None},
        "firecrawl": {"base_url": doors.firecrawl.url("").rstrip("/"), "versions": ["v1", "v2"]},
        "searxng": {"base_url": root, "versions": None},
    }
    with serve(create_app(settings()), lifespan="on") as alone:  # no Firecrawl listener
        firecrawl = httpx.get(alone.url("/v1/info")).json()["compat"]["firecrawl"]
    assert firecrawl == {"base_url": alone.url("").rstrip("/"), "versions": ["v2"]}


@pytest.mark.parametrize(
    ("method", "path", "body", "status", "shape"),
    [
        ("POST", "/tavily/search", b"{not json", 400, "detail"),
        ("POST", "/tavily/search", b'{"query": 5, "max_results": "many"}', 400, "detail"),
        ("POST", "/tavily/extract", b'{"urls": []}', 400, "detail"),
        ("POST", "/v2/scrape", b'{"url": ""}', 400, "success"),
        ("POST", "/v2/scrape", b"[]", 400, "success"),
        ("POST", "/v2/search", b'{"query": "x", "limit": 1000}', 400, "success"),
        ("POST", "/v2/crawl", b"{}", 400, "success"),
        ("POST", "/v2/extract", b"{}", 400, "success"),  # urls (or a prompt) missing
        ("POST", "/firecrawl/v1/scrape", b'{"url": 5}', 400, "success"),
        ("POST", "/v1/scrape", b"{}", 404, "error"),  # netsift's /v1/: Firecrawl's is elsewhere
        ("POST", "/tavily/crawl", b'{"url": "http://x.test/", "format": "pdf"}', 400, "detail"),
        ("GET", "/search?q=&format=json", b"", 400, "error"),
        ("GET", "/search?q=x&format=json&pageno=0", b"", 400, "error"),
        ("GET", "/search?q=x&format=csv", b"", 400, "error"),
    ],
)
def test_bad_requests_get_each_apis_error_shape(server, method, path, body, status, shape):
    response = httpx.request(method, server.url(path), content=body)
    assert response.status_code == status, response.text
    assert shape in response.json() and "Traceback" not in response.text


# -- map (Tavily, Firecrawl v1 and v2) -------------------------------------------------------


def test_tavily_map_parses(server, offline_web):
    client = TavilyClient(api_key="any", api_base_url=server.url("/tavily"))
    start = offline_web.url("map.test", "/")
    found = client.map(start, limit=4, instructions="pricing", select_paths=["^/pricing"])
    assert found["base_url"] == start and found["request_id"]
    assert found["results"] and all("/pricing" in url for url in found["results"])
    wide = client.map(start, select_domains=[r"^blog\.map\.test$"])
    assert wide["results"] and all("blog.map.test" in url for url in wide["results"])
    with pytest.raises(TavilyBadRequest):
        client.map(start, select_paths=["(("])


def test_firecrawl_v2_map_parses(server, offline_web):
    firecrawl = Firecrawl(api_key="any", api_url=server.url(""))
    mapped = firecrawl.map(offline_web.url("map.test", "/"), limit=3, search="docs api")
    assert len(mapped.links) == 3 and mapped.links[0].url.endswith("/docs/api-reference")
    only = firecrawl.map(offline_web.url("map.test", "/"), sitemap="skip")
    assert not any("/docs/" in link.url for link in only.links)  # the docs are sitemap-only
    with pytest.raises(WebsiteNotSupportedError):
        firecrawl.map("http://169.254.169.254/")


@pytest.mark.filterwarnings("ignore::pydantic.warnings.PydanticDeprecatedSince20")
def test_firecrawl_v1_map_parses_and_netsift_map_keeps_its_route(doors, offline_web):
    app = V1FirecrawlApp(api_key="any", api_url=doors.firecrawl.url(""))
    mapped = app.map_url(offline_web.url("map.test", "/"), limit=5, sitemap_only=True)
    assert mapped.success and len(mapped.links) == 5 and isinstance(mapped.links[0], str)
    own = httpx.post(doors.main.url("/v1/map"), json={"url": offline_web.url("map.test", "/")})
    assert own.status_code == 200 and "left_out" in own.json()  # netsift's shape


def test_firecrawl_raw_html_and_links_formats(server, offline_web):
    firecrawl = Firecrawl(api_key="any", api_url=server.url(""))
    home = offline_web.url("map.test", "/")
    document = firecrawl.scrape(home, formats=["markdown", "rawHtml", "links"])
    assert document.raw_html and '<link rel="alternate"' in document.raw_html  # the source
    assert document.markdown and "<" not in document.markdown
    assert document.links and offline_web.url("map.test", "/contact") in document.links
    assert offline_web.url("map.test", "/pricing") in document.links  # the fragment dropped


# -- crawl (Tavily synchronous, Firecrawl v1 and v2 jobs) -------------------------------------


@pytest.fixture(scope="module")
def site():
    yield from serve_site(SiteSpec(pages=12, host="compat.crawl.test"))


@pytest.fixture
def crawl_doors(settings, sims, offline_web, site: GeneratedSite, tmp_path):
    with serve_doors(
        settings,
        resolve=sims.pins + offline_web.pins + site.pins,
        allow_networks=["127.0.0.0/8"],
        jobs_url=f"sqlite:///{tmp_path / 'jobs.sqlite3'}",
    ) as both:
        yield both


@pytest.fixture
def crawl_server(crawl_doors):
    return crawl_doors.main


def test_tavily_crawl_runs_to_the_end_in_tavilys_shape(crawl_server, site):
    client = TavilyClient(api_key="any", api_base_url=crawl_server.url("/tavily"))
    found = client.crawl(
        site.url("/"), max_depth=2, limit=4, exclude_paths=["^/print/"], include_favicon=True
    )
    assert found["base_url"] == site.url("/") and isinstance(found["response_time"], float)
    urls = [result["url"] for result in found["results"]]
    assert len(urls) == 4 and urls[0] == site.url("/")
    assert all(result["raw_content"] and "favicon" in result for result in found["results"])
    only = client.crawl(site.url("/"), max_depth=3, limit=3, select_paths=["^/docs/"])
    assert only["results"] and all("/docs/" in r["url"] for r in only["results"])
    with pytest.raises(TavilyBadRequest, match=r"select_paths|include"):
        client.crawl(site.url("/"), select_paths=["(("])
    as_text = client.crawl(site.url("/"), max_depth=1, limit=2, format="text")
    assert as_text["results"] and all(
        r["raw_content"] and "](" not in r["raw_content"] and "# " not in r["raw_content"]
        for r in as_text["results"]
    )


def test_firecrawl_v2_crawl_polls_to_completion_and_pages(crawl_server, site):
    firecrawl = Firecrawl(api_key="any", api_url=crawl_server.url(""))
    job: CrawlJob = firecrawl.crawl(site.url("/"), limit=5, max_discovery_depth=3, poll_interval=1)
    assert job.status == "completed" and job.completed == 5 == len(job.data)
    first = job.data[0]
    assert first.markdown and first.metadata_typed.source_url == site.url("/")
    assert first.metadata_typed.status_code == 200 and first.links
    started = firecrawl.start_crawl(site.url("/docs/1"), limit=3, include_paths=["^/docs/"])
    assert started.url == crawl_server.url(f"/v2/crawl/{started.id}")
    status = firecrawl.get_crawl_status(started.id)
    assert status.status in ("scraping", "completed") and status.expires_at is not None
    errors = firecrawl.get_crawl_errors(job.id)
    assert any(e.url == "http://elsewhere.test/about" for e in errors.errors)  # off the site
    assert all(url.startswith(site.url("/private/")) for url in errors.robots_blocked)
    below = firecrawl.crawl(site.url("/docs/1"), limit=5, poll_interval=1)
    assert [d.metadata_typed.source_url for d in below.data] == [site.url("/docs/1")]
    with pytest.raises(BadRequestError, match="allowExternalLinks"):
        firecrawl.crawl(site.url("/"), allow_external_links=True)
    as_html = firecrawl.crawl(
        site.url("/"), limit=2, scrape_options={"formats": ["html", "links"]}, poll_interval=1
    )
    assert as_html.data and all(
        d.html and d.html.lstrip().startswith("<") and d.markdown is None and d.links
        for d in as_html.data
    )
    with pytest.raises(BadRequestError, match="one content format"):
        firecrawl.start_crawl(site.url("/"), scrape_options={"formats": ["markdown", "html"]})
    with pytest.raises(BadRequestError, match="screenshot"):
        firecrawl.start_crawl(site.url("/"), scrape_options={"formats": ["screenshot"]})


def test_firecrawl_crawl_status_pages_through_next(crawl_server, site, monkeypatch):
    from netsift.server.compat.firecrawl import status

    monkeypatch.setattr(status, "PAGE_SIZE", 2)  # several status pages from a small crawl
    client = Firecrawl(api_key="any", api_url=crawl_server.url(""))
    job = client.crawl(site.url("/"), limit=5, poll_interval=1)
    urls = [document.metadata_typed.source_url for document in job.data]
    assert job.status == "completed" and len(urls) == 5 == len(set(urls))


@pytest.mark.filterwarnings("ignore::pydantic.warnings.PydanticDeprecatedSince20")
def test_firecrawl_v1_crawl_on_its_listener_and_netsift_crawl_on_the_main_port(crawl_doors, site):
    listener, main = crawl_doors.firecrawl, crawl_doors.main
    app = V1FirecrawlApp(api_key="any", api_url=listener.url(""))
    done = app.crawl_url(site.url("/"), limit=3, max_depth=2, poll_interval=1)
    assert done.status == "completed" and len(done.data) == 3 and done.data[0].markdown
    started = app.async_crawl_url(site.url("/"), limit=200, max_depth=10)
    assert started.success and started.url == listener.url(f"/v1/crawl/{started.id}")
    assert app.check_crawl_status(started.id).status in ("scraping", "completed", "cancelled")
    cancelled = app.cancel_crawl(started.id)
    assert cancelled["success"] and cancelled["status"] == "cancelled"
    assert app.check_crawl_status(started.id).status == "cancelled"
    # cancelled again: Firecrawl's answer (nothing runs), the job's own status beside it;
    # netsift's own door says it had already ended
    again = httpx.delete(listener.url(f"/v1/crawl/{started.id}"))
    assert again.status_code == 200 and again.json()["status"] == "cancelled"
    assert again.json()["jobStatus"] == "cancelled"
    assert httpx.delete(main.url(f"/v1/crawl/{started.id}")).status_code == 409
    # netsift's own crawl keeps its route and shape, also for a job Firecrawl's door started
    own = httpx.post(main.url("/v1/crawl"), json={"url": site.url("/"), "max_pages": 2})
    assert own.status_code == 202 and "id" in own.json()
    assert httpx.get(main.url(f"/v1/crawl/{started.id}")).json()["status"] == "cancelled"
    # asked under the prefix, the crawl's URL keeps the prefix (the root's /v1 is netsift's)
    body = {"url": site.url("/"), "limit": 1, "origin": "curl"}
    prefixed = httpx.post(main.url("/firecrawl/v1/crawl"), json=body).json()
    assert prefixed["url"] == main.url(f"/firecrawl/v1/crawl/{prefixed['id']}")
    assert httpx.get(prefixed["url"]).json()["success"] is True


# -- Firecrawl's account endpoints and active crawls ----------------------------------------


@pytest.mark.filterwarnings("ignore::pydantic.warnings.PydanticDeprecatedSince20")
def test_firecrawl_usage_comes_from_the_usage_ledger(doors, offline_web):
    firecrawl = Firecrawl(api_key="any", api_url=doors.main.url(""))
    before = firecrawl.get_credit_usage()
    assert before.remaining_credits == firecrawl_door.UNMETERED  # netsift sells no credits
    firecrawl.scrape(offline_web.url("news.test", "/article"))
    firecrawl.search("rust async runtime", limit=2)
    used = httpx.get(doors.main.url("/v2/team/credit-usage")).json()["data"]["creditsUsed"]
    assert used == 2  # one page read, one search, as GET /v1/usage counts them
    own = httpx.get(doors.main.url("/v1/usage")).json()
    assert own["pages"] + own["searches"] == used
    tokens = firecrawl.get_token_usage()
    assert tokens.remaining_tokens == firecrawl_door.UNMETERED
    v1 = V1FirecrawlApp(api_key="any", api_url=doors.firecrawl.url(""))
    assert v1.get_credit_usage().data.remaining_credits == firecrawl_door.UNMETERED
    assert v1.get_token_usage().data.remaining_tokens == firecrawl_door.UNMETERED
    raw = httpx.get(doors.firecrawl.url("/v1/team/credit-usage")).json()["data"]
    assert raw["credits_used"] == used  # v1 spells its fields in snake_case


def test_firecrawl_active_crawls_are_the_callers_unfinished_ones(settings, site, tmp_path):
    keys = [KEY, "other-key"]
    with serve_doors(
        settings,
        api_keys=keys,
        run_jobs=False,  # nothing runs: a started crawl stays queued
        resolve=site.pins,
        allow_networks=["127.0.0.0/8"],
        jobs_url=f"sqlite:///{tmp_path / 'jobs.sqlite3'}",
    ) as both:
        mine = Firecrawl(api_key=KEY, api_url=both.main.url(""))
        other = Firecrawl(api_key="other-key", api_url=both.main.url(""))
        assert mine.get_active_crawls().crawls == []
        started = mine.start_crawl(site.url("/"), limit=3)
        [active] = mine.get_active_crawls().crawls
        assert active.id == started.id and active.url == site.url("/")
        assert active.options and active.options["max_pages"] == 3
        assert other.get_active_crawls().crawls == []  # another key's crawls are not listed
        queue = mine.get_queue_status()
        assert (queue.jobs_in_queue, queue.active_jobs_in_queue) == (1, 0)
        assert queue.waiting_jobs_in_queue == 1 and queue.most_recent_success is None
        concurrency = mine.get_concurrency()
        assert concurrency.concurrency == 0 and concurrency.max_concurrency >= 1
        assert mine.cancel_crawl(started.id)
        assert mine.get_active_crawls().crawls == []
        headers = {"Authorization": f"Bearer {KEY}"}
        v1 = httpx.get(both.firecrawl.url("/v1/crawl/active"), headers=headers)
        assert v1.status_code == 200 and v1.json() == {"success": True, "crawls": []}


def test_firecrawl_queue_status_names_the_latest_finished_crawl(crawl_server, site):
    firecrawl = Firecrawl(api_key="any", api_url=crawl_server.url(""))
    job = firecrawl.crawl(site.url("/"), limit=2, poll_interval=1)
    assert job.status == "completed"
    assert firecrawl.get_queue_status().most_recent_success is not None
    assert firecrawl.get_active_crawls().crawls == []


# -- Firecrawl's batch scrape, watcher and error pages ---------------------------------------

METADATA_URL = "http://169.254.169.254/latest/meta-data/"


def test_firecrawl_batch_scrape_keeps_every_url_its_errors_and_its_error_pages(crawl_server, site):
    firecrawl = Firecrawl(api_key="any", api_url=crawl_server.url(""))
    urls = [site.url("/docs/1"), site.url("/docs/2"), site.url("/docs/1"), site.url("/missing")]
    job = firecrawl.batch_scrape([*urls, METADATA_URL], formats=["markdown"], poll_interval=1)
    assert job.status == "completed" and (job.completed, job.total) == (4, 4)
    sources = sorted(d.metadata_typed.source_url for d in job.data)
    assert sources == sorted(urls)  # the same URL twice is read twice; the 404 is a document
    [missing] = [d for d in job.data if d.metadata_typed.source_url == site.url("/missing")]
    assert missing.metadata_typed.status_code == 404 and "Not Found" in missing.markdown
    pages = [d for d in job.data if d.metadata_typed.status_code == 200]
    assert all(d.markdown and d.links for d in pages)
    started = firecrawl.start_batch_scrape([METADATA_URL, site.url("/docs/3")])
    assert started.url == crawl_server.url(f"/v2/batch/scrape/{started.id}")
    done = firecrawl.batch_scrape([site.url("/docs/3")], formats=["html", "rawHtml"])
    [document] = done.data
    assert document.html.lstrip().startswith("<") and "<html" in document.raw_html
    while firecrawl.get_batch_scrape_status(started.id).status == "scraping":
        time.sleep(0.2)
    errors = firecrawl.get_batch_scrape_errors(started.id)
    [refused] = errors.errors
    assert refused.url == METADATA_URL and refused.code == "blocked_address"
    with pytest.raises(BadRequestError, match="one content format"):
        firecrawl.start_batch_scrape(urls, formats=["markdown", "html"])
    with pytest.raises(BadRequestError, match="webhook"):
        firecrawl.start_batch_scrape(urls, webhook="http://hooks.test/")


def test_firecrawl_batch_scrape_leaves_invalid_urls_out_in_v2_and_refuses_them_in_v1(
    crawl_doors, site
):
    body = {"urls": ["ftp://files.test/a", site.url("/docs/1")], "formats": ["markdown"]}
    v2 = httpx.post(crawl_doors.main.url("/v2/batch/scrape"), json=body)
    assert v2.status_code == 200 and v2.json()["invalidURLs"] == ["ftp://files.test/a"]
    v1 = httpx.post(crawl_doors.firecrawl.url("/v1/batch/scrape"), json=body)
    assert v1.status_code == 400 and "ftp://files.test/a" in v1.json()["error"]
    only_bad = httpx.post(crawl_doors.main.url("/v2/batch/scrape"), json={"urls": ["ftp://x"]})
    assert only_bad.status_code == 400 and only_bad.json()["details"] == "invalid_input"


def test_firecrawl_batch_scrape_pages_through_next_and_cancels(crawl_server, site, monkeypatch):
    from netsift.server.compat.firecrawl import status

    monkeypatch.setattr(status, "PAGE_SIZE", 2)  # several status pages from a small batch
    firecrawl = Firecrawl(api_key="any", api_url=crawl_server.url(""))
    urls = [site.url(f"/docs/{n}") for n in range(1, 6)]
    job = firecrawl.batch_scrape(urls, poll_interval=1)
    assert sorted(d.metadata_typed.source_url for d in job.data) == sorted(urls)
    many = [site.url(f"/docs/{n}?copy={copy}") for n in range(1, 11) for copy in range(20)]
    started = firecrawl.start_batch_scrape(many, max_concurrency=1)
    assert firecrawl.cancel_batch_scrape(started.id) is True
    cancelled = firecrawl.get_batch_scrape_status(started.id)
    assert cancelled.status == "cancelled" and cancelled.completed < len(many)
    again = httpx.delete(crawl_server.url(f"/v2/batch/scrape/{started.id}"))
    assert again.status_code == 200 and again.json()["jobStatus"] == "cancelled"


@pytest.mark.filterwarnings("ignore::pydantic.warnings.PydanticDeprecatedSince20")
def test_firecrawl_v1_batch_scrape_on_its_listener(crawl_doors, site):
    app = V1FirecrawlApp(api_key="any", api_url=crawl_doors.firecrawl.url(""))
    urls = [site.url("/docs/1"), METADATA_URL]
    done = app.batch_scrape_urls(urls, formats=["markdown"], poll_interval=1)
    assert done.status == "completed" and len(done.data) == 1 and done.data[0].markdown
    started = app.async_batch_scrape_urls(urls, formats=["markdown"])
    assert started.url == crawl_doors.firecrawl.url(f"/v1/batch/scrape/{started.id}")
    for _ in range(60):
        if app.check_batch_scrape_status(started.id).status == "completed":
            break
        time.sleep(0.5)
    [error] = app.check_batch_scrape_errors(started.id).errors
    assert error.url == METADATA_URL and error.code == "blocked_address"


def test_firecrawl_scrape_of_an_error_page_is_a_document_and_netsift_keeps_its_error(
    crawl_doors, site
):
    document = Firecrawl(api_key="any", api_url=crawl_doors.main.url("")).scrape(
        site.url("/missing"), formats=["markdown"]
    )
    assert document.metadata_typed.status_code == 404 and "Not Found" in document.markdown
    own = httpx.post(crawl_doors.main.url("/v1/fetch"), json={"url": site.url("/missing")})
    assert own.status_code == 404 and own.json()["error"]["code"] == "http_error"
    again = httpx.post(crawl_doors.main.url("/v1/fetch"), json={"url": site.url("/missing")})
    assert again.status_code == 404  # the error page read as a document is not served from cache


def _watch(url: str, **options: Any) -> list[dict[str, Any]]:
    """Every message a watcher WebSocket sends, until the server closes it."""
    messages = []
    with connect(url, open_timeout=10, **options) as socket:
        with contextlib.suppress(ConnectionClosedOK):
            while True:
                messages.append(json.loads(socket.recv(timeout=60)))
    assert socket.close_code == 1000 and json.loads(socket.close_reason or "") == {"type": "done"}
    return messages


def test_firecrawl_watcher_sends_catchup_documents_and_done(crawl_server, site):
    firecrawl = Firecrawl(api_key="any", api_url=crawl_server.url(""))
    ws_root = crawl_server.url("").replace("http://", "ws://")
    started = firecrawl.start_crawl(site.url("/"), limit=6, max_discovery_depth=3)
    messages = _watch(f"{ws_root}/v2/crawl/{started.id}")
    catchup, *rest = messages
    assert catchup["type"] == "catchup" and catchup["data"]["status"] in ("scraping", "completed")
    documents = catchup["data"]["data"] + [m["data"] for m in rest if m["type"] == "document"]
    urls = [d["metadata"]["sourceURL"] for d in documents]
    assert len(urls) == 6 == len(set(urls))
    if catchup["data"]["status"] == "scraping":
        final = rest[-1]["data"]  # the final state, without the documents sent already
        assert rest[-1]["type"] == "catchup" and final["status"] == "completed"
        assert final["completed"] == 6 and final["data"] == []
    # once ended: catchup alone, with every document and the final status
    [ended] = _watch(f"{ws_root}/v2/crawl/{started.id}", subprotocols=["fc-any-key"])
    assert ended["data"]["status"] == "completed" and len(ended["data"]["data"]) == 6
    batch = firecrawl.start_batch_scrape([site.url("/docs/1"), site.url("/docs/2")])
    watched = _watch(f"{ws_root}/v2/batch/scrape/{batch.id}")
    kept = watched[0]["data"]["data"] + [m["data"] for m in watched if m["type"] == "document"]
    assert len(kept) == 2
    with connect(f"{ws_root}/v2/crawl/no-such-job", open_timeout=10) as socket:
        with pytest.raises(ConnectionClosed):
            socket.recv(timeout=10)
    assert socket.close_code == 1008 and json.loads(socket.close_reason or "")["type"] == "error"


def test_firecrawl_watcher_takes_the_key_as_header_or_as_firecrawl_js_subprotocol(keyed_server):
    url = keyed_server.url("/v2/crawl/no-such-job").replace("http://", "ws://")

    def refusal(**options: Any) -> str:
        with connect(url, open_timeout=10, **options) as socket:
            with pytest.raises(ConnectionClosed):
                socket.recv(timeout=10)
        assert socket.close_code == 1008
        return str(json.loads(socket.close_reason or "")["error"])

    assert "no job" in refusal(subprotocols=[KEY])  # firecrawl-js offers its key so
    assert "no job" in refusal(additional_headers={"Authorization": f"Bearer {KEY}"})
    assert "not valid" in refusal(subprotocols=["wrong-key"])
    assert "API key" in refusal()


def test_firecrawl_v1_watcher_ends_with_the_close_alone(crawl_doors, site):
    listener = crawl_doors.firecrawl
    body = {"url": site.url("/"), "limit": 5}
    started = httpx.post(listener.url("/v1/crawl"), json=body).json()
    ws_root = listener.url("").replace("http://", "ws://")
    catchup, *rest = _watch(f"{ws_root}/v1/crawl/{started['id']}")
    assert catchup["type"] == "catchup" and {m["type"] for m in rest} <= {"document"}
    assert len(catchup["data"]["data"]) + len(rest) == 5  # each document once


def test_firecrawl_sdk_watcher_reports_the_crawl_completed(crawl_server, site):
    firecrawl = Firecrawl(api_key="any", api_url=crawl_server.url(""))
    started = firecrawl.start_crawl(site.url("/"), limit=4)
    statuses: list[str] = []
    documents: list[dict[str, Any]] = []
    watcher = firecrawl.watcher(started.id, kind="crawl", poll_interval=1, timeout=60)
    watcher.add_listener(lambda job: statuses.append(job.status))
    watcher.add_event_listener("document", lambda detail: documents.append(detail["data"]))
    watcher.start()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (statuses and statuses[-1] == "completed"):
        time.sleep(0.2)
    watcher.stop()
    assert statuses[-1] == "completed"
    assert len(documents) == 4  # sent over the WebSocket (polling dispatches no documents)


def test_firecrawl_crawl_of_a_refused_start_url_is_403(crawl_server):
    firecrawl = Firecrawl(api_key="any", api_url=crawl_server.url(""))
    with pytest.raises(WebsiteNotSupportedError):
        firecrawl.start_crawl(METADATA_URL, limit=2)


def test_firecrawl_crawl_sitemap_choice_reaches_the_crawl(crawl_server, site):
    body = {"url": site.url("/"), "limit": 2, "sitemap": "skip"}
    started = httpx.post(crawl_server.url("/v2/crawl"), json=body).json()
    assert (
        httpx.get(crawl_server.url(f"/v1/crawl/{started['id']}")).json()["params"]["sitemap"]
        == "skip"
    )
    v1 = {"url": site.url("/"), "limit": 2, "sitemapOnly": True}
    started = httpx.post(crawl_server.url("/firecrawl/v1/crawl"), json=v1).json()
    assert (
        httpx.get(crawl_server.url(f"/v1/crawl/{started['id']}")).json()["params"]["sitemap"]
        == "only"
    )


# -- the Firecrawl listener of `netsift serve` ------------------------------------------------


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::pydantic.warnings.PydanticDeprecatedSince20")
@pytest.mark.parametrize("workers", [1, 2])
def test_netsift_serve_opens_the_firecrawl_listener(tmp_path, sims, workers):
    port, listener = free_port(), free_port()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("NETSIFT_", "PROMETHEUS_"))},
        **sims.env(),
        "NETSIFT_PROVIDERS": "tavily",
        "NETSIFT_CAPABILITIES": "search",
        "NETSIFT_DATA_DIR": str(tmp_path / "data"),
        "NETSIFT_CACHE_URL": "memory://",
        "NETSIFT_API_KEYS": KEY,
    }
    command = [sys.executable, "-m", "netsift", "serve", "--port", str(port)]
    command += ["--firecrawl-port", str(listener), "--workers", str(workers)]
    proc = subprocess.Popen(
        command, env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    try:
        main = f"http://127.0.0.1:{port}"
        wait_ready(proc, main)
        found = V1FirecrawlApp(api_key=KEY, api_url=f"http://127.0.0.1:{listener}").search("rust")
        assert found.success and found.data
        headers = {"Authorization": f"Bearer {KEY}"}
        own = httpx.post(f"{main}/v1/search", json={"query": "rust"}, headers=headers)
        assert own.status_code == 200 and "attempts" in own.json()
        info = httpx.get(f"{main}/v1/info", headers=headers).json()["compat"]["firecrawl"]
        assert info == {"base_url": f"http://127.0.0.1:{listener}", "versions": ["v1", "v2"]}
        metrics = httpx.get(f"{main}/metrics", headers=headers).text
        assert "/firecrawl/v1/search" in metrics  # the listener's calls in the server's metrics
    finally:
        proc.send_signal(signal.SIGINT)
        output = proc.communicate(timeout=30)[0].decode()
    assert proc.returncode == 0, output
    assert f"Firecrawl-compatible API on http://127.0.0.1:{listener}" in output


def test_the_firecrawl_port_must_differ_from_the_main_port_and_be_free(tmp_path):
    invoke = in_process({"NETSIFT_DATA_DIR": str(tmp_path), "NETSIFT_CACHE_URL": "memory://"})
    port = str(free_port())
    run = invoke("serve", "--port", port, "--firecrawl-port", port)
    assert run.code == 2 and "--firecrawl-port must differ" in run.stderr
    with listen() as busy:
        busy.listen()
        taken = str(busy.getsockname()[1])
        run = invoke("serve", "--port", port, "--firecrawl-port", taken)
    assert run.code == 5 and "choose another with --firecrawl-port" in run.stderr


def wait_ready(proc: subprocess.Popen[bytes], base: str, *, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while True:
        with contextlib.suppress(httpx.TransportError):
            if httpx.get(f"{base}/readyz").status_code == 200:
                return
        assert time.monotonic() < deadline and proc.poll() is None, "server did not start"
        time.sleep(0.1)
