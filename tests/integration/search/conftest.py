"""The search service, built the production way, aimed at the provider simulators.

`open_client(**settings)` gives an entered `netsift.Client`; `open_service(**settings)` a
bare SearchService with an injected clock (for breaker timing). Both close at teardown.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from netsift.client import Client
from netsift.models import SearchResponse
from netsift.net.http import HttpClient
from netsift.search.service import SearchService
from tests.offline_web.providers.fixtures import SimSettingsFactory

ClientFactory = Callable[..., Awaitable[Client]]
ServiceFactory = Callable[..., SearchService]

QUERY = "rust async runtime"
PROVIDERS = (
    "duckduckgo",
    "brave",
    "searxng",
    "tavily",
    "serpapi",
    "bing",
    "google",
    "wikipedia",
    "openalex",
    "crossref",
    "github",
    "arxiv",
)
# The published limits (1/second for most) would make back-to-back test searches wait;
# the rate-limit tests set their own.
UNLIMITED = [f"{name}=1000/second" for name in PROVIDERS]


class FakeClock:
    """Wall-clock time that moves only when a test says so."""

    def __init__(self) -> None:
        self.now = 1_790_000_000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def codes(response: SearchResponse) -> list[tuple[str, str | None]]:
    return [(a.provider, a.error_code) for a in response.attempts]


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def open_client(sim_settings: SimSettingsFactory) -> AsyncIterator[ClientFactory]:
    opened: list[Client] = []

    async def factory(**overrides: Any) -> Client:
        overrides.setdefault("capabilities", ["search", "fetch"])
        overrides.setdefault("provider_rate_limits", UNLIMITED)
        client = Client(sim_settings(**overrides))
        await client.__aenter__()
        opened.append(client)
        return client

    yield factory
    for client in opened:
        await client.aclose()


@pytest.fixture
async def open_service(
    sim_settings: SimSettingsFactory, clock: FakeClock
) -> AsyncIterator[ServiceFactory]:
    opened: list[tuple[SearchService, HttpClient]] = []

    def factory(**overrides: Any) -> SearchService:
        overrides.setdefault("provider_rate_limits", UNLIMITED)
        settings = sim_settings(**overrides)
        http = HttpClient(settings)
        service = SearchService(settings, http, clock=clock)
        opened.append((service, http))
        return service

    yield factory
    for service, http in opened:
        await service.aclose()
        await http.aclose()
