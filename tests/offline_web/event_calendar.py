"""An events calendar with no end: `/cal/YYYY/M`, every month linking the month before and after.

Eight months (`EVENT_MONTHS`) list events, each with its own description; every other month,
back to year 1 and on for ever, is empty, and an empty month's page is the same as any other
empty month's except for its "previous" and "next" links, which name the months they point
to. Short, so no sketch of it means anything, and not the same text word for word once its
links' names are in it: what gives it away is that it adds no text, only links to more of
itself.

`build_calendar(state)` is the ASGI app; `ENTRY` the month the home page links.
"""

from __future__ import annotations

import html
import random

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.routing import Route

from tests.offline_web.state import SiteState

__all__ = ["CALENDAR_HOST", "ENTRY", "EVENT_MONTHS", "build_calendar", "month_path"]

CALENDAR_HOST = "events.test"
EVENT_MONTHS = frozenset((2025, month) for month in range(2, 10))  # February to September 2025
ENTRY = (2025, 5)

_KINDS = ("Workshop", "Open evening", "Talk", "Field trip", "Repair café", "Reading group")
_TOPICS = (
    "soldering for beginners", "the history of the harbour", "pruning fruit trees",
    "bicycle brakes", "local bird counts", "knitting with recycled yarn", "tidal energy",
    "writing a village newsletter", "mushrooms of the beech wood", "old maps of the parish",
)  # fmt: skip
_PLACES = ("the library annexe", "the boathouse", "the school hall", "the community garden")
_HOSTS = ("Ada", "Bram", "Chiara", "Dmitri", "Esther", "Farid", "Grete", "Hiro")


def month_path(year: int, month: int) -> str:
    return f"/cal/{year}/{month}"


_MONTHS = "January February March April May June July August September October November December"


def _name(year: int, month: int) -> str:
    return f"{_MONTHS.split()[month - 1]} {year}"


def _shift(year: int, month: int, by: int) -> tuple[int, int]:
    index = year * 12 + month - 1 + by
    return index // 12, index % 12 + 1


def _events(year: int, month: int) -> list[str]:
    rng = random.Random(f"events-{year}-{month}")
    out = []
    for day in sorted(rng.sample(range(1, 29), rng.randint(2, 4))):
        kind, topic, place = rng.choice(_KINDS), rng.choice(_TOPICS), rng.choice(_PLACES)
        out.append(
            f"{day} {month}/{year}: {kind} on {topic} at {place}, from {rng.randint(9, 19)}:00. "
            f"Bring {rng.choice(('a notebook', 'old clothes', 'a packed lunch', 'questions'))}; "
            f"places are limited to {rng.randint(8, 30)} and the host {rng.choice(_HOSTS)} "
            "answers questions beforehand by email."
        )
    return out


def build_calendar(state: SiteState) -> Starlette:
    """The calendar as an ASGI app on any host name; every request is counted in `state`."""

    async def robots(request: Request) -> Response:
        return PlainTextResponse("User-agent: *\nDisallow:\n")

    async def home(request: Request) -> Response:
        return HTMLResponse(
            "<!doctype html><html><head><title>Village events</title></head><body><main>"
            "<h1>Village events</h1><p>Workshops, talks and outings run by volunteers.</p>"
            f'<p><a href="{month_path(*ENTRY)}">This month</a></p></main></body></html>'
        )

    async def month(request: Request) -> Response:
        year, number = int(request.path_params["y"]), int(request.path_params["m"])
        if not 1 <= number <= 12 or year < 1:
            return PlainTextResponse("no such month", status_code=404)
        if (year, number) in EVENT_MONTHS:
            items = "".join(f"<li>{html.escape(e)}</li>" for e in _events(year, number))
        else:
            items = "<li>No events are planned yet.</li>"
        before, after = _shift(year, number, -1), _shift(year, number, 1)
        return HTMLResponse(
            f"<!doctype html><html><head><title>Events {year}-{number:02d}</title></head>"
            f'<body><nav><a href="/">Village events</a></nav><main><h1>Events</h1>'
            f"<ul>{items}</ul><p>"
            f'<a href="{month_path(*before)}">« {_name(*before)}</a> · '
            f'<a href="{month_path(*after)}">{_name(*after)} »</a></p></main></body></html>'
        )

    def counted(handler: object) -> object:
        async def endpoint(request: Request) -> Response:
            state.record(request.headers.get("host", "").rsplit(":", 1)[0], request.url.path)
            return await handler(request)  # type: ignore[operator, no-any-return]

        return endpoint

    routes = {"/robots.txt": robots, "/": home, "/cal/{y:int}/{m:int}": month}
    return Starlette(routes=[Route(path, counted(h)) for path, h in routes.items()])  # type: ignore[arg-type]
