import anyio
import pytest

from netsift.errors import BudgetExhausted, QuotaExceeded
from netsift.usage import (
    Billing,
    Usage,
    admit_search,
    caller_key,
    charge_page,
    charge_search,
    charge_tokens,
    metering,
    prepay,
)


async def test_charges_reach_every_bound_meter_and_the_record():
    recorded: list[tuple[str, int]] = []

    async def record(field: str, amount: int) -> None:
        recorded.append((field, amount))

    outer, inner = Usage(record=record), Usage(key="k1")
    with metering(outer), metering(inner):
        assert caller_key() == "k1"
        await charge_search("brave")
        await charge_search("brave")
        await charge_page()
        await charge_tokens(12)
    await charge_page()  # nothing bound: nobody is charged
    for usage in (outer, inner):
        assert usage.to_dict() == {
            "searches": 2,
            "searches_by_provider": {"brave": 2},
            "pages": 1,
            "tokens": 12,
        }
    assert recorded == [("search:brave", 1), ("search:brave", 1), ("pages", 1), ("tokens", 12)]


async def test_a_job_meter_alone_is_not_charged_to_the_request_that_started_it():
    request, job = Usage(key="k1"), Usage(key="k1")
    with metering(request), metering(job, alone=True):
        await charge_page()
    assert (request.pages, job.pages) == (0, 1)


async def test_the_cap_counts_admissions_and_the_quota_skips_prepaid_searches():
    spent: list[str] = []

    async def quota(key: str, count: int) -> None:
        if len(spent) >= 2:
            raise QuotaExceeded("over", details={"retry_after": 60})
        spent.append(key)

    billing = Billing(quota=quota, search_cap=3)
    with metering(billing.meter("k1")):
        prepay(1)
        await admit_search()  # prepaid: the quota is not asked
        await admit_search()
        await admit_search()
        with pytest.raises(BudgetExhausted):
            await admit_search()  # the cap, though the quota would refuse too
    assert spent == ["k1", "k1"]
    with metering(Billing(quota=quota).meter("k2")), pytest.raises(QuotaExceeded):
        await admit_search()


async def test_parallel_searches_cannot_slip_past_the_cap():
    meter = Billing(search_cap=2).meter(None)
    refused = 0

    async def one() -> None:
        nonlocal refused
        try:
            await admit_search()
        except BudgetExhausted:
            refused += 1

    with metering(meter):
        async with anyio.create_task_group() as group:
            for _ in range(5):
                group.start_soon(one)
    assert refused == 3


def test_a_resumed_meter_keeps_counting_from_what_was_saved():
    saved = {"searches_by_provider": {"searxng": 3}, "pages": 4, "tokens": 50}
    meter = Billing(search_cap=3).meter("k", spent=saved)
    assert meter.to_dict()["searches"] == 3 and meter.admitted == 3
