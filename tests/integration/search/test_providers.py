"""Every provider, through the real Client and HttpClient, against its simulator over HTTP."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from netsift.errors import AllProvidersFailed
from tests.offline_web.providers.fixtures import KEYS, ProviderSims
from tests.offline_web.providers.sim import Seen

from .conftest import PROVIDERS, QUERY, ClientFactory, codes

ALL_PROVIDERS = list(PROVIDERS)


def key(field: str) -> str:
    return str(KEYS[field][1])


# What the request each provider sent must carry, checked on the simulator's side.
SENT: dict[str, Callable[[Seen], bool]] = {
    "duckduckgo": lambda s: s.method == "POST" and s.form()["q"] == QUERY,
    "brave": lambda s: s.headers["x-subscription-token"] == key("brave_api_key"),
    "searxng": lambda s: s.params["format"] == "json" and s.params["q"] == QUERY,
    "tavily": lambda s: s.headers["authorization"] == f"Bearer {key('tavily_api_key')}",
    "serpapi": lambda s: (
        s.params["api_key"] == key("serpapi_api_key")
        and s.params.get("engine", "google") == "google"
    ),
    "bing": lambda s: (
        s.params["api_key"] == key("serpapi_api_key") and s.params["engine"] == "bing"
    ),
    "google": lambda s: (
        s.params["key"] == key("google_api_key") and s.params["cx"] == key("google_cse_id")
    ),
    "wikipedia": lambda s: "netsift" in s.headers["user-agent"] and s.params["srsearch"] == QUERY,
    "openalex": lambda s: s.params["api_key"] == key("openalex_api_key"),
    "crossref": lambda s: QUERY in (s.params.get("query") or s.params["query.bibliographic"]),
    "github": lambda s: s.headers["authorization"] == f"Bearer {key('github_token')}",
    "arxiv": lambda s: all(word in s.params["search_query"] for word in QUERY.split()),
}


@pytest.mark.parametrize("name", ALL_PROVIDERS)
async def test_every_provider_answers_with_parsed_results(
    name: str, sims: ProviderSims, open_client: ClientFactory
) -> None:
    client = await open_client(providers=[name])
    found = await client.search(QUERY, count=3)
    assert found.provider == name
    assert codes(found) == [(name, None)]
    assert 1 <= found.result_count == len(found.results) <= 3
    assert [r.rank for r in found.results] == list(range(1, found.result_count + 1))
    for result in found.results:
        assert result.source == name
        assert result.url.startswith(("http://", "https://"))
        assert "rust async runtime" in f"{result.title} {result.snippet}".casefold()
    assert sims[name].count == 1
    assert SENT[name](sims[name].requests[0])


@pytest.mark.parametrize("name", ["openalex", "crossref", "arxiv"])
async def test_scholarly_results_carry_authors_and_dates(
    name: str, sims: ProviderSims, open_client: ClientFactory
) -> None:
    client = await open_client(providers=[name])
    found = await client.search(QUERY, count=2)
    first = found.results[0]
    assert first.authors
    assert first.published
    if name != "arxiv":
        assert first.doi and first.doi.startswith("10.5555/")


async def test_duckduckgo_page_keeps_dates_and_drops_the_ad(
    sims: ProviderSims, open_client: ClientFactory
) -> None:
    client = await open_client(providers=["duckduckgo"])
    found = await client.search(QUERY, count=10)
    assert found.result_count == 10
    assert all("duckduckgo.com" not in r.url for r in found.results)
    assert found.results[0].url == "https://docs.example.org/rust-async-runtime"
    assert found.results[0].published and found.results[0].published.startswith("2026-07-02")


async def test_a_missing_key_is_a_not_configured_attempt_and_nothing_is_sent(
    sims: ProviderSims, open_client: ClientFactory
) -> None:
    client = await open_client(providers=["brave", "duckduckgo"], brave_api_key=None)
    found = await client.search(QUERY)
    assert codes(found) == [("brave", "provider_auth"), ("duckduckgo", None)]
    assert "BRAVE_API_KEY" in (found.attempts[0].message or "")
    assert "not configured" in (found.attempts[0].message or "")
    assert sims["brave"].count == 0
    assert found.provider == "duckduckgo"


async def test_a_wrong_key_is_provider_auth_and_is_never_echoed(
    sims: ProviderSims, open_client: ClientFactory
) -> None:
    client = await open_client(providers=["brave", "tavily"], brave_api_key="BSA-wrong-secret")
    found = await client.search(QUERY)
    assert codes(found) == [("brave", "provider_auth"), ("tavily", None)]
    assert sims["brave"].count == 1
    assert "BSA-wrong-secret" not in found.model_dump_json()


async def test_the_guard_refuses_the_simulators_without_the_allow_list(
    sims: ProviderSims, open_client: ClientFactory
) -> None:
    client = await open_client(providers=["brave", "duckduckgo"], allow_networks=[])
    with pytest.raises(AllProvidersFailed) as caught:
        await client.search(QUERY)
    attempts = caught.value.details["attempts"]
    assert [(a["provider"], a["error_code"]) for a in attempts] == [
        ("brave", "blocked_address"),
        ("duckduckgo", "blocked_address"),
    ]
    assert sims.state.total_requests() == 0


async def test_searxng_gets_past_a_public_instance_bot_detection(
    sims: ProviderSims, open_client: ClientFactory
) -> None:
    sims["searxng"].set("limiter")
    client = await open_client(providers=["searxng"])
    found = await client.search(QUERY, count=3)
    assert codes(found) == [("searxng", None)]


async def test_searxng_with_json_disabled_says_so(
    sims: ProviderSims, open_client: ClientFactory
) -> None:
    sims["searxng"].set("auth")  # the instance's settings.yml leaves out the json format
    client = await open_client(providers=["searxng", "duckduckgo"])
    found = await client.search(QUERY, count=3)
    assert codes(found) == [("searxng", "provider_auth"), ("duckduckgo", None)]
    assert "json" in (found.attempts[0].message or "").casefold()


async def test_searxng_outage_is_a_failure_not_no_results(
    sims: ProviderSims, open_client: ClientFactory
) -> None:
    sims["searxng"].set("outage")  # 200, no results, every engine unresponsive
    client = await open_client(providers=["searxng", "duckduckgo"])
    found = await client.search(QUERY, count=3)
    assert codes(found) == [("searxng", "provider_unavailable"), ("duckduckgo", None)]
