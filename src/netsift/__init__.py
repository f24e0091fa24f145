"""netsift: self-hosted web search and reading for AI agents.

Every public name is imported on first use (PEP 562), not with the package: a command or an
agent's tool call pays only for what it touches (`netsift --help` loads no extractor, `netsift
search` no PDF reader or research stack), and `import netsift` stays cheap.
"""

import importlib
import sys
import types
import typing

from ._version import __version__

if typing.TYPE_CHECKING:
    from .api import extract, fetch, research, search
    from .client import Client
    from .config import Settings
    from .errors import (
        AllProvidersFailed,
        AlreadyFinished,
        Blocked,
        BlockedAddress,
        BlockedByRobots,
        BlockedBySite,
        BudgetExhausted,
        ConfigError,
        ConnectError,
        DecodeError,
        Disabled,
        DNSError,
        FetchFailed,
        HTTPError,
        InvalidInput,
        InvalidURL,
        LLMError,
        NetsiftError,
        NotFound,
        OutOfScope,
        ProviderAuth,
        ProviderFailed,
        ProviderUnavailable,
        ProxyRefused,
        QuotaExceeded,
        RateLimited,
        RenderFailed,
        Timeout,
        TLSError,
        TooComplex,
        TooLarge,
        TooManyRedirects,
        Unauthorized,
        UnsupportedContentType,
        UnsupportedScheme,
    )
    from .models import (
        Attempt,
        Citation,
        Event,
        FeedEntry,
        Link,
        Metadata,
        Page,
        Query,
        Redirect,
        ResearchReport,
        SearchResponse,
        SearchResult,
    )

__all__ = [
    "AllProvidersFailed",
    "AlreadyFinished",
    "Attempt",
    "Blocked",
    "BlockedAddress",
    "BlockedByRobots",
    "BlockedBySite",
    "BudgetExhausted",
    "Citation",
    "Client",
    "ConfigError",
    "ConnectError",
    "DNSError",
    "DecodeError",
    "Disabled",
    "Event",
    "FeedEntry",
    "FetchFailed",
    "HTTPError",
    "InvalidInput",
    "InvalidURL",
    "LLMError",
    "Link",
    "Metadata",
    "NetsiftError",
    "NotFound",
    "OutOfScope",
    "Page",
    "ProviderAuth",
    "ProviderFailed",
    "ProviderUnavailable",
    "ProxyRefused",
    "Query",
    "QuotaExceeded",
    "RateLimited",
    "Redirect",
    "RenderFailed",
    "ResearchReport",
    "SearchResponse",
    "SearchResult",
    "Settings",
    "TLSError",
    "Timeout",
    "TooComplex",
    "TooLarge",
    "TooManyRedirects",
    "Unauthorized",
    "UnsupportedContentType",
    "UnsupportedScheme",
    "__version__",
    "extract",
    "fetch",
    "research",
    "search",
]

# Where each public name lives; the names not listed here come from `errors` or `models`.
_HOMES = {
    "Client": ".client",
    "Settings": ".config",
    "extract": ".api",
    "fetch": ".api",
    "research": ".api",
    "search": ".api",
}
_MODELS = frozenset(
    {
        "Attempt",
        "Citation",
        "Event",
        "FeedEntry",
        "Link",
        "Metadata",
        "Page",
        "Query",
        "Redirect",
        "ResearchReport",
        "SearchResponse",
        "SearchResult",
    }
)


class _Package(types.ModuleType):
    """The package module, guarding the sync conveniences' names.

    Importing the subpackage `netsift.fetch` (or `.search`, `.research`) binds it on its parent
    under the same name; eagerly importing everything used to rebind the function afterwards.
    With lazy imports a subpackage can load after the function, so the binding is refused here
    and `netsift.fetch` stays the function (the subpackage stays reachable in `sys.modules`).
    """

    def __setattr__(self, name: str, value: typing.Any) -> None:
        if name in _CONVENIENCES and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


_CONVENIENCES = frozenset({"extract", "fetch", "research", "search"})
sys.modules[__name__].__class__ = _Package


def __getattr__(name: str) -> typing.Any:
    if name not in __all__ or name == "__version__":
        raise AttributeError(f"module 'netsift' has no attribute {name!r}")
    home = _HOMES.get(name) or (".models" if name in _MODELS else ".errors")
    value = getattr(importlib.import_module(home, __name__), name)
    globals()[name] = value  # later lookups are plain attribute reads
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
