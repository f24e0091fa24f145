"""Firecrawl's `changeTracking` format through firecrawl-py (v2 and v1) against a real server
and a small site whose pages the tests rewrite between scrapes: new, same, changed, removed;
tags and API keys keep separate histories; the git-diff in parse-diff's shape; the json mode
with the scripted model and, without one, a warning; crawl, batch and search documents too."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from firecrawl import Firecrawl
from firecrawl.v1 import V1FirecrawlApp
from firecrawl.v2.utils.error_handler import BadRequestError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from netsift.config import Settings
from netsift.server import create_app
from tests.integration.research.fixtures import *  # noqa: F403
from tests.integration.research.fixtures import (
    ResearchSettings,
    ResearchWeb,
    ScriptedLLM,
)
from tests.integration.research.web import QUESTION
from tests.offline_web.llm import MODEL
from tests.offline_web.server import LiveServer, serve

HOST = "watched.test"
KEYS = ["changes-key-one", "changes-key-two"]
LAMP = "Desk Lamp"


def _page(title: str, *paragraphs: str, links: tuple[str, ...] = ()) -> str:
    body = "".join(f"<p>{text}</p>" for text in paragraphs)
    anchors = "".join(f'<p><a href="{href}">{href} page</a></p>' for href in links)
    return (
        f"<html><head><title>{title}</title></head><body><article><h1>{title}</h1>"
        f"{body}{anchors}</article></body></html>"
    )


PRICE_12 = _page(
    LAMP,
    "The Desk Lamp costs 12 euros and ships from our workshop in Ghent within two days.",
    "Its arm folds flat, and the warm light suits a long evening of reading at the desk.",
)
PRICE_15 = PRICE_12.replace("12 euros", "15 euros")


@dataclass
class Site:
    """Pages by path, each (status, HTML), rewritten by the tests between scrapes."""

    server: LiveServer
    pages: dict[str, tuple[int, str]] = field(default_factory=dict)

    def url(self, path: str) -> str:
        return f"http://{HOST}:{self.server.port}{path}"


@pytest.fixture
def site() -> Iterator[Site]:
    pages: dict[str, tuple[int, str]] = {}

    async def page(request: Request) -> HTMLResponse:
        status, html = pages.get(request.url.path, (404, _page("Not found", "No such page.")))
        return HTMLResponse(html, status_code=status)

    with serve(Starlette(routes=[Route("/{path:path}", page)])) as server:
        yield Site(server, pages)


def _settings(make_settings: Any, **overrides: Any) -> Settings:
    overrides.setdefault("resolve", [f"{HOST}:127.0.0.1"])
    overrides.setdefault("allow_networks", ["127.0.0.0/8"])
    overrides.setdefault("capabilities", ["search", "fetch"])
    overrides.setdefault("api_keys", KEYS)
    overrides.setdefault("respect_robots", False)
    settings: Settings = make_settings(**overrides)
    return settings


@pytest.fixture
def server(make_settings: Any) -> Iterator[LiveServer]:
    with serve(create_app(_settings(make_settings)), lifespan="on") as live:
        yield live


def _tracked(**options: Any) -> list[Any]:
    return ["markdown", {"type": "changeTracking", **options}]


def test_new_same_changed_and_removed(server: LiveServer, site: Site) -> None:
    firecrawl = Firecrawl(api_key=KEYS[0], api_url=server.url(""))
    url = site.url("/lamp")
    site.pages["/lamp"] = (200, PRICE_12)
    first = firecrawl.scrape(url, formats=_tracked(), max_age=0).change_tracking
    assert first == {"previousScrapeAt": None, "changeStatus": "new", "visibility": "visible"}
    # Whitespace alone is no change (Firecrawl's rule)
    site.pages["/lamp"] = (200, PRICE_12.replace("<p>Its arm", "<p>\n\n   Its arm"))
    second = firecrawl.scrape(url, formats=_tracked(), max_age=0).change_tracking
    assert second and second["changeStatus"] == "same" and second["previousScrapeAt"]
    assert "diff" not in second
    site.pages["/lamp"] = (200, PRICE_15)
    third = firecrawl.scrape(url, formats=_tracked(), max_age=0).change_tracking
    assert third and third["changeStatus"] == "changed"
    assert third["previousScrapeAt"] > second["previousScrapeAt"]
    site.pages["/lamp"] = (404, _page("Not found", "This lamp is no longer sold here."))
    gone = firecrawl.scrape(url, formats=_tracked(), max_age=0)
    assert gone.metadata and gone.metadata.status_code == 404
    assert gone.change_tracking and gone.change_tracking["changeStatus"] == "removed"


def test_tags_and_api_keys_keep_separate_histories(server: LiveServer, site: Site) -> None:
    one = Firecrawl(api_key=KEYS[0], api_url=server.url(""))
    two = Firecrawl(api_key=KEYS[1], api_url=server.url(""))
    url = site.url("/lamp")
    site.pages["/lamp"] = (200, PRICE_12)

    def status(client: Firecrawl, **options: Any) -> str:
        tracked = client.scrape(url, formats=_tracked(**options), max_age=0).change_tracking
        assert tracked is not None
        return str(tracked["changeStatus"])

    assert status(one) == "new"
    assert status(one, tag="daily") == "new"  # a tag is a history of its own
    assert status(two) == "new"  # so is another key's
    site.pages["/lamp"] = (200, PRICE_15)
    assert status(one, tag="daily") == "changed"
    assert status(one, tag="daily") == "same"
    assert status(one) == "changed"  # the untagged history still holds the 12 euros
    assert status(two, tag="daily") == "new"


def test_git_diff_is_parse_diffs_structure(server: LiveServer, site: Site) -> None:
    firecrawl = Firecrawl(api_key=KEYS[0], api_url=server.url(""))
    url = site.url("/lamp")
    site.pages["/lamp"] = (200, PRICE_12)
    firecrawl.scrape(url, formats=_tracked(modes=["git-diff"]), max_age=0)
    site.pages["/lamp"] = (200, PRICE_15)
    tracked = firecrawl.scrape(url, formats=_tracked(modes=["git-diff"]), max_age=0).change_tracking
    assert tracked and tracked["changeStatus"] == "changed"
    diff = tracked["diff"]
    assert diff["text"].startswith("@@ -")
    assert "-The Desk Lamp costs 12 euros" in diff["text"]
    assert "+The Desk Lamp costs 15 euros" in diff["text"]
    (only,) = diff["json"]["files"]
    assert only["from"] is None and only["to"] is None
    (chunk,) = only["chunks"]
    assert chunk["content"] == diff["text"].splitlines()[0]
    removed = [c for c in chunk["changes"] if c["type"] == "del"]
    added = [c for c in chunk["changes"] if c["type"] == "add"]
    normal = [c for c in chunk["changes"] if c["type"] == "normal"]
    assert [c["content"][:28] for c in removed] == ["-The Desk Lamp costs 12 euro"]
    assert [c["content"][:28] for c in added] == ["+The Desk Lamp costs 15 euro"]
    assert removed[0]["del"] is True and added[0]["add"] is True
    assert removed[0]["ln"] == added[0]["ln"]  # the same line, on either side
    assert normal and all(c["normal"] is True and c["ln1"] and c["ln2"] for c in normal)
    lines = diff["text"].splitlines()
    assert [c["content"] for c in chunk["changes"]] == lines[1:]
    # an unchanged page has no diff
    again = firecrawl.scrape(url, formats=_tracked(modes=["git-diff"]), max_age=0).change_tracking
    assert again and again["changeStatus"] == "same" and "diff" not in again


PRICE_SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "price": {"type": "string"}},
}


def test_json_mode_compares_the_schemas_fields_with_a_model(
    make_settings: Any, site: Site, llm: ScriptedLLM
) -> None:
    settings = _settings(make_settings, llm_model=MODEL, openai_base_url=llm.base_url)
    site.pages["/lamp"] = (200, PRICE_12)
    formats = _tracked(modes=["json"], schema=PRICE_SCHEMA)
    with serve(create_app(settings), lifespan="on") as live:
        firecrawl = Firecrawl(api_key=KEYS[0], api_url=live.url(""))
        firecrawl.scrape(site.url("/lamp"), formats=formats, max_age=0)
        assert llm.state.count("extract") == 0  # a new page has nothing to compare
        site.pages["/lamp"] = (200, PRICE_15)
        llm.state.extractions += [
            {
                "data": {"name": LAMP, "price": "12 euros"},
                "evidence": {"name": ["@Desk Lamp costs"], "price": ["@12 euros"]},
            },
            {
                "data": {"name": LAMP, "price": "15 euros"},
                "evidence": {"name": ["@Desk Lamp costs"], "price": ["@15 euros"]},
            },
        ]
        tracked = firecrawl.scrape(site.url("/lamp"), formats=formats, max_age=0).change_tracking
    assert tracked and tracked["changeStatus"] == "changed"
    assert tracked["json"] == {"price": {"previous": "12 euros", "current": "15 euros"}}
    assert llm.state.count("extract") == 2  # the previous reading, then this one


def test_json_mode_without_a_model_warns_and_invents_nothing(
    server: LiveServer, site: Site
) -> None:
    formats = _tracked(modes=["json", "git-diff"], schema=PRICE_SCHEMA)
    body = {"url": site.url("/lamp"), "formats": formats, "maxAge": 0}
    headers = {"Authorization": f"Bearer {KEYS[0]}"}
    site.pages["/lamp"] = (200, PRICE_12)
    httpx.post(server.url("/v2/scrape"), json=body, headers=headers, timeout=30)
    site.pages["/lamp"] = (200, PRICE_15)
    answer = httpx.post(server.url("/v2/scrape"), json=body, headers=headers, timeout=30)
    document = answer.json()["data"]
    tracked = document["changeTracking"]
    assert tracked["changeStatus"] == "changed" and "json" not in tracked
    assert tracked["diff"]["text"]  # the diff does not need the model
    assert "language model" in document["warning"]


def test_changetracking_needs_markdown_and_a_json_mode_needs_a_schema_or_prompt(
    server: LiveServer, site: Site
) -> None:
    firecrawl = Firecrawl(api_key=KEYS[0], api_url=server.url(""))
    site.pages["/lamp"] = (200, PRICE_12)
    with pytest.raises(BadRequestError, match="requires the markdown format"):
        firecrawl.scrape(site.url("/lamp"), formats=["html", {"type": "changeTracking"}])
    headers = {"Authorization": f"Bearer {KEYS[0]}"}
    refused: list[dict[str, Any]] = [
        {"formats": ["html", "changeTracking"]},
        {"formats": ["markdown", {"type": "changeTracking", "modes": ["json"]}]},
        {"formats": ["markdown", {"type": "changeTracking", "modes": ["words"]}]},
        {"formats": ["markdown", {"type": "changeTracking", "tag": "t" * 300}]},
    ]
    for extra in refused:
        body: dict[str, Any] = {"url": site.url("/lamp"), **extra}
        answer = httpx.post(
            server.url("/firecrawl/v1/scrape"), json=body, headers=headers, timeout=30
        )
        assert answer.status_code == 400, (extra, answer.text)
        assert answer.json()["success"] is False
    crawl: dict[str, Any] = {
        "url": site.url("/"),
        "scrapeOptions": {"formats": ["html", "changeTracking"]},
    }
    batch: dict[str, Any] = {"urls": [site.url("/lamp")], "formats": ["links", "changeTracking"]}
    for path, job in (("/v2/crawl", crawl), ("/v2/batch/scrape", batch)):
        answer = httpx.post(server.url(path), json=job, headers=headers, timeout=30)
        assert answer.status_code == 400 and "markdown" in answer.json()["error"], answer.text


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.filterwarnings("ignore::pydantic.warnings.PydanticDeprecatedSince20")
def test_v1_change_tracking_options(make_settings: Any, site: Site) -> None:
    from tests.e2e.test_compat import serve_doors

    site.pages["/lamp"] = (200, PRICE_12)
    with serve_doors(lambda **more: _settings(make_settings, **more)) as doors:
        app = V1FirecrawlApp(api_key=KEYS[0], api_url=doors.firecrawl.url(""))
        options = {"modes": ["git-diff"], "tag": "v1"}
        formats = ["markdown", "changeTracking"]
        first = app.scrape_url(
            site.url("/lamp"), formats=formats, change_tracking_options=options, max_age=0
        )
        site.pages["/lamp"] = (200, PRICE_15)
        second = app.scrape_url(
            site.url("/lamp"), formats=formats, change_tracking_options=options, max_age=0
        )
    assert first.changeTracking and first.changeTracking.changeStatus == "new"
    assert second.changeTracking and second.changeTracking.changeStatus == "changed"
    assert second.changeTracking.previousScrapeAt
    assert (
        second.changeTracking.diff
        and "+The Desk Lamp costs 15" in second.changeTracking.diff["text"]
    )


def test_a_document_made_again_compares_as_it_first_did(
    server: LiveServer, site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With nothing kept in the process (eviction, or a poll reaching another server worker),
    each poll makes the document again; its comparison comes from the snapshot store."""
    from netsift.server.compat.firecrawl import job_formats
    from netsift.server.compat.kept import Kept

    monkeypatch.setattr(job_formats, "_made", Kept(size=0))
    firecrawl = Firecrawl(api_key=KEYS[0], api_url=server.url(""))
    site.pages["/lamp"] = (200, PRICE_12)
    firecrawl.scrape(site.url("/lamp"), formats=_tracked(), max_age=0)
    site.pages["/lamp"] = (200, PRICE_15)
    started = firecrawl.start_batch_scrape([site.url("/lamp")], formats=_tracked(), max_age=0)
    deadline = time.monotonic() + 60
    while (batch := firecrawl.get_batch_scrape_status(started.id)).status != "completed":
        assert time.monotonic() < deadline, batch
        time.sleep(0.3)
    polls = [batch.data[0]] + [firecrawl.get_batch_scrape_status(started.id).data[0] for _ in "ab"]
    assert [d.change_tracking and d.change_tracking["changeStatus"] for d in polls] == [
        "changed"
    ] * 3


def test_batch_and_crawl_documents_join_the_callers_history(server: LiveServer, site: Site) -> None:
    firecrawl = Firecrawl(api_key=KEYS[0], api_url=server.url(""))
    site.pages["/"] = (200, _page("Shop", "Our lamps, chairs and desks.", links=("/lamp",)))
    site.pages["/lamp"] = (200, PRICE_12)
    formats = _tracked(modes=["git-diff"])
    started = firecrawl.start_batch_scrape([site.url("/lamp")], formats=formats)
    deadline = time.monotonic() + 60
    while (batch := firecrawl.get_batch_scrape_status(started.id)).status != "completed":
        assert time.monotonic() < deadline, batch
        time.sleep(0.3)
    (document,) = batch.data
    assert document.change_tracking and document.change_tracking["changeStatus"] == "new"
    # polled again, the document is the same: compared once, when first made
    (again,) = firecrawl.get_batch_scrape_status(started.id).data
    assert again.change_tracking == document.change_tracking
    site.pages["/lamp"] = (200, PRICE_15)
    crawl = firecrawl.crawl(site.url("/"), limit=5, scrape_options={"formats": formats})
    assert crawl.status == "completed"
    by_url = {d.metadata.source_url: d.change_tracking for d in crawl.data if d.metadata}
    assert by_url[site.url("/")]["changeStatus"] == "new"
    lamp = by_url[site.url("/lamp")]
    assert lamp["changeStatus"] == "changed" and "+The Desk Lamp costs 15" in lamp["diff"]["text"]
    scraped = firecrawl.scrape(site.url("/lamp"), formats=_tracked(), max_age=0)
    assert scraped.change_tracking and scraped.change_tracking["changeStatus"] == "same"


def test_search_results_are_tracked(
    research_settings: ResearchSettings, research_web: ResearchWeb
) -> None:
    with serve(create_app(research_settings(with_llm=False)), lifespan="on") as live:
        firecrawl = Firecrawl(api_key="any", api_url=live.url(""))
        options = {"formats": _tracked(), "maxAge": 0}
        first = firecrawl.search(QUESTION, limit=3, scrape_options=options)
        second = firecrawl.search(QUESTION, limit=3, scrape_options=options)
    assert first.web and second.web
    assert {item.change_tracking["changeStatus"] for item in first.web} == {"new"}
    assert {item.change_tracking["changeStatus"] for item in second.web} == {"same"}
