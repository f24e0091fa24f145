"""`netsift search` and `netsift providers` as a user runs them, against the provider simulators.

Subprocess tests start the real `python -m netsift` with nothing but environment variables
(base URLs, host pins, keys) pointing at the simulators; the many option combinations run
in-process through typer's CliRunner (same code, faster). No case may print a traceback.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from netsift.models import SearchResponse
from tests.e2e.cli import CliCall, Run, in_process, subprocess_call
from tests.offline_web.providers.fixtures import ProviderSims

QUERY = "rust async runtime"
UNLIMITED = "duckduckgo=1000/second,brave=1000/second,tavily=1000/second,wikipedia=1000/second"


def parsed(run: Run) -> SearchResponse:
    return run.model(SearchResponse)


@pytest.fixture
def cli_env(sims: ProviderSims, tmp_path: Path) -> dict[str, str]:
    return {
        **sims.env(),
        "NETSIFT_DATA_DIR": str(tmp_path / "data"),
        "NETSIFT_CACHE_URL": "memory://",
        "NETSIFT_PROVIDER_RATE_LIMITS": UNLIMITED,
        "NETSIFT_CAPABILITIES": "search,fetch",
    }


@pytest.fixture
def netsift(cli_env: dict[str, str]) -> CliCall:
    """`python -m netsift ARGS` in a subprocess; `env` entries set to None are removed."""
    return subprocess_call(cli_env)


@pytest.fixture
def invoke(cli_env: dict[str, str]) -> CliCall:
    return in_process(cli_env)


# search: output -------------------------------------------------------------------------------


def test_search_piped_prints_numbered_results(netsift: CliCall, sims: ProviderSims) -> None:
    run = netsift("search", QUERY, "-n", "3", "-p", "brave")
    assert run.code == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == "1. Rust async runtime: the official documentation"
    assert lines[1].strip() == "https://www.docs.example.org/rust-async-runtime/?utm_source=brave"
    assert "Reference documentation for rust async runtime" in lines[2]
    assert sum(line[:2] in ("1.", "2.", "3.") for line in lines) == 3
    assert "\x1b[" not in run.stdout  # no terminal styling when piped
    assert sims["brave"].count == 1


def test_search_json_is_a_search_response(netsift: CliCall) -> None:
    run = netsift("search", QUERY, "--json", "-n", "4", "-p", "duckduckgo")
    assert run.code == 0, run.stderr
    found = parsed(run)
    assert (found.query, found.provider, found.result_count, found.cached) == (
        QUERY,
        "duckduckgo",
        4,
        False,
    )
    assert [(a.provider, a.ok) for a in found.attempts] == [("duckduckgo", True)]


def test_search_failover_notes_go_to_stderr(invoke: CliCall, sims: ProviderSims) -> None:
    sims["brave"].set("auth")
    run = invoke("search", QUERY, "-p", "brave,duckduckgo", "-n", "2")
    assert run.code == 0
    assert run.stdout.startswith("1. Rust async runtime: the official documentation")
    assert "note: brave failed (provider_auth)" in run.stderr
    found = parsed(invoke("search", QUERY, "-p", "brave,duckduckgo", "--json", "--no-cache"))
    assert [(a.provider, a.error_code) for a in found.attempts] == [
        ("brave", "provider_auth"),
        ("duckduckgo", None),
    ]


def test_search_merge(invoke: CliCall) -> None:
    found = parsed(invoke("search", QUERY, "--merge", "-p", "duckduckgo,brave", "--json"))
    assert found.provider == "duckduckgo,brave"
    assert set(found.results[0].engines) == {"duckduckgo", "brave"}


@pytest.mark.parametrize(("given", "sent"), [("w", "w"), ("week", "w"), ("d", "d"), ("y", "y")])
def test_search_time_range(invoke: CliCall, sims: ProviderSims, given: str, sent: str) -> None:
    run = invoke("search", QUERY, "-t", given, "-p", "duckduckgo", "--json")
    assert run.code == 0, run.stdout
    assert sims["duckduckgo"].requests[0].form()["df"] == sent


def test_search_region_and_safesearch_reach_the_provider(
    invoke: CliCall, sims: ProviderSims
) -> None:
    run = invoke(
        "search", QUERY, "--region", "de-de", "--safesearch", "strict", "-p", "brave", "--json"
    )
    assert run.code == 0, run.stdout
    params = sims["brave"].requests[0].params
    assert params["safesearch"] == "strict"
    assert params["country"].upper() == "DE"


def test_search_no_cache(invoke: CliCall, sims: ProviderSims, tmp_path: Path) -> None:
    env = {"NETSIFT_CACHE_URL": f"sqlite:///{tmp_path / 'cache.sqlite3'}"}
    first = parsed(invoke("search", QUERY, "-p", "brave", "--json", env=env))
    second = parsed(invoke("search", QUERY, "-p", "brave", "--json", env=env))
    third = parsed(invoke("search", QUERY, "-p", "brave", "--json", "--no-cache", env=env))
    assert (first.cached, second.cached, third.cached) == (False, True, False)
    assert sims["brave"].count == 2


def test_search_stdin_json_lines(netsift: CliCall, sims: ProviderSims) -> None:
    lines = [
        json.dumps({"query": QUERY, "count": 2, "providers": ["brave"]}),
        "not json",
        json.dumps({"query": "tokio tutorial", "providers": ["duckduckgo"], "count": 1}),
        json.dumps({"query": ""}),
    ]
    run = netsift("search", "--stdin", input="\n".join(lines) + "\n")
    assert run.code == 0, run.stderr
    out = [json.loads(line) for line in run.stdout.splitlines()]
    assert len(out) == 4
    assert out[0]["provider"] == "brave" and out[0]["result_count"] == 2
    assert out[1]["error"]["code"] == "invalid_input"
    assert out[2]["query"] == "tokio tutorial" and out[2]["result_count"] == 1
    assert out[3]["error"]["code"] == "invalid_input"


# search: errors and exit codes ----------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ("search",),
        ("search", "   "),
        ("search", QUERY, "-n", "0"),
        ("search", QUERY, "-n", "51"),
        ("search", QUERY, "-t", "decade"),
        ("search", QUERY, "--safesearch", "maybe"),
        ("search", QUERY, "-p", "altavista"),
    ],
)
def test_search_invalid_input_exits_2(
    invoke: CliCall, sims: ProviderSims, args: tuple[str]
) -> None:
    run = invoke(*args)
    assert run.code == 2
    assert "(invalid_input)" in run.stderr
    assert sims.state.total_requests() == 0


def test_search_all_failed_exits_4_with_every_attempt(netsift: CliCall, sims: ProviderSims) -> None:
    sims["brave"].set("rate_limit")
    sims["duckduckgo"].set("anomaly")
    run = netsift("search", QUERY, "-p", "brave,duckduckgo")
    assert run.code == 4
    assert run.stdout == ""
    assert "(all_providers_failed)" in run.stderr
    assert "brave: rate_limited" in run.stderr and "duckduckgo: rate_limited" in run.stderr
    assert sims["brave"].count == 1
    as_json = netsift("search", QUERY, "-p", "brave,duckduckgo", "--json")
    assert as_json.code == 4
    error = as_json.json()["error"]
    assert error["code"] == "all_providers_failed"
    assert [a["error_code"] for a in error["details"]["attempts"]] == ["rate_limited"] * 2


def test_search_bad_configuration_exits_5(netsift: CliCall) -> None:
    run = netsift("search", QUERY, env={"NETSIFT_TIMEOUT": "-1"})
    assert run.code == 5
    assert "invalid configuration" in run.stderr and "NETSIFT_TIMEOUT" in run.stderr


def test_search_keys_never_printed(netsift: CliCall, sims: ProviderSims) -> None:
    sims["brave"].set("auth")
    run = netsift("search", QUERY, "-p", "brave", "--json", env={"BRAVE_API_KEY": "BSA-secret-1"})
    assert run.code == 5  # a refused key is configuration: config_error, not retryable
    assert run.json()["error"]["code"] == "config_error"
    assert run.json()["error"]["retryable"] is False
    assert "BSA-secret-1" not in run.stdout + run.stderr


def test_search_embedded_default_with_only_base_urls_and_pins(
    netsift: CliCall, sims: ProviderSims, tmp_path: Path
) -> None:
    env: dict[str, str | None] = {name: None for name in ("NETSIFT_CACHE_URL",)}
    env.update({key: None for key in sims.env() if key.endswith("_KEY") or "TOKEN" in key})
    env.update({"GOOGLE_CSE_ID": None, "NETSIFT_CAPABILITIES": None})
    first = netsift("search", QUERY, "--json", env=env)
    assert first.code == 0, first.stderr
    found = parsed(first)
    assert found.provider == "duckduckgo" and not found.cached
    assert (tmp_path / "data" / "cache.sqlite3").is_file()
    again = parsed(netsift("search", QUERY, "--json", env=env))
    assert again.cached and sims["duckduckgo"].count == 1


# providers ------------------------------------------------------------------------------------


def test_providers_json_lists_configuration_limits_and_breaker(
    invoke: CliCall, sims: ProviderSims
) -> None:
    run = invoke(
        "providers",
        "--json",
        env={"NETSIFT_PROVIDERS": "brave,duckduckgo", "BRAVE_API_KEY": "", "TAVILY_API_KEY": ""},
    )
    assert run.code == 0, run.stderr
    rows = {row["name"]: row for row in json.loads(run.stdout)}
    assert list(rows)[:2] == ["brave", "duckduckgo"]
    assert rows["brave"]["enabled"] and rows["brave"]["priority"] == 1
    assert rows["duckduckgo"]["configured"] and rows["duckduckgo"]["needs"] is None
    assert not rows["tavily"]["configured"] and "TAVILY_API_KEY" in rows["tavily"]["needs"]
    assert rows["brave"]["rate_limit"] == "1000/second"  # the override in force
    assert rows["arxiv"]["rate_limit"]
    assert rows["brave"]["breaker"]["suspended_until"] is None
    assert {"github", "openalex", "crossref", "wikipedia", "arxiv"} <= set(rows)
    assert sims.state.total_requests() == 0


def test_providers_text_is_one_row_per_provider(invoke: CliCall) -> None:
    run = invoke("providers", env={"NETSIFT_PROVIDERS": "duckduckgo", "TAVILY_API_KEY": ""})
    assert run.code == 0
    rows = [line.split("\t") for line in run.stdout.splitlines()]
    by_name = {row[0]: row for row in rows}
    assert by_name["duckduckgo"][2:4] == ["yes", "yes"]
    assert by_name["duckduckgo"][5] == "ok"
    assert by_name["tavily"][2].startswith("no (set TAVILY_API_KEY")


def test_the_http_names_are_flags_and_the_old_ones_still_work(invoke: CliCall) -> None:
    new = parsed(invoke("search", QUERY, "--providers", "brave", "--time-range", "w", "--json"))
    old = parsed(invoke("search", QUERY, "--provider", "brave", "--time", "week", "--json"))
    assert new.provider == old.provider == "brave"
    assert [r.url for r in new.results] == [r.url for r in old.results]
    bad = invoke("search", QUERY, "--time-range", "fortnight")
    assert bad.code == 2 and "--time-range" in bad.stderr
