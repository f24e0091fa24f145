"""Failure modes of real provider formats → the right Attempt, and failover to the next one."""

from __future__ import annotations

import time

import pytest

from netsift.errors import AllProvidersFailed
from tests.offline_web.providers.fixtures import ProviderSims

from .conftest import QUERY, ClientFactory, codes

JSON_PROVIDERS = [
    "brave",
    "searxng",
    "tavily",
    "serpapi",
    "bing",
    "google",
    "wikipedia",
    "openalex",
    "crossref",
    "github",
    "arxiv",
]
COMMON = {
    "rate_limit": "rate_limited",
    "server_error": "provider_unavailable",
    "empty": "provider_unavailable",
    "decoy": "provider_unavailable",
    "malformed": "provider_unavailable",
}
CASES = [(name, mode, code) for name in JSON_PROVIDERS for mode, code in COMMON.items()]
CASES += [(name, "auth", "provider_auth") for name in JSON_PROVIDERS if name != "wikipedia"]
CASES += [
    ("brave", "quota", "quota_exceeded"),
    ("tavily", "quota", "quota_exceeded"),
    ("serpapi", "quota", "quota_exceeded"),
    ("google", "quota", "quota_exceeded"),
    ("openalex", "quota", "quota_exceeded"),
    ("github", "quota", "rate_limited"),  # the primary limit resets within the hour
    ("wikipedia", "auth", "rate_limited"),  # Wikimedia answers abuse and bad agents with 403
    ("duckduckgo", "anomaly", "rate_limited"),
    ("duckduckgo", "anomaly200", "rate_limited"),
    ("duckduckgo", "auth", "rate_limited"),  # DuckDuckGo's 403 is a block, not a key problem
    ("duckduckgo", "rate_limit", "rate_limited"),
    ("duckduckgo", "server_error", "provider_unavailable"),
    ("duckduckgo", "empty", "provider_unavailable"),
    ("duckduckgo", "decoy", "provider_unavailable"),
]


def backup_for(name: str) -> str:
    return "tavily" if name not in ("tavily",) else "brave"


@pytest.mark.parametrize(("name", "mode", "code"), CASES)
async def test_failure_mode_is_a_failed_attempt_and_the_next_provider_answers(
    name: str, mode: str, code: str, sims: ProviderSims, open_client: ClientFactory
) -> None:
    backup = backup_for(name)
    sims[name].set(mode)
    client = await open_client(providers=[name, backup])
    found = await client.search(QUERY, count=3)
    assert codes(found) == [(name, code), (backup, None)]
    assert found.provider == backup
    assert found.result_count == 3
    assert all(r.source == backup for r in found.results)
    failed = found.attempts[0]
    assert not failed.ok and failed.message and failed.result_count == 0
    assert sims[backup].count == 1


@pytest.mark.parametrize("name", ["brave", "duckduckgo", "wikipedia"])
async def test_a_hanging_provider_times_out_within_its_share_and_the_next_answers(
    name: str, sims: ProviderSims, open_client: ClientFactory
) -> None:
    sims[name].set("timeout")
    client = await open_client(providers=[name, "tavily"], timeout=1.0)
    started = time.monotonic()
    found = await client.search(QUERY)
    elapsed = time.monotonic() - started
    assert codes(found) == [(name, "timeout"), ("tavily", None)]
    assert elapsed < 1.0
    assert found.attempts[0].latency_ms < 700


async def test_an_honest_no_results_is_ok_and_failover_still_asks_the_next(
    sims: ProviderSims, open_client: ClientFactory
) -> None:
    sims["brave"].set("noresults")
    client = await open_client(providers=["brave", "duckduckgo"])
    found = await client.search(QUERY, count=3)
    assert codes(found) == [("brave", None), ("duckduckgo", None)]
    assert found.attempts[0].ok and found.attempts[0].result_count == 0
    assert found.provider == "duckduckgo"


async def test_no_results_anywhere_is_an_empty_answer_not_an_error(
    sims: ProviderSims, open_client: ClientFactory
) -> None:
    for name in ("duckduckgo", "wikipedia"):
        sims[name].set("noresults")
    client = await open_client(providers=["duckduckgo", "wikipedia"])
    found = await client.search(QUERY)
    assert found.results == [] and found.provider is None
    assert [a.ok for a in found.attempts] == [True, True]


async def test_all_failing_is_all_providers_failed_with_every_attempt(
    sims: ProviderSims, open_client: ClientFactory
) -> None:
    sims["duckduckgo"].set("anomaly")
    sims["brave"].set("auth")
    sims["openalex"].set("rate_limit", retry_after=7)
    sims["tavily"].set("decoy")
    client = await open_client(providers=["duckduckgo", "brave", "openalex", "tavily"])
    with pytest.raises(AllProvidersFailed) as caught:
        await client.search(QUERY)
    error = caught.value
    assert error.code == "all_providers_failed"
    attempts = [(a["provider"], a["error_code"]) for a in error.details["attempts"]]
    assert attempts == [
        ("duckduckgo", "rate_limited"),
        ("brave", "provider_auth"),
        ("openalex", "rate_limited"),
        ("tavily", "provider_unavailable"),
    ]
    assert error.details["retry_after"] == 7.0
    assert "openalex: rate_limited" in error.message


async def test_duckduckgo_falls_back_to_lite_when_html_fails(
    sims: ProviderSims, open_client: ClientFactory
) -> None:
    sims["duckduckgo"].set("anomaly", endpoint="html")
    client = await open_client(providers=["duckduckgo"])
    found = await client.search(QUERY, count=5)
    assert codes(found) == [("duckduckgo", None)]
    assert found.result_count == 5
    assert found.results[0].url == "https://docs.example.org/rust-async-runtime"
    paths = [seen.path for seen in sims["duckduckgo"].requests]
    assert paths == ["/html/", "/lite/"]


async def test_duckduckgo_reports_both_endpoints_when_lite_fails_too(
    sims: ProviderSims, open_client: ClientFactory
) -> None:
    sims["duckduckgo"].set("server_error", endpoint="html")
    sims["duckduckgo"].set("anomaly", endpoint="lite")
    client = await open_client(providers=["duckduckgo", "wikipedia"])
    found = await client.search(QUERY)
    assert codes(found) == [("duckduckgo", "rate_limited"), ("wikipedia", None)]
    message = found.attempts[0].message or ""
    assert "primary failed" in message and "500" in message
