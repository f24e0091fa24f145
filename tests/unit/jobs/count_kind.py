"""A third job kind, whole, in one small module: it counts to `upto`, one event and one
checkpoint a step, and sums what it counted. What research/kind.py and crawl/kind.py do for
their own code, with nothing else to know about jobs."""

from __future__ import annotations

import anyio
from pydantic import BaseModel

from netsift.jobs import JobContext, Kind, Outcome
from netsift.models import Event
from netsift.usage import charge_page


class Count(BaseModel):
    upto: int
    pause: float = 0.0  # seconds between steps (a test cancels or kills it on the way)


class Counted(BaseModel):
    total: int
    resumed_at: int | None  # the step a previous attempt's checkpoint resumed it from


class Progress(BaseModel):
    at: int


class CountedSoFar(BaseModel):
    partial: bool = True
    steps: list[int]


def counted_so_far(events: list[Event]) -> CountedSoFar:
    return CountedSoFar(steps=[int(e.data["at"]) for e in events if e.type == "result"])


async def count(context: JobContext[Count, Progress]) -> Outcome[Counted]:
    start = context.saved.at if context.saved is not None else 0
    for at in range(start, context.params.upto):
        await anyio.sleep(context.params.pause)
        await charge_page()  # what a step costs, as a real kind's fetches charge it
        await context.emit("result", {"at": at})
        await context.save(Progress(at=at + 1))
    total = sum(range(context.params.upto))
    resumed = context.saved.at if context.saved is not None else None
    return Outcome(Counted(total=total, resumed_at=resumed))


COUNT = Kind("count", Count, Counted, count, checkpoint=Progress, partial=counted_so_far)
