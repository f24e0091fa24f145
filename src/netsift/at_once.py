"""Several pages read at once for one request, and how many.

A request that reads a handful of pages (research's round, `context`, `extract_data`, a
search that reads its results, the derived fields of a Firecrawl status page) reads them a
few at a time: enough to hide one slow page behind the others, few enough that one request
neither floods one site nor takes the whole extraction pool. Each host's politeness still
paces the reads under this bound.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

import anyio

__all__ = ["PAGES_AT_ONCE", "each"]

PAGES_AT_ONCE = 4

T = TypeVar("T")
R = TypeVar("R")


async def each(
    items: Sequence[T], work: Callable[[T], Awaitable[R]], *, limit: int = PAGES_AT_ONCE
) -> list[R]:
    """`work` done on every item, at most `limit` at once; the results in the items' order.
    An exception `work` lets out cancels the others and is raised (as a task group does), so
    `work` turns what it can survive (a page that failed) into a value."""
    done: dict[int, R] = {}
    gate = anyio.Semaphore(limit)

    async def one(index: int, item: T) -> None:
        async with gate:
            done[index] = await work(item)

    async with anyio.create_task_group() as group:
        for index, item in enumerate(items):
            group.start_soon(one, index, item)
    return [done[index] for index in range(len(items))]
