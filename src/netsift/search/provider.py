"""The provider contract: build a request, parse a response; no I/O (SearXNG's shape).

The service (`search/service.py`) is the only place that sends a provider's request. A parser
classifies failures by raising typed errors (401 → ProviderAuth, 429 → RateLimited, a CAPTCHA
or anomaly page → ProviderUnavailable); the service decides what follows.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

from ..config import ProviderSettings
from ..errors import NetsiftError
from ..models import Query, SearchResult

if TYPE_CHECKING:  # a provider's module brings httpx when it is built (search/registry.py)
    import httpx

__all__ = ["About", "Provider"]


@dataclass(frozen=True)
class About:
    """The machine-readable part of a provider's doc page."""

    website: str
    docs: str
    base_url: str
    requires_key: bool = False
    key_env: tuple[str, ...] = ()
    results: str = "JSON"
    kind: str = "web"  # web | scholarly | code | encyclopedia
    rate_limit: str = "1/second"  # `limits` notation; the provider's published limit
    max_count: int = 20
    notes: tuple[str, ...] = field(default_factory=tuple)


class Provider(abc.ABC):
    """One search engine. Instances hold their own frozen settings: two clients, two configs."""

    name: ClassVar[str]
    about: ClassVar[About]

    def __init__(self, settings: ProviderSettings) -> None:
        self.settings = settings

    @property
    def base_url(self) -> str:
        return self.settings.base_url or self.about.base_url

    def configured(self) -> bool:
        """True when every key the provider needs is present."""
        return not self.about.requires_key or self.settings.key() is not None

    def missing(self) -> str:
        """What the user must set to enable the provider (for `provider_auth` messages)."""
        return " or ".join(self.about.key_env) or "nothing"

    @abc.abstractmethod
    def build_request(self, query: Query) -> httpx.Request:
        """The HTTP request for this query (pure)."""

    @abc.abstractmethod
    def parse_response(self, response: httpx.Response, query: Query) -> list[SearchResult]:
        """Results in rank order, or a typed error; an empty list only when the provider says so."""

    def fallback_request(self, query: Query, error: NetsiftError) -> httpx.Request | None:
        """A second endpoint to try after `error` (DuckDuckGo html → lite); None for most."""
        return None
