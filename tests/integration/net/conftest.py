"""Fixtures for the net layer's integration tests: one target site per module, clients on it.

Test host names (`site.test`, `other.test`) are pinned to 127.0.0.1 through
`Settings.resolve` and the loopback is exempted through `Settings.allow_networks` only by
`make_http(allow=True)` — the production path; without it the same URLs must be refused.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from netsift.config import Settings
from netsift.net.audit import AuditLog
from netsift.net.http import HttpClient
from tests.offline_web.server import LiveServer, serve

from .apps import SiteState, site_app

HOSTS = ("site.test", "other.test")


class Site:
    def __init__(self, server: LiveServer, state: SiteState) -> None:
        self.server = server
        self.state = state
        self.port = server.port

    def url(self, path: str = "/", host: str = "site.test") -> str:
        return f"http://{host}:{self.port}{path}"

    @property
    def pins(self) -> list[str]:
        return [f"{host}:127.0.0.1" for host in HOSTS]


@pytest.fixture(scope="module")
def site_server() -> Iterator[tuple[LiveServer, SiteState]]:
    state = SiteState()
    with serve(site_app(state), timeout_graceful_shutdown=1) as server:
        try:
            yield server, state
        finally:
            state.stopping.set()


@pytest.fixture
def site(site_server: tuple[LiveServer, SiteState]) -> Site:
    server, state = site_server
    state.reset()
    return Site(server, state)


MakeHttp = Callable[..., HttpClient]


@pytest.fixture
def audit_path(tmp_path: Path) -> Path:
    return tmp_path / "audit.ndjson"


def read_audit(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture
async def make_http(
    make_settings: Callable[..., Settings], site: Site, audit_path: Path
) -> AsyncIterator[MakeHttp]:
    """HttpClient factory: pins on, loopback allowed unless `allow=False`, audit to a file."""
    opened: list[HttpClient] = []

    def factory(*, allow: bool = True, resolver: Any = None, **overrides: Any) -> HttpClient:
        overrides.setdefault("resolve", site.pins)
        overrides.setdefault("allow_networks", ["127.0.0.0/8"] if allow else [])
        overrides.setdefault("retries", 0)
        settings = make_settings(**overrides)
        client = HttpClient(settings, resolver=resolver, audit=AuditLog(audit_path))
        opened.append(client)
        return client

    yield factory
    for client in opened:
        await client.aclose()
