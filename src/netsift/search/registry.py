"""Which providers exist: the built-ins and third-party plugins, through one loader.

Built-ins are listed below as `"module:Class"` strings (llm's `DEFAULT_PLUGINS` habit); other
packages add providers through the `netsift.providers` entry-point group. A plugin package
declares, in its own pyproject.toml:

    [project.entry-points."netsift.providers"]
    myengine = "mypackage.myengine:MyEngine"

`MyEngine` subclasses `netsift.search.provider.Provider` with `name = "myengine"` (the
entry-point name, a single lowercase token), an `about`, `build_request` and `parse_response`.
Once installed, `NETSIFT_PROVIDERS=myengine,duckduckgo` uses it like any built-in.

Loading never fails because of a plugin: one that cannot be imported, is not a Provider, or
names itself differently from its entry point is logged and skipped. A plugin may not take a
built-in's name: the built-in is kept and a warning says which package tried.
"""

from __future__ import annotations

import importlib
import inspect
import logging
import re
from importlib.metadata import EntryPoint, entry_points

from ..config import Settings
from .provider import About, Provider

__all__ = [
    "BUILTIN_PROVIDERS",
    "ENTRY_POINT_GROUP",
    "create_providers",
    "load_provider_classes",
]

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "netsift.providers"
BUILTIN_PROVIDERS = (
    "netsift.search.providers.duckduckgo:DuckDuckGo",
    "netsift.search.providers.brave:Brave",
    "netsift.search.providers.searxng:SearXNG",
    "netsift.search.providers.tavily:Tavily",
    "netsift.search.providers.serpapi:SerpApi",
    "netsift.search.providers.google:Google",
    "netsift.search.providers.bing:Bing",
    "netsift.search.providers.wikipedia:Wikipedia",
    "netsift.search.providers.openalex:OpenAlex",
    "netsift.search.providers.crossref:Crossref",
    "netsift.search.providers.github:GitHub",
    "netsift.search.providers.arxiv:Arxiv",
)
_NAME = re.compile(r"^[a-z][a-z0-9]*$")


def load_provider_classes() -> dict[str, type[Provider]]:
    """Every provider class by name: built-ins first, in the order above, then plugins."""
    classes: dict[str, type[Provider]] = {}
    for spec in BUILTIN_PROVIDERS:
        module_name, _, class_name = spec.partition(":")
        cls = getattr(importlib.import_module(module_name), class_name)
        classes[cls.name] = cls
    builtins = set(classes)
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        cls = _load_plugin(entry)
        if cls is None:
            continue
        if entry.name in builtins:
            log.warning(
                "provider plugin %r (%s, from %s) has the name of a built-in provider;"
                " the built-in is kept and the plugin ignored",
                entry.name,
                entry.value,
                _package(entry),
            )
            continue
        if entry.name in classes:
            log.warning(
                "two provider plugins are named %r; keeping %s, ignoring %s (from %s)",
                entry.name,
                f"{classes[entry.name].__module__}:{classes[entry.name].__qualname__}",
                entry.value,
                _package(entry),
            )
            continue
        classes[entry.name] = cls
    return classes


def create_providers(
    settings: Settings, classes: dict[str, type[Provider]] | None = None
) -> dict[str, Provider]:
    """One instance of every provider, each with its own frozen slice of the settings."""
    classes = load_provider_classes() if classes is None else classes
    providers: dict[str, Provider] = {}
    for name, cls in classes.items():
        if cls.__module__.startswith("netsift."):
            providers[name] = cls(settings.provider_settings(name))
            continue
        try:
            providers[name] = cls(settings.provider_settings(name))
        except Exception:
            log.warning("provider plugin %r could not be created; skipped", name, exc_info=True)
    return providers


def _load_plugin(entry: EntryPoint) -> type[Provider] | None:
    """The plugin's Provider class, or None (with the reason logged) when it is unusable."""
    try:
        loaded = entry.load()
    except Exception:
        log.warning(
            "provider plugin %r (%s, from %s) could not be loaded; skipped",
            entry.name,
            entry.value,
            _package(entry),
            exc_info=True,
        )
        return None
    problem = _problem(entry.name, loaded)
    if problem:
        log.warning(
            "provider plugin %r (%s, from %s) is skipped: %s",
            entry.name,
            entry.value,
            _package(entry),
            problem,
        )
        return None
    cls: type[Provider] = loaded
    return cls


def _problem(name: str, loaded: object) -> str | None:
    if not _NAME.match(name):
        return "a provider name is a single lowercase token (letters and digits, no _ or -)"
    if not (isinstance(loaded, type) and issubclass(loaded, Provider)):
        return "it is not a subclass of netsift.search.provider.Provider"
    if inspect.isabstract(loaded):
        return "it does not implement build_request and parse_response"
    if getattr(loaded, "name", None) != name:
        return f"its class says name = {getattr(loaded, 'name', None)!r}, not {name!r}"
    if not isinstance(getattr(loaded, "about", None), About):
        return "it has no `about` (netsift.search.provider.About)"
    return None


def _package(entry: EntryPoint) -> str:
    dist = entry.dist
    return f"{dist.name} {dist.version}" if dist is not None else "an unknown package"
