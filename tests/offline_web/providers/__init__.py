"""Provider simulators: one Starlette app answering for every search provider, by Host.

    state = SimState(MODES)
    with serve(build_app(state)) as server:   # tests/offline_web/server.py
        ...  # point netsift at http://brave.test:PORT etc. (pinned to 127.0.0.1)

Each provider's module speaks its exact wire format (providers/data/) and knows its
failure modes; `sim.py` holds the knobs the tests turn; `fixtures.py` wires it into pytest.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from types import ModuleType

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from . import (
    archive,
    arxiv,
    brave,
    crossref,
    duckduckgo,
    github,
    google,
    openalex,
    searxng,
    serpapi,
    tavily,
    wikipedia,
)
from .sim import Knob, Seen, SimState, record

__all__ = ["HOSTS", "MODES", "SIMULATORS", "SimState", "build_app", "new_state"]

SIMULATORS: dict[str, ModuleType] = {
    module.NAME: module
    for module in (
        duckduckgo,
        brave,
        searxng,
        tavily,
        serpapi,
        google,
        wikipedia,
        openalex,
        crossref,
        github,
        arxiv,
        archive,
    )
}
MODES = {name: module.MODES for name, module in SIMULATORS.items()}
HOSTS = {host: name for name, module in SIMULATORS.items() for host in module.HOSTS}

Handler = Callable[[Request, Knob, Seen], Awaitable[Response]]


def new_state(*, link_port: int | None = None) -> SimState:
    """Fresh knobs; `link_port` makes results link to pages served there (the offline tour)."""
    return SimState(MODES, link_port=link_port)


def build_app(state: SimState) -> Starlette:
    """One app for all simulators: the Host header picks the provider."""

    async def dispatch(request: Request) -> Response:
        host = (request.url.hostname or "").lower()
        name = HOSTS.get(host)
        if name is None:
            return PlainTextResponse(f"no simulator for host {host!r}", status_code=421)
        knob = state[name]
        seen = await record(request, knob)
        if knob.latency:
            await anyio.sleep(knob.latency)
        handler: Handler = SIMULATORS[name].handle
        return await handler(request, knob, seen)

    methods = ["GET", "POST", "HEAD"]
    return Starlette(routes=[Route("/{path:path}", dispatch, methods=methods)])
