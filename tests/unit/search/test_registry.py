"""The registry: built-in providers and third-party ones from real entry points.

Plugins are real distributions: the tests write a `*.dist-info` with `entry_points.txt` and a
module into a temporary directory and put it on `sys.path`, which is exactly how an installed
package is found (importlib.metadata reads the same files).
"""

from __future__ import annotations

import importlib
import logging
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from limits import parse_many

from netsift.config import Settings
from netsift.models import Query
from netsift.search.provider import Provider
from netsift.search.providers.duckduckgo import DuckDuckGo
from netsift.search.registry import (
    BUILTIN_PROVIDERS,
    ENTRY_POINT_GROUP,
    create_providers,
    load_provider_classes,
)

BUILTINS = {
    "duckduckgo",
    "brave",
    "searxng",
    "tavily",
    "serpapi",
    "google",
    "bing",
    "wikipedia",
    "openalex",
    "crossref",
    "github",
    "arxiv",
}

PLUGIN_MODULE = """
import httpx

from netsift.models import Query, SearchResult
from netsift.search.provider import About, Provider


class MyEngine(Provider):
    name = "myengine"
    about = About(website="https://myengine.test", docs="", base_url="https://myengine.test")

    def build_request(self, query: Query) -> httpx.Request:
        return httpx.Request("GET", f"{self.base_url}/s", params={"q": query.text})

    def parse_response(self, response: httpx.Response, query: Query) -> list[SearchResult]:
        return []


class Shadow(MyEngine):
    name = "duckduckgo"


class Incomplete(Provider):
    name = "incomplete"
    about = MyEngine.about


class Exploding(MyEngine):
    name = "exploding"

    def __init__(self, settings):
        raise RuntimeError("boom")


NOT_A_CLASS = 42
"""


@pytest.fixture
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Install a distribution `netsift-test-plugin` whose entry points register providers."""
    module = f"netsift_plugin_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{module}.py").write_text(PLUGIN_MODULE, "utf-8")
    dist_info = tmp_path / "netsift_test_plugin-1.0.dist-info"
    dist_info.mkdir()
    (dist_info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: netsift-test-plugin\nVersion: 1.0\n", "utf-8"
    )
    (dist_info / "entry_points.txt").write_text(
        textwrap.dedent(
            f"""\
            [{ENTRY_POINT_GROUP}]
            myengine = {module}:MyEngine
            duckduckgo = {module}:Shadow
            wrongname = {module}:MyEngine
            Bad_Name = {module}:MyEngine
            missing = {module}:DoesNotExist
            nomodule = {module}_absent:Thing
            incomplete = {module}:Incomplete
            exploding = {module}:Exploding
            number = {module}:NOT_A_CLASS
            """
        ),
        "utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        yield module
    finally:
        sys.modules.pop(module, None)
        importlib.invalidate_caches()


def test_builtins_have_one_identity_everywhere() -> None:
    classes = load_provider_classes()
    assert set(classes) == BUILTINS
    for spec in BUILTIN_PROVIDERS:
        module, _, _ = spec.partition(":")
        cls = classes[module.rsplit(".", 1)[-1]]
        assert cls.name == module.rsplit(".", 1)[-1]
        assert f"{cls.__module__}:{cls.__qualname__}" == spec


@pytest.mark.parametrize("name", sorted(BUILTINS))
def test_builtin_about_is_complete(name: str) -> None:
    about = load_provider_classes()[name].about
    assert about.website.startswith("https://")
    assert about.docs.startswith("https://")
    assert about.base_url.startswith(("https://", "http://"))
    assert about.kind in {"web", "scholarly", "code", "encyclopedia"}
    assert about.results in {"JSON", "HTML", "Atom"}
    assert parse_many(about.rate_limit)
    assert about.max_count >= 10
    assert not about.requires_key or about.key_env


def test_create_providers_hands_each_its_settings(make_settings) -> None:
    settings: Settings = make_settings(
        brave_api_key="BSA-secret", google_api_key="g-key", google_cse_id="cx-1"
    )
    providers = create_providers(settings)
    assert set(providers) == BUILTINS
    assert all(isinstance(p, Provider) and p.name == n for n, p in providers.items())
    assert providers["brave"].settings.key() == "BSA-secret" and providers["brave"].configured()
    assert providers["google"].configured()
    assert not providers["tavily"].configured()
    assert providers["duckduckgo"].configured() and providers["arxiv"].configured()


def test_two_settings_two_sets_of_providers(make_settings) -> None:
    first = create_providers(make_settings(brave_api_key="one"))
    second = create_providers(make_settings(brave_api_key="two"))
    assert first["brave"].settings.key() == "one"
    assert second["brave"].settings.key() == "two"


def test_plugin_from_an_entry_point(plugin: str, make_settings) -> None:
    classes = load_provider_classes()
    assert classes["myengine"].__module__ == plugin
    providers = create_providers(make_settings(), classes)
    assert providers["myengine"].settings.name == "myengine"
    request = providers["myengine"].build_request(Query(text="hello"))
    assert str(request.url) == "https://myengine.test/s?q=hello"


def test_a_plugin_cannot_shadow_a_builtin(plugin: str, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="netsift.search.registry"):
        classes = load_provider_classes()
    assert classes["duckduckgo"] is DuckDuckGo
    assert "'duckduckgo'" in caplog.text and "built-in is kept" in caplog.text
    assert "netsift-test-plugin 1.0" in caplog.text


def test_bad_plugins_are_logged_and_skipped(plugin: str, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="netsift.search.registry"):
        classes = load_provider_classes()
    for name in ("wrongname", "Bad_Name", "missing", "nomodule", "incomplete", "number"):
        assert name not in classes
        assert f"'{name}'" in caplog.text
    assert "not a subclass" in caplog.text
    assert "class says name = 'myengine', not 'wrongname'" in caplog.text
    assert "single lowercase token" in caplog.text


def test_a_plugin_that_fails_to_start_is_skipped(
    plugin: str, make_settings, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="netsift.search.registry"):
        providers = create_providers(make_settings())
    assert "exploding" not in providers
    assert "myengine" in providers and "duckduckgo" in providers
    assert "'exploding' could not be created" in caplog.text
