"""netsift's own per-provider limits, in front of the simulators."""

from __future__ import annotations

import time

import pytest

from netsift.errors import AllProvidersFailed
from tests.offline_web.providers.fixtures import ProviderSims

from .conftest import QUERY, ClientFactory, codes


async def test_a_second_search_within_the_window_waits_for_the_slot(
    sims: ProviderSims, open_client: ClientFactory
) -> None:
    client = await open_client(
        providers=["brave", "tavily"], provider_rate_limits=["brave=2/second"]
    )
    await client.search(QUERY, no_cache=True)
    await client.search(QUERY, no_cache=True)
    started = time.monotonic()
    third = await client.search(QUERY, no_cache=True)
    waited = time.monotonic() - started
    assert codes(third) == [("brave", None)]
    assert 0.5 < waited < 1.5
    assert sims["brave"].count == 3 and sims["tavily"].count == 0


async def test_a_slot_too_far_away_fails_over_at_once_without_asking_the_provider(
    sims: ProviderSims, open_client: ClientFactory
) -> None:
    client = await open_client(
        providers=["brave", "tavily"], provider_rate_limits=["brave=1/minute"]
    )
    await client.search(QUERY, no_cache=True)
    started = time.monotonic()
    second = await client.search(QUERY, no_cache=True)
    assert time.monotonic() - started < 0.5
    assert codes(second) == [("brave", "rate_limited"), ("tavily", None)]
    assert "netsift's rate limit" in (second.attempts[0].message or "")
    assert 55 < (second.attempts[0].retry_after or 0) <= 60
    assert sims["brave"].count == 1
    # Our own limit is not the provider's block: the breaker has nothing against brave.
    assert client.search_service.breaker.state("brave")["failures"] == 0


async def test_the_global_limit_covers_all_providers_together(
    sims: ProviderSims, open_client: ClientFactory
) -> None:
    client = await open_client(providers=["brave", "tavily"], search_rate_limit="1/minute")
    await client.search(QUERY, no_cache=True)
    with pytest.raises(AllProvidersFailed) as caught:
        await client.search("tokio tutorial", no_cache=True)
    attempts = caught.value.details["attempts"]
    assert [a["error_code"] for a in attempts] == ["rate_limited", "rate_limited"]
    assert (
        "all providers together reached netsift's rate limit (1/minute)" in attempts[0]["message"]
    )
    assert 55 < caught.value.details["retry_after"] <= 60
    assert sims.state.total_requests() == 1
