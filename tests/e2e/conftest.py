"""Settings shared by the e2e suites of the agent-facing doors (MCP, tools, WebSocket)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from netsift.config import Settings


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
