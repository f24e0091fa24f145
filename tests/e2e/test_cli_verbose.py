"""`netsift search -v`: one short line by default when every provider fails, and with
`-v`/`--verbose` each provider attempt's code and message, then the hint; on success, every
attempt (the one that answered too). The real CLI in a subprocess against the provider
simulators, no network."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.cli import CliCall, subprocess_call
from tests.e2e.test_cli_search import QUERY, UNLIMITED
from tests.offline_web.providers.fixtures import ProviderSims


@pytest.fixture
def netsift(sims: ProviderSims, tmp_path: Path) -> CliCall:
    """`python -m netsift ARGS` in a subprocess, pointed at the simulators only."""
    return subprocess_call(
        {
            **sims.env(),
            "NETSIFT_DATA_DIR": str(tmp_path / "data"),
            "NETSIFT_CACHE_URL": "memory://",
            "NETSIFT_PROVIDER_RATE_LIMITS": UNLIMITED,
            "NETSIFT_CAPABILITIES": "search,fetch",
        }
    )


HINT = "hint: `netsift providers` shows each provider's configuration and state"


def test_all_failed_is_one_line_and_verbose_adds_each_attempt(
    netsift: CliCall, sims: ProviderSims
) -> None:
    sims["brave"].set("rate_limit")
    sims["duckduckgo"].set("anomaly")
    quiet = netsift("search", QUERY, "-p", "brave,duckduckgo")
    assert quiet.code == 4 and quiet.stdout == ""
    assert len(quiet.stderr.splitlines()) == 1 and "(all_providers_failed)" in quiet.stderr
    for flag in ("-v", "--verbose"):
        loud = netsift("search", QUERY, "-p", "brave,duckduckgo", flag, "--no-cache")
        assert loud.code == 4 and loud.stdout == ""
        lines = loud.stderr.splitlines()
        assert lines[0] == quiet.stderr.splitlines()[0]
        assert lines[1] == "attempts:"
        brave, duck = lines[2], lines[3]
        assert brave.startswith("  brave: rate_limited, retryable") and ": " in brave[9:]
        assert duck.startswith("  duckduckgo: rate_limited")
        assert lines[4:] == [HINT]
        assert "Traceback" not in loud.stderr


def test_verbose_json_stays_one_json_object(netsift: CliCall, sims: ProviderSims) -> None:
    sims["brave"].set("rate_limit")
    run = netsift("search", QUERY, "-p", "brave", "-v", "--json")
    assert run.code == 4 and run.stderr == ""  # the details are in the JSON already
    assert run.json()["error"]["details"]["attempts"][0]["error_code"] == "rate_limited"


def test_verbose_success_lists_every_attempt(netsift: CliCall, sims: ProviderSims) -> None:
    sims["brave"].set("auth")
    run = netsift("search", QUERY, "-p", "brave,duckduckgo", "-n", "2", "-v")
    assert run.code == 0, run.stderr
    assert run.stdout.startswith("1. Rust async runtime: the official documentation")
    lines = run.stderr.splitlines()
    assert lines[0] == "attempts:"
    assert lines[1].startswith("  brave: provider_auth, not retryable")
    assert lines[2].startswith("  duckduckgo: ok, 2 results in ")
    assert not any(line.startswith("note:") for line in lines)  # said once, in the list
    quiet = netsift("search", QUERY, "-p", "brave,duckduckgo", "-n", "2", "--no-cache")
    assert "attempts:" not in quiet.stderr and "duckduckgo: ok" not in quiet.stderr
