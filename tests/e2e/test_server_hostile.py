"""A hostile page cannot stall the server: while one client's fetch runs past its CPU budget in
the compute pool, `/healthz` keeps answering, and the fetch ends as `too_complex` (HTTP 422)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from netsift.server import create_app
from tests.offline_web.hostile import unclosed_divs
from tests.offline_web.server import LiveServer, serve

UNCLOSED = unclosed_divs(400_000)  # minutes of CPU for trafilatura's pipeline


async def _page(request: Request) -> Response:
    return Response(UNCLOSED, media_type="text/html")


@pytest.fixture(scope="module")
def hostile_site() -> Iterator[LiveServer]:
    with serve(Starlette(routes=[Route("/{path:path}", _page)])) as server:
        yield server


async def test_healthz_answers_while_a_page_runs_away(make_settings, hostile_site):
    settings = make_settings(
        capabilities=["fetch"],
        resolve=["hostile.test:127.0.0.1"],
        allow_networks=["127.0.0.0/8"],
        respect_robots=False,
        workers=1,
        task_cpu_seconds=1,
    )
    with serve(create_app(settings), lifespan="on") as api:
        async with httpx.AsyncClient(timeout=60) as http:
            fetch = asyncio.ensure_future(
                http.post(
                    api.url("/v1/fetch"),
                    json={"url": f"http://hostile.test:{hostile_site.port}/divs"},
                )
            )
            answered = 0
            while not fetch.done():
                health = await http.get(api.url("/healthz"), timeout=5)
                assert health.status_code == 200
                answered += 1
                await asyncio.sleep(0.05)
            response = await fetch
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["code"] == "too_complex"
    assert error["details"]["limit"] in ("cpu", "time")
    assert answered >= 5  # the loop went on answering while the page was parsed elsewhere
