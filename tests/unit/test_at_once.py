"""A few at once: every item done, in the items' order, never more than the limit in flight."""

from __future__ import annotations

import anyio
import anyio.lowlevel
import pytest

from netsift.at_once import PAGES_AT_ONCE, each


async def test_results_keep_the_items_order_and_the_limit_holds() -> None:
    in_flight = most = 0

    async def work(n: int) -> int:
        nonlocal in_flight, most
        in_flight += 1
        most = max(most, in_flight)
        await anyio.sleep(0.001 * (10 - n))  # later items finish first
        in_flight -= 1
        return n * n

    assert await each(list(range(10)), work) == [n * n for n in range(10)]
    assert most == PAGES_AT_ONCE
    most = 0
    assert await each([3, 1], work, limit=1) == [9, 1]
    assert most == 1
    assert await each([], work) == []


async def test_an_error_the_work_lets_out_is_raised() -> None:
    async def work(n: int) -> int:
        if n == 2:
            raise ValueError("two")
        await anyio.lowlevel.checkpoint()
        return n

    with pytest.raises(ExceptionGroup) as caught:  # anyio's task group, as every caller's
        await each([1, 2, 3], work)
    assert caught.group_contains(ValueError, match="two")
