"""Settings shared by the e2e suites of the agent-facing doors (MCP, tools, WebSocket)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from netsift.config import Settings
from tests.offline_web.hostile import runaway
from tests.offline_web.server import LiveServer, serve


@pytest.fixture
def door_settings(sim_settings, sims, offline_web) -> Callable[..., Settings]:
    """The provider simulators (tavily first) and the offline web, search and fetch on."""

    def factory(**overrides: Any) -> Settings:
        overrides.setdefault("resolve", sims.pins + offline_web.pins)
        overrides.setdefault("providers", ["tavily"])
        overrides.setdefault("capabilities", ["search", "fetch"])
        settings: Settings = sim_settings(**overrides)
        return settings

    return factory


async def _runaway(request: Request) -> Response:
    return Response(runaway(), media_type="text/html")


@pytest.fixture(scope="module")
def hostile_site() -> Iterator[LiveServer]:
    """A site whose every path is the runaway page (tests/offline_web/hostile.py)."""
    with serve(Starlette(routes=[Route("/{path:path}", _runaway)])) as server:
        yield server
