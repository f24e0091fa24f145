"""Fixtures of the offline test web: the site served once per session, settings pinned to it.

    def test_x(offline_web, web_settings): ...
    async def test_y(web_client, offline_web):
        await web_client.fetch(offline_web.url("news.test", "/article"))

Every test hostname is pinned to the loopback through `Settings.resolve` and the loopback is
exempted from the SSRF guard through `Settings.allow_networks` — the same path production
uses (`NETSIFT_RESOLVE`, `NETSIFT_ALLOW_NETWORKS`).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pytest

from netsift.config import Settings
from tests.offline_web.server import serve
from tests.offline_web.site import HOSTS, build_app
from tests.offline_web.state import SiteState

if TYPE_CHECKING:
    from netsift.client import Client

LOOPBACK = "127.0.0.1"
ALLOW_LOOPBACK = ["127.0.0.0/8"]


@dataclass(frozen=True)
class OfflineWeb:
    port: int
    hosts: tuple[str, ...]
    state: SiteState

    @property
    def pins(self) -> list[str]:
        return [f"{host}:{LOOPBACK}" for host in self.hosts]

    def url(self, host: str, path: str = "/") -> str:
        return f"http://{host}:{self.port}{path}"

    def env(self) -> dict[str, str]:
        """NETSIFT_* variables that point a subprocess at the offline web."""
        return {
            "NETSIFT_RESOLVE": ",".join(self.pins),
            "NETSIFT_ALLOW_NETWORKS": ",".join(ALLOW_LOOPBACK),
        }


@pytest.fixture(scope="session")
def offline_web() -> Iterator[OfflineWeb]:
    """The offline web, served once per session on 127.0.0.1:<random port>."""
    state = SiteState()
    with serve(build_app(state), timeout_graceful_shutdown=2) as server:
        try:
            yield OfflineWeb(port=server.port, hosts=HOSTS, state=state)
        finally:
            state.stopping.set()


@pytest.fixture(autouse=True)
def _reset_offline_web(request: pytest.FixtureRequest) -> None:
    """Counters and knobs start from zero in every test that uses the offline web."""
    if "offline_web" in request.fixturenames:
        web: OfflineWeb = request.getfixturevalue("offline_web")
        web.state.reset()


WebSettingsFactory = Callable[..., Settings]


@pytest.fixture
def web_settings(
    make_settings: Callable[..., Settings], offline_web: OfflineWeb
) -> WebSettingsFactory:
    def factory(**overrides: Any) -> Settings:
        overrides.setdefault("resolve", offline_web.pins)
        overrides.setdefault("allow_networks", ALLOW_LOOPBACK)
        return make_settings(**overrides)

    return factory


@pytest.fixture
async def web_client(web_settings: WebSettingsFactory) -> AsyncIterator[Client]:
    """An entered Client pinned to the offline web."""
    async for client in entered_client(web_settings()):
        yield client


async def entered_client(settings: Settings) -> AsyncIterator[Client]:
    """A Client entered for a fixture's whole life.

    pytest-asyncio runs a fixture's setup and teardown in different tasks, but the Client's
    task group must be entered and exited in one task: a helper task holds it open.
    """
    from netsift.client import Client  # imported late: collecting tests must not need the net layer

    opened: asyncio.Future[Client] = asyncio.get_running_loop().create_future()
    release = asyncio.Event()

    async def hold() -> None:
        try:
            async with Client(settings) as client:
                opened.set_result(client)
                await release.wait()
        except BaseException as exc:
            if not opened.done():
                opened.set_exception(exc)
            raise

    holder = asyncio.create_task(hold())
    try:
        yield await opened
    finally:
        release.set()
        await holder
