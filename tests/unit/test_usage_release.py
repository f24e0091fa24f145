"""A search admitted against a quota and the per-request cap, that never went out to a
provider (breakers open, no time left, cancelled while waiting), is given back."""

from __future__ import annotations

import anyio
import pytest

from netsift.errors import BudgetExhausted, QuotaExceeded
from netsift.server.limits import ClientLimits
from netsift.usage import Billing, charge_search, metering, reserve_search


class Quota:
    """A quota of `left` searches per key, taken and given back as the meter asks."""

    def __init__(self, left: int) -> None:
        self.left = left

    async def take(self, key: str, n: int) -> None:
        if n > self.left:
            raise QuotaExceeded("no searches left")
        self.left -= n

    async def give(self, key: str, n: int) -> None:
        self.left += n


async def test_a_search_that_never_went_out_is_given_back_to_the_quota_and_the_cap():
    quota = Quota(left=2)
    billing = Billing(quota=quota.take, unquota=quota.give, search_cap=2)
    with metering(billing.meter("key-a")) as usage:
        async with reserve_search():  # every provider skipped: nothing sent
            pass
        assert quota.left == 2 and usage.admitted == 0
        with anyio.move_on_after(0.01):  # cancelled while it waited for a provider
            async with reserve_search():
                await anyio.sleep(1)
        assert quota.left == 2 and usage.admitted == 0
        for _ in range(2):  # sent: spent, and kept
            async with reserve_search():
                await charge_search("searxng")
        assert quota.left == 0 and usage.admitted == 2 and usage.total_searches == 2
        with pytest.raises(BudgetExhausted):  # the cap, counted on what was sent
            async with reserve_search():
                pass


async def test_a_failed_search_that_reached_a_provider_is_not_given_back():
    quota = Quota(left=1)
    billing = Billing(quota=quota.take, unquota=quota.give)
    with metering(billing.meter("key-a")), pytest.raises(RuntimeError):
        async with reserve_search():
            await charge_search("searxng")
            raise RuntimeError("the provider answered 500")
    assert quota.left == 0


@pytest.mark.parametrize("shared", [False, pytest.param(True, marks=pytest.mark.redis)])
async def test_the_server_quota_window_gives_back_what_it_took(shared, request):
    url = request.getfixturevalue("redis_url") if shared else "memory://"
    limits = ClientLimits(rate_limit=None, search_quota="2/day", storage_url=url)
    await limits.reset()
    await limits.spend_searches("client", 2)
    with pytest.raises(QuotaExceeded):
        await limits.spend_searches("client", 1)
    await limits.release_searches("client", 1)
    await limits.spend_searches("client", 1)  # the one given back
    with pytest.raises(QuotaExceeded):
        await limits.spend_searches("client", 1)
