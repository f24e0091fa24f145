"""Fixtures for research tests: the research web, the scripted LLM, settings pointing at both.

    from tests.integration.research.fixtures import *  # noqa: F403  (in a test module)

Both servers run once per session on 127.0.0.1 (random ports) and are reset per test. The
settings reach them the production way: `searxng_url` for search, `resolve` pins for the page
hosts (the SSRF guard stays on, the loopback is allowed), `openai_base_url` for the model.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from netsift.config import Settings
from tests.integration.research.web import DOCS, HOSTS, INJECTION_DOCS, WebState, build_app
from tests.offline_web.llm import MODEL, LLMState, create_app
from tests.offline_web.server import serve

__all__ = [
    "ResearchWeb",
    "ScriptedLLM",
    "injection_web",
    "injection_web_server",
    "llm",
    "llm_server",
    "research_settings",
    "research_web",
    "research_web_server",
]


@dataclass(frozen=True)
class ResearchWeb:
    port: int
    state: WebState

    @property
    def pins(self) -> list[str]:
        return [f"{host}:127.0.0.1" for host in HOSTS]

    def url(self, host: str, path: str = "/") -> str:
        return f"http://{host}:{self.port}{path}"

    def env(self) -> dict[str, str]:
        """The same settings as environment variables, for a netsift subprocess."""
        return {
            "NETSIFT_RESOLVE": ",".join(self.pins),
            "NETSIFT_ALLOW_NETWORKS": "127.0.0.0/8",
            "NETSIFT_PROVIDERS": "searxng",
            "SEARXNG_URL": self.url("search.test"),
        }


@dataclass(frozen=True)
class ScriptedLLM:
    port: int
    state: LLMState

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def env(self) -> dict[str, str]:
        return {"NETSIFT_LLM_MODEL": MODEL, "OPENAI_BASE_URL": self.base_url}


@pytest.fixture(scope="session")
def research_web_server() -> Iterator[ResearchWeb]:
    state = WebState()
    with serve(build_app(state)) as server:
        yield ResearchWeb(port=server.port, state=state)


@pytest.fixture
def research_web(research_web_server: ResearchWeb) -> ResearchWeb:
    research_web_server.state.reset()
    return research_web_server


@pytest.fixture(scope="session")
def injection_web_server() -> Iterator[ResearchWeb]:
    """The research web with its injection pages too (web.INJECTION_DOCS)."""
    state = WebState()
    with serve(build_app(state, DOCS + INJECTION_DOCS)) as server:
        yield ResearchWeb(port=server.port, state=state)


@pytest.fixture
def injection_web(injection_web_server: ResearchWeb) -> ResearchWeb:
    """Use with `research_settings(searxng_url=injection_web.url("search.test"))`."""
    injection_web_server.state.reset()
    return injection_web_server


@pytest.fixture(scope="session")
def llm_server() -> Iterator[ScriptedLLM]:
    state = LLMState()
    with serve(create_app(state)) as server:
        yield ScriptedLLM(port=server.port, state=state)


@pytest.fixture
def llm(llm_server: ScriptedLLM) -> ScriptedLLM:
    llm_server.state.reset()
    return llm_server


ResearchSettings = Callable[..., Settings]


@pytest.fixture
def research_settings(
    make_settings: Callable[..., Settings],
    research_web: ResearchWeb,
    llm: ScriptedLLM,
    tmp_path: Path,
) -> ResearchSettings:
    """Settings for a research run; `with_llm=False` leaves the model out (extractive)."""

    def factory(*, with_llm: bool = True, **overrides: Any) -> Settings:
        overrides.setdefault("resolve", research_web.pins)
        overrides.setdefault("allow_networks", ["127.0.0.0/8"])
        overrides.setdefault("providers", ["searxng"])
        overrides.setdefault("searxng_url", research_web.url("search.test"))
        overrides.setdefault("jobs_url", f"sqlite:///{tmp_path / 'jobs.sqlite3'}")
        if with_llm:
            overrides.setdefault("llm_model", MODEL)
            overrides.setdefault("openai_base_url", llm.base_url)
        return make_settings(**overrides)

    return factory
