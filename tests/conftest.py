"""Fixtures every test may use: an isolated environment and Settings built the production way.

The environment is emptied of netsift's and the providers' variables and the working
directory moved to a temporary one, so a developer's `.env`, `netsift.toml` or API keys never
change what a test sees. pytest-socket (`--allow-hosts` in pyproject) is the backstop that
makes any attempt to reach the internet fail.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from netsift.config import Settings
from tests.timing import slowness

# Fixture modules, one per owner: the offline web (pages, provider simulators) and Redis.
pytest_plugins = [
    "tests.offline_web.fixtures",
    "tests.offline_web.providers.fixtures",
    "tests.redis_fixtures",
]

_FOREIGN = {
    "BRAVE_API_KEY",
    "BRAVE_SEARCH_API_KEY",
    "TAVILY_API_KEY",
    "SERPAPI_API_KEY",
    "GOOGLE_API_KEY",
    "GOOGLE_CSE_ID",
    "GITHUB_TOKEN",
    "OPENALEX_API_KEY",
    "CROSSREF_MAILTO",
    "SEARXNG_URL",
    "SEARXNG_API_URL",
    "SEARX_HOST",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "REDIS_URL",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "NO_PROXY",
}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """pytest-timeout's limit (pyproject, or a test's own `timeout` mark) is a hang guard in
    seconds of the quiet development machine: stretch it by this machine's measured slowness,
    so a busy runner waits longer for a slow test instead of killing it."""
    factor = slowness()
    if factor <= 1.0:
        return
    default = float(config.getoption("timeout", None) or config.getini("timeout") or 0)
    for item in items:
        marked = item.get_closest_marker("timeout")
        seconds = float(marked.args[0]) if marked and marked.args else default
        if seconds > 0:
            item.add_marker(pytest.mark.timeout(seconds * factor), append=False)


@pytest.fixture(autouse=True)
def isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in list(os.environ):
        if name.startswith("NETSIFT_") or name.upper() in _FOREIGN:
            monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)


SettingsFactory = Callable[..., Settings]


@pytest.fixture
def make_settings(tmp_path: Path) -> SettingsFactory:
    """Settings with everything on disk under tmp_path and an in-memory search cache."""

    def factory(**overrides: Any) -> Settings:
        overrides.setdefault("data_dir", tmp_path / "data")
        overrides.setdefault("cache_url", "memory://")
        return Settings(**overrides)

    return factory
