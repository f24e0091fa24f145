"""The generated site (tests/offline_web/generated.py) served once per module, and Clients
pinned to it: the site and `elsewhere.test` on the loopback, its `www.` name on a private
address the guard refuses."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from netsift.client import Client
from netsift.config import Settings
from tests.offline_web.fixtures import entered_client
from tests.offline_web.generated import SiteSpec, build_site
from tests.offline_web.server import serve
from tests.offline_web.state import SiteState


@dataclass(frozen=True)
class GeneratedSite:
    spec: SiteSpec
    port: int
    state: SiteState

    def url(self, path: str = "/") -> str:
        return f"http://{self.spec.host}:{self.port}{path}"

    @property
    def pins(self) -> list[str]:
        return [
            f"{self.spec.host}:127.0.0.1",
            "elsewhere.test:127.0.0.1",
            f"www.{self.spec.host}:10.0.0.7",  # the site's own www. name: a private address
        ]

    def env(self) -> dict[str, str]:
        return {"NETSIFT_RESOLVE": ",".join(self.pins), "NETSIFT_ALLOW_NETWORKS": "127.0.0.0/8"}


def serve_site(spec: SiteSpec) -> Iterator[GeneratedSite]:
    state = SiteState()
    with serve(build_site(spec, state), timeout_graceful_shutdown=1) as server:
        yield GeneratedSite(spec, server.port, state)


@pytest.fixture(scope="module")
def site() -> Iterator[GeneratedSite]:
    yield from serve_site(SiteSpec(pages=40))


SiteSettings = Callable[..., Settings]


@pytest.fixture
def site_settings(make_settings: Callable[..., Settings], site: GeneratedSite) -> SiteSettings:
    def factory(**overrides: Any) -> Settings:
        overrides.setdefault("resolve", site.pins)
        overrides.setdefault("allow_networks", ["127.0.0.0/8"])
        overrides.setdefault("jobs_url", "memory://")
        return make_settings(**overrides)

    return factory


@pytest.fixture
async def crawl_client(site_settings: SiteSettings) -> AsyncIterator[Client]:
    """An entered Client (its task group held open by one task, as web_client's)."""
    async for client in entered_client(site_settings()):
        yield client
