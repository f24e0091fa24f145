"""`netsift fetch`, `meta` and `extract` as a user runs them, against the offline web.

The subprocess tests start the real `python -m netsift` with `NETSIFT_RESOLVE` and
`NETSIFT_ALLOW_NETWORKS` pointing at the offline web: the same path a user takes, with nothing
of the test process leaking in. The rest use typer's CliRunner in-process (same code, faster)
for the many option combinations. No error case may print a traceback.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from netsift.models import Metadata, Page
from tests.e2e.cli import CliCall, in_process, subprocess_call
from tests.offline_web import documents as docs
from tests.offline_web.fixtures import OfflineWeb
from tests.offline_web.site import PAGES


@pytest.fixture
def cli_env(offline_web: OfflineWeb, tmp_path: Path) -> dict[str, str]:
    """NETSIFT_* for a command pointed at the offline web, with its data under tmp_path."""
    return {
        **offline_web.env(),
        "NETSIFT_DATA_DIR": str(tmp_path / "data"),
        "NETSIFT_CACHE_URL": "memory://",
    }


@pytest.fixture
def netsift(cli_env: dict[str, str]) -> CliCall:
    """Run `python -m netsift ARGS` as a subprocess."""
    return subprocess_call(cli_env)


@pytest.fixture
def invoke(cli_env: dict[str, str]) -> CliCall:
    """Run the same typer app in-process through CliRunner."""
    return in_process(cli_env)


# fetch ----------------------------------------------------------------------------------------


def test_fetch_prints_markdown(netsift: CliCall, offline_web: OfflineWeb) -> None:
    run = netsift("fetch", offline_web.url("news.test", "/article"))
    assert run.code == 0, run.stderr
    assert "The three ferries that link Kelby" in run.stdout
    assert "## How the crossing changed" in run.stdout
    assert "We use cookies" not in run.stdout
    assert offline_web.state.hits("news.test", "/article") == 1


def test_fetch_json_is_a_page(netsift: CliCall, offline_web: OfflineWeb) -> None:
    run = netsift("fetch", "--json", offline_web.url("redirect.test", "/hop/2"))
    assert run.code == 0, run.stderr
    page = Page.model_validate_json(run.stdout)
    assert page.final_url == offline_web.url("redirect.test", "/hop/0")
    assert len(page.redirects) == 2
    assert page.title == "Arrived"


@pytest.mark.parametrize("fmt", ["text", "html"])
def test_fetch_formats(invoke: CliCall, offline_web: OfflineWeb, fmt: str) -> None:
    run = invoke("fetch", "--format", fmt, offline_web.url("news.test", "/article"))
    assert run.code == 0, run.stderr
    assert "How the crossing changed" in run.stdout
    assert ("<h2" in run.stdout) == (fmt == "html")
    assert "## How" not in run.stdout


def test_fetch_bad_format_is_invalid(invoke: CliCall, offline_web: OfflineWeb) -> None:
    run = invoke("fetch", "--format", "pdf", offline_web.url("news.test", "/article"))
    assert run.code == 2
    assert "invalid_input" in run.stderr


def test_fetch_pagination(invoke: CliCall, offline_web: OfflineWeb) -> None:
    url = offline_web.url("files.test", "/long.txt")
    first = invoke("fetch", "--max-length", "1000", url)
    assert first.code == 0
    assert first.stdout.rstrip("\n") == docs.LONG_TEXT[:1000].rstrip("\n")
    assert "truncated" in first.stderr and "--start-index 1000" in first.stderr
    second = invoke("fetch", "--max-length", "1000", "--start-index", "1000", url)
    assert second.stdout.rstrip("\n") == docs.LONG_TEXT[1000:2000].rstrip("\n")
    assert "--start-index 2000" in second.stderr
    last = invoke("fetch", "--start-index", str(len(docs.LONG_TEXT) - 10), url)
    assert last.stdout.rstrip("\n") == docs.LONG_TEXT[-10:].rstrip("\n")
    assert "truncated" not in last.stderr


def test_fetch_robots_and_no_robots(invoke: CliCall, offline_web: OfflineWeb) -> None:
    url = offline_web.url("docs.test", "/private/secret")
    blocked = invoke("fetch", url)
    assert blocked.code == 3
    assert "blocked_by_robots" in blocked.stderr
    assert blocked.stdout == ""
    read = invoke("fetch", "--no-robots", url)
    assert read.code == 0
    assert "rotates its credentials" in read.stdout


def test_fetch_timeout_option(invoke: CliCall, offline_web: OfflineWeb) -> None:
    run = invoke("fetch", "--timeout", "1", offline_web.url("slow.test", "/stall"))
    assert run.code == 4
    assert "(timeout)" in run.stderr


def test_fetch_max_bytes_option(invoke: CliCall, offline_web: OfflineWeb) -> None:
    run = invoke("fetch", "--max-bytes", "2000", offline_web.url("news.test", "/article"))
    assert run.code == 4
    assert "(too_large)" in run.stderr
    run = invoke("fetch", "--max-bytes", "200000", offline_web.url("news.test", "/article"))
    assert run.code == 0


def test_fetch_error_as_json(invoke: CliCall, offline_web: OfflineWeb) -> None:
    run = invoke("fetch", "--json", offline_web.url("status.test", "/404"))
    assert run.code == 4
    error = json.loads(run.stdout)["error"]
    assert error["code"] == "http_error"
    assert error["details"]["status"] == 404


def test_fetch_stdin_serves_every_line(netsift: CliCall, offline_web: OfflineWeb) -> None:
    lines = [
        json.dumps({"url": offline_web.url("news.test", "/article"), "max_length": 200}),
        "{not json",
        json.dumps({"url": "http://169.254.169.254/latest/meta-data/"}),
        json.dumps({"url": offline_web.url("news.test", "/article"), "max_length": 0}),
        json.dumps(["a list", "is not an object"]),
        "",
        json.dumps({"url": offline_web.url("docs.test", "/private/secret")}),
        json.dumps({"url": offline_web.url("blog.test", "/feed.rss"), "format": "text"}),
    ]
    run = netsift("fetch", "--stdin", input="\n".join(lines) + "\n")
    assert run.code == 0, run.stderr
    out = run.lines()
    assert len(out) == 7
    first = Page.model_validate(out[0])
    assert first.truncated and len(first.content) == 200
    assert out[1]["error"]["code"] == "invalid_input"
    assert out[2]["error"]["code"] == "blocked_address"
    assert out[3]["error"]["code"] == "invalid_input"
    assert out[4]["error"]["code"] == "invalid_input"
    assert out[5]["error"]["code"] == "blocked_by_robots"
    assert Page.model_validate(out[6]).page_type == "feed"


# exit codes -----------------------------------------------------------------------------------


def test_exit_codes_of_a_real_process(netsift: CliCall, offline_web: OfflineWeb) -> None:
    invalid = netsift("fetch", "ftp://files.test/report.pdf")
    assert (invalid.code, "unsupported_scheme" in invalid.stderr) == (2, True)
    blocked = netsift(
        "fetch", offline_web.url("news.test", "/article"), env={"NETSIFT_ALLOW_NETWORKS": ""}
    )
    assert (blocked.code, "blocked_address" in blocked.stderr) == (3, True)
    upstream = netsift("fetch", offline_web.url("status.test", "/410"))
    assert (upstream.code, "http_error" in upstream.stderr) == (4, True)
    config = netsift(
        "fetch", offline_web.url("news.test", "/article"), env={"NETSIFT_ALLOW_NETWORKS": "x"}
    )
    assert config.code == 5
    assert "NETSIFT_ALLOW_NETWORKS" in config.stderr and "(config_error)" in config.stderr
    assert offline_web.state.hits("news.test") == 0


@pytest.mark.parametrize(
    ("args", "code", "error_code"),
    [
        (["fetch", "not a url"], 2, "invalid_url"),
        (["fetch", "file:///etc/passwd"], 2, "unsupported_scheme"),
        (["fetch"], 2, "invalid_input"),
        (["fetch", "http://localhost/"], 3, "blocked_address"),
        (["fetch", "http://169.254.169.254/latest/"], 3, "blocked_address"),
        (["meta", "http://10.0.0.1/"], 3, "blocked_address"),
    ],
)
def test_error_exit_codes(invoke: CliCall, args: list[str], code: int, error_code: str) -> None:
    run = invoke(*args)
    assert run.code == code, run.stderr
    assert f"({error_code})" in run.stderr


@pytest.mark.parametrize(
    ("path", "error_code"),
    [
        ("files.test/logo.png", "unsupported_content_type"),
        ("redirect.test/loop-a", "too_many_redirects"),
        ("big.test/gzip-bomb", "too_large"),
        ("status.test/500", "http_error"),
    ],
)
def test_upstream_failures_exit_4(
    invoke: CliCall, offline_web: OfflineWeb, path: str, error_code: str
) -> None:
    host, _, rest = path.partition("/")
    run = invoke("fetch", offline_web.url(host, "/" + rest), env={"NETSIFT_RETRIES": "0"})
    assert run.code == 4
    assert f"({error_code})" in run.stderr


def test_bad_config_exits_5(invoke: CliCall, offline_web: OfflineWeb) -> None:
    for env in ({"NETSIFT_ALLOW_NETWORKS": "notacidr"}, {"NETSIFT_RESOLVE": "no-address-here"}):
        run = invoke("fetch", offline_web.url("news.test", "/article"), env=env)
        assert run.code == 5, env
        assert "invalid configuration" in run.stderr


# meta -----------------------------------------------------------------------------------------


def test_meta_card(netsift: CliCall, offline_web: OfflineWeb) -> None:
    run = netsift("meta", offline_web.url("news.test", "/article"))
    assert run.code == 0, run.stderr
    assert "title: Harbour town switches its ferries to batteries" in run.stdout
    assert "site_name: The Coastal Courier" in run.stdout
    assert f"favicon: http://news.test:{offline_web.port}/static/favicon-32.png" in run.stdout
    assert "page_type: article" in run.stdout


def test_meta_json(invoke: CliCall, offline_web: OfflineWeb) -> None:
    run = invoke("meta", "--json", offline_web.url("blog.test", "/post"))
    assert run.code == 0
    card = Metadata.model_validate_json(run.stdout)
    assert card.page_type == "article"
    assert card.author == "Priya Natarajan"
    assert card.canonical == "https://blog.example/posts/fridge-starter"


def test_meta_explain(netsift: CliCall, offline_web: OfflineWeb) -> None:
    run = netsift("meta", "--explain", offline_web.url("listing.test", "/category"))
    assert run.code == 0, run.stderr
    assert "page_type: listing" in run.stdout
    assert "page_type_rule: highest: the highest total weight" in run.stdout
    assert "+1.75 listing       dom:cards=6  (body)" in run.stdout
    assert "page_type_runner_up: collection (1)" in run.stdout


def test_meta_explain_json(invoke: CliCall, offline_web: OfflineWeb) -> None:
    run = invoke("meta", "--json", "--explain", offline_web.url("shop.test", "/product"))
    assert run.code == 0
    why = Metadata.model_validate_json(run.stdout).page_type_explanation
    assert why is not None and why.type == "product"
    assert ("schema=product", "json-ld", 4.0) in [
        (s.signal, s.where, s.weight) for s in why.signals
    ]
    plain = Metadata.model_validate_json(
        invoke("meta", "--json", offline_web.url("shop.test", "/product")).stdout
    )
    assert plain.page_type_explanation is None


def test_meta_no_robots(invoke: CliCall, offline_web: OfflineWeb) -> None:
    url = offline_web.url("docs.test", "/private/secret")
    assert invoke("meta", url).code == 3
    run = invoke("meta", "--no-robots", url)
    assert run.code == 0
    assert "title: Internal deployment notes" in run.stdout


# extract --------------------------------------------------------------------------------------


def test_extract_from_stdin(netsift: CliCall) -> None:
    html = (PAGES / "article.html").read_text("utf-8")
    run = netsift("extract", "-", "--url", "https://news.example/kelby", input=html)
    assert run.code == 0, run.stderr
    assert "## How the crossing changed" in run.stdout
    assert "(https://news.example/kelby/harbour-plan)" in run.stdout
    assert "Morning Tide newsletter" not in run.stdout


def test_extract_file_json(invoke: CliCall) -> None:
    path = str(PAGES / "blog-post.html")
    run = invoke("extract", path, "--url", "https://blog.example/posts/fridge-starter", "--json")
    assert run.code == 0
    page = Page.model_validate_json(run.stdout)
    assert page.title == "Why our sourdough starter lives in the fridge"
    assert page.metadata.favicon == "https://blog.example/favicon.ico"
    assert "## The weekly routine" in page.content


def test_extract_text_format_and_missing_file(invoke: CliCall, tmp_path: Path) -> None:
    page = tmp_path / "guide.html"
    page.write_bytes((PAGES / "docs-guide.html").read_bytes())
    run = invoke("extract", str(page), "--format", "text")
    assert run.code == 0
    assert 'backoff = "exponential"' in run.stdout
    missing = invoke("extract", str(tmp_path / "nope.html"))
    assert missing.code == 2
    assert "(invalid_input)" in missing.stderr


# the command itself ---------------------------------------------------------------------------


def test_version_and_help(netsift: CliCall) -> None:
    from netsift._version import __version__

    version = netsift("--version")
    assert (version.code, version.stdout.strip()) == (0, f"netsift {__version__}")
    helped = netsift("--help")
    assert helped.code == 0
    for command in ("fetch", "meta", "extract"):
        assert command in helped.stdout


def test_extract_paginates_like_fetch(invoke: CliCall) -> None:
    path = str(PAGES / "blog-post.html")
    first = Page.model_validate_json(
        invoke("extract", path, "--json", "--max-length", "200").stdout
    )
    assert first.truncated and first.next_start_index == 200 and len(first.content) <= 200
    args = ("extract", path, "--json", "--max-length", "200", "--start-index", "200")
    rest = Page.model_validate_json(invoke(*args).stdout)
    assert rest.start_index == 200 and rest.content != first.content
