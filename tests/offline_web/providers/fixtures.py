"""Fixtures of the provider simulators: served once per session, knobs reset for every test.

    async def test_x(sims, sim_settings):
        sims["brave"].set("rate_limit")
        async with Client(sim_settings(providers=["brave", "duckduckgo"])) as client:
            found = await client.search("rust async runtime")

`sim_settings` points every provider at its simulator through the ordinary settings
(`<provider>_base_url`, the usual keys) and pins the simulators' hostnames to the loopback,
which only these tests exempt from the SSRF guard. `sims.env()` gives the same as environment
variables for a subprocess.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from netsift.config import Settings
from tests.offline_web.providers import HOSTS, SIMULATORS, build_app, new_state
from tests.offline_web.providers.sim import Knob, SimState
from tests.offline_web.server import serve

LOOPBACK = "127.0.0.1"
ALLOW_LOOPBACK = ["127.0.0.0/8"]

# The host each provider's base URL names (bing goes through the serpapi simulator).
BASE_HOSTS = {
    "duckduckgo": "duckduckgo.test",
    "brave": "brave.test",
    "searxng": "searxng.test",
    "tavily": "tavily.test",
    "serpapi": "serpapi.test",
    "bing": "serpapi.test",
    "google": "google.test",
    "wikipedia": "en.wikipedia.test",
    "openalex": "openalex.test",
    "crossref": "crossref.test",
    "github": "github.test",
    "arxiv": "arxiv.test",
}

# The simulators' accounts, as settings fields and as the ecosystem's environment variables.
KEYS = {
    "brave_api_key": ("BRAVE_API_KEY", SIMULATORS["brave"].KEY),
    "tavily_api_key": ("TAVILY_API_KEY", SIMULATORS["tavily"].KEY),
    "serpapi_api_key": ("SERPAPI_API_KEY", SIMULATORS["serpapi"].KEY),
    "google_api_key": ("GOOGLE_API_KEY", SIMULATORS["google"].KEY),
    "google_cse_id": ("GOOGLE_CSE_ID", SIMULATORS["google"].CX),
    "github_token": ("GITHUB_TOKEN", SIMULATORS["github"].TOKEN),
    "openalex_api_key": ("OPENALEX_API_KEY", SIMULATORS["openalex"].KEY),
}


@dataclass(frozen=True)
class ProviderSims:
    port: int
    state: SimState

    def __getitem__(self, name: str) -> Knob:
        return self.state["serpapi" if name == "bing" else name]

    @property
    def pins(self) -> list[str]:
        return [f"{host}:{LOOPBACK}" for host in HOSTS]

    @property
    def wayback_url(self) -> str:
        """The Internet Archive simulator (providers/archive.py), for NETSIFT_WAYBACK_URL."""
        return f"http://archive.test:{self.port}"

    def base_url(self, provider: str) -> str:
        return f"http://{BASE_HOSTS[provider]}:{self.port}"

    def settings_values(self, *, keys: bool = True) -> dict[str, Any]:
        """Settings fields that point every provider at its simulator."""
        values: dict[str, Any] = {f"{name}_base_url": self.base_url(name) for name in BASE_HOSTS}
        values["searxng_url"] = self.base_url("searxng")
        values["wayback_url"] = self.wayback_url
        values["resolve"] = self.pins
        values["allow_networks"] = ALLOW_LOOPBACK
        if keys:
            values.update({field: value for field, (_, value) in KEYS.items()})
        return values

    def env(self, *, keys: bool = True) -> dict[str, str]:
        """The same as environment variables, for the CLI in a subprocess."""
        env = {f"NETSIFT_{name.upper()}_BASE_URL": self.base_url(name) for name in BASE_HOSTS}
        env["SEARXNG_URL"] = self.base_url("searxng")
        env["NETSIFT_WAYBACK_URL"] = self.wayback_url
        env["NETSIFT_RESOLVE"] = ",".join(self.pins)
        env["NETSIFT_ALLOW_NETWORKS"] = ",".join(ALLOW_LOOPBACK)
        if keys:
            env.update({variable: value for variable, value in KEYS.values()})
        return env


@pytest.fixture(scope="session")
def provider_sims() -> Iterator[ProviderSims]:
    """Every provider simulator, served once per session on 127.0.0.1:<random port>."""
    state = new_state()
    with serve(build_app(state), timeout_graceful_shutdown=2) as server:
        yield ProviderSims(port=server.port, state=state)


@pytest.fixture
def sims(provider_sims: ProviderSims) -> Iterator[ProviderSims]:
    """The simulators with every knob at its default (ok, no latency, no requests seen)."""
    provider_sims.state.reset()
    yield provider_sims
    provider_sims.state.reset()


SimSettingsFactory = Callable[..., Settings]


@pytest.fixture
def sim_settings(make_settings: Callable[..., Settings], sims: ProviderSims) -> SimSettingsFactory:
    """`(**overrides) -> Settings` aimed at the simulators (keys set unless overridden)."""

    def factory(**overrides: Any) -> Settings:
        values = sims.settings_values()
        values.update(overrides)
        return make_settings(**values)

    return factory
