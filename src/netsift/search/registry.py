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

A SearchService holds its providers as `Providers`, a mapping that imports and builds a
built-in only when it is looked up, and scans the plugins only when a name that is not
built-in is asked for or the whole list is: a search on one provider loads one module.
"""

from __future__ import annotations

import importlib
import inspect
import logging
import re
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from ..config import Settings
from .provider import About, Provider

if TYPE_CHECKING:  # importlib.metadata loads with the first plugin scan (~10 ms)
    from importlib.metadata import EntryPoint

__all__ = [
    "BUILTIN_PROVIDERS",
    "ENTRY_POINT_GROUP",
    "Providers",
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


# A built-in's name is its module's (a test keeps `cls.name` equal to it), so a name can be
# checked and listed without importing the module.
_BUILTIN_SPECS = {spec.partition(":")[0].rsplit(".", 1)[-1]: spec for spec in BUILTIN_PROVIDERS}


def _builtin_class(spec: str) -> type[Provider]:
    module_name, _, class_name = spec.partition(":")
    cls: type[Provider] = getattr(importlib.import_module(module_name), class_name)
    return cls


def load_provider_classes() -> dict[str, type[Provider]]:
    """Every provider class by name: built-ins first, in the order above, then plugins."""
    classes = {name: _builtin_class(spec) for name, spec in _BUILTIN_SPECS.items()}
    return {**classes, **_plugin_classes()}


def _plugin_classes() -> dict[str, type[Provider]]:
    """The usable plugins by name (none may take a built-in's name); the rest logged."""
    from importlib.metadata import entry_points

    builtins = set(_BUILTIN_SPECS)
    classes: dict[str, type[Provider]] = {}
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


class Providers(Mapping[str, Provider]):
    """What `create_providers(settings)` returns, built as it is used (see the docstring).

    The same names in the same order, the same instances once built, the same plugin
    warnings: a built-in is imported and created at its first lookup; the plugins are
    loaded, checked and created together, the first time a name that is not built-in is
    looked up or the providers are listed.
    """

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._built: dict[str, Provider] = {}
        self._plugins: dict[str, Provider] | None = None

    def _plugin_providers(self) -> dict[str, Provider]:
        if self._plugins is None:
            self._plugins = create_providers(self._settings, _plugin_classes())
        return self._plugins

    def __getitem__(self, name: str) -> Provider:
        spec = _BUILTIN_SPECS.get(name)
        if spec is None:
            return self._plugin_providers()[name]
        provider = self._built.get(name)
        if provider is None:
            cls = _builtin_class(spec)
            provider = self._built[name] = cls(self._settings.provider_settings(name))
        return provider

    def __contains__(self, name: object) -> bool:
        return name in _BUILTIN_SPECS or name in self._plugin_providers()

    def __iter__(self) -> Iterator[str]:
        yield from _BUILTIN_SPECS
        yield from self._plugin_providers()

    def __len__(self) -> int:
        return len(_BUILTIN_SPECS) + len(self._plugin_providers())


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
