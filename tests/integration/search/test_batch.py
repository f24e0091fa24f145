"""Batch search through the Client: parallel, in input order, errors inline, budgets enforced."""

from __future__ import annotations

import time

import pytest

from netsift.errors import BudgetExhausted, InvalidInput
from netsift.params import MAX_BATCH_QUERIES
from tests.offline_web.providers.fixtures import ProviderSims

from .conftest import ClientFactory

QUERIES = [f"rust async runtime part {n}" for n in range(10)]


async def test_ten_queries_take_about_one_latency_and_keep_their_order(
    sims: ProviderSims, open_client: ClientFactory
) -> None:
    sims["brave"].latency = 0.3
    client = await open_client(providers=["brave"])
    started = time.monotonic()
    items = await client.batch_search(QUERIES, count=3)
    elapsed = time.monotonic() - started
    assert elapsed < 0.9  # the sum of the latencies would be 3 s
    assert [item.query for item in items] == QUERIES
    for item in items:
        response = item.raise_for_error()
        assert response.query == item.query
        assert item.query in response.results[0].title.casefold()
    assert sims["brave"].count == 10


async def test_a_blank_query_refuses_the_batch_as_every_door_does(
    sims: ProviderSims, open_client: ClientFactory
) -> None:
    client = await open_client(providers=["brave"])
    with pytest.raises(InvalidInput, match=r"queries\.1"):
        await client.batch_search(["rust async runtime", "   ", "tokio tutorial"])
    assert sims["brave"].count == 0


async def test_a_query_whose_providers_all_fail_is_reported_inline(
    sims: ProviderSims, open_client: ClientFactory
) -> None:
    sims["brave"].set("server_error", times=1)
    client = await open_client(providers=["brave"])
    items = await client.batch_search(["rust async runtime"])
    assert items[0].error and items[0].error["code"] == "all_providers_failed"
    assert items[0].error["details"]["attempts"][0]["error_code"] == "provider_unavailable"


async def test_a_batch_over_the_request_cap_is_refused_before_any_search(
    sims: ProviderSims, open_client: ClientFactory
) -> None:
    client = await open_client(providers=["brave"], max_searches_per_request=5)
    with pytest.raises(BudgetExhausted) as caught:
        await client.batch_search([f"query {n}" for n in range(6)])
    assert caught.value.code == "budget_exhausted"
    assert caught.value.details == {"limit": 5, "requested": 6}
    with pytest.raises(InvalidInput, match="queries"):  # past what any batch may hold
        await client.batch_search([f"query {n}" for n in range(MAX_BATCH_QUERIES + 1)])
    assert sims["brave"].count == 0


async def test_the_session_cap_counts_every_search(
    sims: ProviderSims, open_client: ClientFactory
) -> None:
    client = await open_client(providers=["brave"], max_searches_per_session=12)
    await client.batch_search(QUERIES)
    await client.search("tokio tutorial")
    with pytest.raises(BudgetExhausted) as caught:
        await client.batch_search(["one more", "and another"])
    assert caught.value.details == {"limit": 12, "used": 11, "requested": 2}
    assert sims["brave"].count == 11
