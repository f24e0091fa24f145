"""The toolbelt (issue 29) through every door: robots_check, wayback_lookup, citation_pack,
dedupe_rank and OCR, against the offline web (rules.test, scans.test) and the Internet
Archive simulator (tests/offline_web/providers/archive.py); bad input answers its error code.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import Client as MCPClient
from websockets.asyncio.client import connect

from netsift import tools
from netsift.client import Client
from netsift.config import Settings
from netsift.errors import BlockedAddress, Disabled, HTTPError, InvalidInput, NotFound
from netsift.fetch.ocr import ocr_missing
from netsift.mcp import create_server
from netsift.models import Citation, ResearchReport, SearchResult
from netsift.server import create_app
from tests.e2e.cli import CliCall, in_process
from tests.offline_web.fixtures import OfflineWeb
from tests.offline_web.providers.fixtures import ProviderSims
from tests.offline_web.server import serve

TOOLBELT = ["search", "fetch", "robots", "wayback", "citations"]


@pytest.fixture
def settings(door_settings: Callable[..., Settings]) -> Settings:
    return door_settings(capabilities=TOOLBELT)


@pytest.fixture
def cli(sims: ProviderSims, offline_web: OfflineWeb, tmp_path: Path) -> CliCall:
    pins = [*sims.pins, *offline_web.pins]
    return in_process(
        {
            **sims.env(),
            "NETSIFT_RESOLVE": ",".join(pins),
            "NETSIFT_DATA_DIR": str(tmp_path / "data"),
            "NETSIFT_CACHE_URL": "memory://",
            "NETSIFT_CAPABILITIES": ",".join(TOOLBELT),
        }
    )


@pytest.fixture
def api(settings: Settings) -> Iterator[httpx.Client]:
    with serve(create_app(settings), lifespan="on") as live:
        with httpx.Client(base_url=live.url("/"), timeout=60) as http:
            yield http


async def mcp_call(client: Client, name: str, arguments: dict[str, Any]) -> Any:
    async with MCPClient(create_server(client=client)) as mcp:
        result = await mcp.call_tool(name, arguments)
    return result.structured_content


# robots_check ---------------------------------------------------------------------------------


async def test_robots_check_names_the_rule_and_the_delay(settings, offline_web):
    async with Client(settings) as client:
        ledger = await client.robots_check(offline_web.url("rules.test", "/private/ledger"))
        press = await client.robots_check(offline_web.url("rules.test", "/private/press/release"))
        pdf = await client.robots_check(offline_web.url("rules.test", "/files/plan.pdf"))
        bot = await client.robots_check(
            offline_web.url("rules.test", "/open"), user_agent="ArchiveBot/2.1"
        )
        missing = await client.robots_check(offline_web.url("robots4xx.test", "/page"))
    assert (ledger.allowed, ledger.rule, ledger.group) == (False, "Disallow: /private/", "*")
    assert ledger.crawl_delay == 3 and ledger.robots_status == 200
    assert ledger.robots_url == offline_web.url("rules.test", "/robots.txt")
    assert (press.allowed, press.rule) == (True, "Allow: /private/press/")
    assert pdf.allowed is False and pdf.rule is not None and ".pdf" in pdf.rule
    assert (bot.allowed, bot.group, bot.crawl_delay) == (False, "archivebot", 10)
    assert (missing.allowed, missing.robots_status, missing.rule) == (True, 404, None)
    # one robots.txt reading per origin: the four questions on rules.test fetched it once
    assert offline_web.state.hits("rules.test", "/robots.txt") == 1


async def test_robots_check_is_guarded_and_validated(door_settings, settings):
    async with Client(settings) as client:
        with pytest.raises(BlockedAddress):
            await client.robots_check("http://169.254.169.254/latest/meta-data/")
        with pytest.raises(InvalidInput):
            await client.robots_check("http://rules.test/", user_agent="")
    async with Client(door_settings(capabilities=["fetch"])) as client:
        with pytest.raises(Disabled):
            await client.robots_check("http://rules.test/")


# wayback_lookup -------------------------------------------------------------------------------


async def test_wayback_finds_the_snapshot_nearest_a_date_and_reads_it(settings, offline_web):
    url = offline_web.url("news.test", "/article")
    async with Client(settings) as client:
        newest = await client.wayback_lookup(url)
        found = await client.wayback_lookup(url, at="2020-06-01", read=True, max_length=400)
    assert newest.snapshot is not None and newest.snapshot.timestamp == "20240101093000"
    assert next(c.timestamp for c in newest.captures) == "20240101093000"
    snap = found.snapshot
    assert snap is not None and snap.timestamp == "20210704120000"
    assert snap.original == url and snap.status == 200 and snap.mimetype == "text/html"
    assert snap.digest and snap.captured_at == datetime(2021, 7, 4, 12, tzinfo=UTC)
    assert [c.timestamp for c in found.captures] == [
        "20210704120000",
        "20190315083000",
        "20240101093000",
    ]
    page = found.page
    assert page is not None and "captured by the archive on 2021-07-04" in page.content
    assert page.metadata.archived_from == url
    assert page.metadata.archived_at == snap.captured_at
    assert "id_/" in page.url  # the archived bytes, not the toolbar's rewritten copy


async def test_wayback_save_and_the_lagging_availability_api(settings, sims, offline_web):
    url = offline_web.url("news.test", "/never-archived/notice")
    async with Client(settings) as client:
        before = await client.wayback_lookup(url)
        saved = await client.wayback_lookup(url, save=True)
        sims["archive"].set("lagging", endpoint="wayback")
        lagging = await client.wayback_lookup(offline_web.url("news.test", "/article"))
    assert before.snapshot is None and before.captures == []
    assert saved.saved and saved.snapshot is not None
    assert saved.snapshot.captured_at.date() == datetime.now(UTC).date()
    # the availability API said nothing; the CDX index answered with the newest
    assert lagging.snapshot is not None and lagging.snapshot.timestamp == "20240101093000"


async def test_wayback_failures_are_error_codes(settings, door_settings, sims):
    # the archive's own address passes the guard like any request: a metadata address is refused
    metadata = door_settings(capabilities=TOOLBELT, wayback_url="http://169.254.169.254")
    async with Client(metadata) as client:
        with pytest.raises(BlockedAddress):
            await client.wayback_lookup("http://news.test/article")
    async with Client(settings) as client:
        with pytest.raises(InvalidInput):
            await client.wayback_lookup("http://news.test/article", at="last tuesday")
        sims["archive"].set("server_error")
        with pytest.raises(HTTPError) as failed:
            await client.wayback_lookup("http://news.test/article")
    assert failed.value.retryable


# citation_pack ---------------------------------------------------------------------------------


async def test_citation_pack_of_urls(settings, offline_web):
    article = offline_web.url("news.test", "/article") + "?utm_source=feed"
    dead = offline_web.url("status.test", "/404")
    async with Client(settings) as client:
        pack = await client.citation_pack([article, dead], format="bibtex")
    first, second = pack.sources
    assert first.n == 1 and first.title and first.site == "The Coastal Courier"
    assert "utm_source" not in first.canonical_url and first.accessed is not None
    assert first.content_sha256 and len(first.content_sha256) == 64
    assert first.archived_url and "/web/20240101093000/" in first.archived_url
    assert second.error is not None and second.error["code"] == "http_error"
    assert pack.output.count("@online{") == 2 and "urldate" in pack.output
    assert "Archived at" in pack.output


async def test_citation_pack_of_a_report_keeps_its_quotes(settings, offline_web):
    url = offline_web.url("news.test", "/article")
    report = ResearchReport(
        question="What happened at the harbour?",
        answer="The storm closed it [1]; it reopened [2].",
        citations=[
            Citation(n=1, url=url, title="Storm", quote="the first quote"),
            Citation(n=2, url=url + "#later", title="Storm", quote="the second quote"),
        ],
    )
    async with Client(settings) as client:
        markdown = await client.citation_pack(report=report, format="markdown", archive="off")
        csl = await client.citation_pack(report=report.model_dump(mode="json"))
    (source,) = markdown.sources  # one page cited twice is one source with both quotes
    assert source.passages == ["the first quote", "the second quote"]
    assert source.archived_url is None
    assert markdown.output.startswith("1. ") and "> the second quote" in markdown.output
    item = json.loads(csl.output)[0]
    assert item["type"] == "webpage" and item["URL"] == source.canonical_url
    assert item["accessed"]["date-parts"][0][0] == datetime.now(UTC).year


async def test_citation_pack_refuses_bad_input(settings):
    async with Client(settings) as client:
        with pytest.raises(InvalidInput, match="one of urls, report or job_id"):
            await client.citation_pack()
        with pytest.raises(InvalidInput, match="one of urls, report or job_id"):
            await client.citation_pack(["http://news.test/"], job_id="abc")
        with pytest.raises(InvalidInput):
            await client.citation_pack(["http://news.test/"], format="apa")  # type: ignore[arg-type]
        with pytest.raises(NotFound):
            await client.citation_pack(job_id="no-such-job")


# dedupe_rank -----------------------------------------------------------------------------------


def _results() -> list[SearchResult]:
    def result(url: str, title: str, source: str) -> SearchResult:
        return SearchResult(title=title, url=url, snippet=f"{title}: the full story", source=source)

    return [
        result("https://a.example/tokio?utm_source=x", "Tokio runtime guide", "brave"),
        result("https://b.example/garden", "Gardening in March", "brave"),
        result("https://a.example/tokio", "Tokio runtime guide", "duckduckgo"),
        result("https://c.example/async-std", "async-std runtime notes", "duckduckgo"),
    ]


async def test_dedupe_rank_folds_and_ranks(settings):
    async with Client(settings) as client:
        ranked = await client.dedupe_rank("tokio runtime", _results(), count=2)
        with pytest.raises(InvalidInput):
            await client.dedupe_rank("tokio", [])
    assert next(r.url for r in ranked.results).startswith("https://a.example/tokio")
    assert ranked.results[0].engines == ["brave", "duckduckgo"]
    assert (ranked.folded, ranked.dropped, len(ranked.results)) == (1, 1, 2)


# OCR ---------------------------------------------------------------------------------------------

needs_tesseract = pytest.mark.skipif(
    ocr_missing() is not None, reason=f"OCR cannot run here: {ocr_missing()}"
)


@needs_tesseract
async def test_an_image_only_pdf_is_read_by_ocr(settings, offline_web):
    async with Client(settings) as client:
        scan = await client.fetch(offline_web.url("scans.test", "/scan.pdf"))
        mixed = await client.fetch(offline_web.url("scans.test", "/mixed.pdf"))
    text = " ".join(scan.content.split()).lower()
    assert "lighthouse keeper" in text and "granite" in text
    assert scan.ocr_pages == [1, 2] and scan.page_count == 2
    assert mixed.ocr_pages == [2]  # the typed page's text layer is read as it is
    assert "typed cover page" in mixed.content and "granite" in mixed.content.lower()


# the doors ---------------------------------------------------------------------------------------


def test_cli_doors(cli, offline_web):
    ledger = offline_web.url("rules.test", "/private/ledger")
    article = offline_web.url("news.test", "/article")
    checked = cli("robots-check", ledger, "--json")
    assert checked.code == 0 and checked.json()["allowed"] is False
    human = cli("robots-check", ledger)
    assert human.code == 0 and human.stdout.startswith("disallowed:")
    archived = cli("wayback", article, "--at", "20190101", "--json")
    assert archived.json()["snapshot"]["timestamp"] == "20190315083000"
    bibtex = cli("citation-pack", article, "-f", "bibtex")
    assert bibtex.code == 0 and bibtex.stdout.startswith("@online{")
    bad = cli("wayback", article, "--at", "someday", "--json")
    assert bad.code == 2 and bad.json()["error"]["code"] == "invalid_input"
    missing = cli("citation-pack", "--report", "/nonexistent/report.json")
    assert missing.code == 2 and "no such file" in missing.stderr


def test_cli_citation_pack_of_a_report_file(cli, offline_web, tmp_path):
    url = offline_web.url("news.test", "/article")
    report = ResearchReport(
        question="q?", answer="a [1]", citations=[Citation(n=1, url=url, quote="a quote")]
    )
    path = tmp_path / "report.json"
    path.write_text(report.model_dump_json())
    done = cli("citation-pack", "--report", str(path), "--format", "markdown", "--archive", "off")
    assert done.code == 0 and "> a quote" in done.stdout


def test_cli_dedupe_rank_reads_a_search_response(cli, tmp_path):
    path = tmp_path / "results.json"
    path.write_text(json.dumps({"results": [r.model_dump() for r in _results()]}))
    done = cli("dedupe-rank", str(path), "-q", "tokio runtime", "--json")
    assert done.code == 0 and done.json()["folded"] == 1


@pytest.mark.parametrize(
    ("command", "good", "bad_code"),
    [
        ("robots-check", {"url": "http://rules.test:{port}/open"}, "invalid_url"),
        ("wayback", {"url": "http://news.test:{port}/article", "at": "2019"}, "invalid_url"),
        ("citation-pack", {"urls": ["http://news.test:{port}/article"]}, "invalid_input"),
        ("dedupe-rank", {"query": "tokio", "results": "{results}"}, "invalid_input"),
        ("meta", {"url": "http://news.test:{port}/article"}, "invalid_url"),
        ("map", {"url": "http://map.test:{port}/", "limit": 3}, "invalid_url"),
        ("extract", {"html": "<title>T</title><p>Hello there, reader.</p>"}, "invalid_input"),
    ],
)
def test_every_tool_serves_json_lines(cli, offline_web, command, good, bad_code):
    """One result per good line, one error object per bad line, and the next line served."""
    line = json.dumps(good).replace("{port}", str(offline_web.port))
    line = line.replace('"{results}"', json.dumps([r.model_dump() for r in _results()]))
    bad = {"url": "not a url"} if bad_code == "invalid_url" else {"colour": "red"}
    done = cli(command, "--stdin", input=f"{line}\n{json.dumps(bad)}\nnot json\n{line}\n")
    assert done.code == 0, done.stderr
    answers = done.lines()
    assert len(answers) == 4
    assert "error" not in answers[0] and "error" not in answers[3], answers
    assert answers[1]["error"]["code"] in (bad_code, "invalid_input")
    assert answers[2]["error"]["code"] == "invalid_input"


def test_tools_prints_each_json_lines_schema(cli):
    done = cli("tools", "--format", "jsonschema")
    schemas = {entry["command"]: entry for entry in done.json()}
    assert {"search", "fetch", "robots-check", "wayback", "citation-pack", "dedupe-rank"} <= set(
        schemas
    )
    assert schemas["robots-check"]["tool"] == "robots_check"
    assert schemas["robots-check"]["input_schema"]["required"] == ["url"]
    assert "html" in schemas["extract"]["input_schema"]["required"]
    assert schemas["wayback"]["input_schema"]["additionalProperties"] is False


def test_http_doors(api, offline_web):
    ledger = offline_web.url("rules.test", "/private/ledger")
    article = offline_web.url("news.test", "/article")
    checked = api.post("/v1/robots-check", json={"url": ledger, "request_id": "r1"})
    assert checked.status_code == 200 and checked.json()["rule"] == "Disallow: /private/"
    archived = api.post("/v1/wayback", json={"url": article, "at": "2024"})
    assert archived.json()["snapshot"]["timestamp"] == "20240101093000"
    pack = api.post("/v1/citation-pack", json={"urls": [article], "format": "markdown"})
    assert pack.status_code == 200 and pack.json()["output"].startswith("1. ")
    ranked = api.post(
        "/v1/dedupe-rank",
        json={"query": "tokio", "results": [r.model_dump() for r in _results()]},
    )
    assert ranked.json()["folded"] == 1
    bad = api.post("/v1/wayback", json={"url": article, "at": "soon"})
    assert bad.status_code in (400, 422) and bad.json()["error"]["code"] == "invalid_input"
    blocked = api.post("/v1/robots-check", json={"url": "http://169.254.169.254/"})
    assert blocked.status_code == 403 and blocked.json()["error"]["code"] == "blocked_address"


async def test_agent_and_mcp_doors(settings, door_settings, offline_web):
    ledger = offline_web.url("rules.test", "/private/ledger")
    article = offline_web.url("news.test", "/article")
    async with Client(settings) as client:
        by_tool = await tools.dispatch("robots_check", {"url": ledger}, client=client)
        by_mcp = await mcp_call(client, "robots_check", {"url": ledger})
        archived = await mcp_call(client, "wayback_lookup", {"url": article, "at": "2019"})
        pack = await tools.dispatch(
            "citation_pack", {"urls": [article], "format": "bibtex"}, client=client
        )
        ranked = await mcp_call(
            client,
            "dedupe_rank",
            {"query": "tokio", "results": [r.model_dump() for r in _results()]},
        )
        bad = await tools.dispatch("wayback_lookup", {"url": article, "at": 2019}, client=client)
    assert by_tool == by_mcp and by_tool["allowed"] is False
    assert archived["snapshot"]["timestamp"] == "20190315083000"
    assert pack["output"].startswith("@online{")
    assert ranked["folded"] == 1
    assert bad["error"]["code"] == "invalid_input"
    async with Client(door_settings(capabilities=["search", "fetch"])) as client:
        off = await tools.dispatch("wayback_lookup", {"url": article}, client=client)
        names = tools.Toolbox(client).names()
    assert off["error"]["code"] == "disabled"
    assert not {"robots_check", "wayback_lookup", "citation_pack"} & set(names)
    assert "dedupe_rank" in names  # it runs under search


async def test_websocket_door(settings, offline_web):
    """Each tool is a WebSocket message too, answered as REST answers it; extract's HTML and
    extract_data's schema come in the message, and a refusal is an `error` event."""
    ledger = offline_web.url("rules.test", "/private/ledger")
    article = offline_web.url("news.test", "/article")
    results = [r.model_dump() for r in _results()]
    schema = {"type": "object", "properties": {"title": {"type": "string"}}}
    messages = [
        {"type": "robots_check", "request_id": "r", "url": ledger},
        {"type": "wayback_lookup", "request_id": "w", "url": article, "at": "2024"},
        {"type": "citation_pack", "request_id": "c", "urls": [article], "format": "markdown"},
        {"type": "dedupe_rank", "request_id": "d", "query": "tokio", "results": results},
        {"type": "extract", "request_id": "e", "html": "<h1>Hello</h1><p>Plain words.</p>"},
        {"type": "extract_data", "request_id": "x", "urls": [article], "output_schema": schema},
        {"type": "robots_check", "request_id": "b", "url": "http://169.254.169.254/"},
    ]
    with serve(create_app(settings), lifespan="on") as live:
        async with connect(live.url("/v1/ws", scheme="ws")) as ws:
            for message in messages:
                await ws.send(json.dumps(message))
            got: dict[str, list[dict[str, Any]]] = {}
            while len([m for ms in got.values() for m in ms if m["type"] in ("done", "error")]) < 7:
                message = json.loads(await ws.recv())
                got.setdefault(message["request_id"], []).append(message)
    ended = {rid: messages[-2:] for rid, messages in got.items()}  # its result, then done
    assert all(ended[rid][-1]["type"] == "done" for rid in "rwcdex"), ended
    result = {rid: ended[rid][0]["data"] for rid in "rwcdex"}
    assert result["r"]["rule"] == "Disallow: /private/" and result["r"]["allowed"] is False
    assert result["w"]["snapshot"]["timestamp"] == "20240101093000"
    assert result["c"]["output"].startswith("1. ")
    assert result["d"]["folded"] == 1
    assert "# Hello" in result["e"]["content"]
    assert result["x"]["data"]["title"] == "Harbour town switches its ferries to batteries"
    assert got["b"][-1]["data"]["error"]["code"] == "blocked_address"
