"""Settings: every knob netsift has, read once at the edge and passed down frozen.

Precedence: arguments > environment (`NETSIFT_*` and the ecosystem's usual names) > `.env` >
`netsift.toml` > defaults. Nothing here does I/O at import; library code never builds
`Settings()` itself (conventions.md, habit 12).
"""

from __future__ import annotations

import ipaddress
from pathlib import Path
from typing import Annotated, Any

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, SecretStr, field_validator
from pydantic_settings import (
    BaseSettings,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from ._version import __version__

__all__ = ["CAPABILITIES", "ProviderSettings", "Settings", "default_data_dir"]

CAPABILITIES = ("search", "fetch", "research", "chat")
DEFAULT_USER_AGENT = f"netsift/{__version__} (+https://github.com/netsift/netsift)"

CommaList = Annotated[list[str], NoDecode]


def _split(value: Any) -> Any:
    """Accept `a,b` (environment), a JSON-ish list, or a list."""
    if isinstance(value, str):
        return [part.strip() for part in value.replace("\n", ",").split(",") if part.strip()]
    return value


def default_data_dir() -> Path:
    """The user data dir (platformdirs) where the SQLite cache and job store live."""
    import platformdirs

    return Path(platformdirs.user_data_dir("netsift", appauthor=False))


class ProviderSettings(BaseModel):
    """What one provider instance needs: its key(s), endpoint and the shared HTTP identity."""

    model_config = ConfigDict(frozen=True)

    name: str
    api_key: SecretStr | None = None
    base_url: str | None = None
    extra: dict[str, str] = Field(default_factory=dict)
    timeout: float = 15.0
    user_agent: str = DEFAULT_USER_AGENT

    def key(self) -> str | None:
        return self.api_key.get_secret_value() if self.api_key else None


def _alias(*names: str) -> Any:
    return Field(default=None, validation_alias=AliasChoices(*names))


class Settings(BaseSettings):
    """All configuration. Build it once (CLI main, server lifespan, MCP serve) and pass it down."""

    model_config = SettingsConfigDict(
        env_prefix="NETSIFT_",
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        frozen=True,
        populate_by_name=True,
        toml_file="netsift.toml",
    )

    # -- capabilities and doors
    capabilities: CommaList = Field(default_factory=lambda: list(CAPABILITIES))
    api_keys: CommaList = Field(default_factory=list)
    audit_log: Path | None = None
    data_dir: Path | None = None

    # -- network layer
    allow_networks: CommaList = Field(default_factory=list)
    resolve: CommaList = Field(default_factory=list)
    max_bytes: int = Field(default=10 * 1024 * 1024, gt=0)
    timeout: float = Field(default=30.0, gt=0)
    connect_timeout: float = Field(default=10.0, gt=0)
    read_timeout: float = Field(default=15.0, gt=0)
    max_redirects: int = Field(default=5, ge=0, le=30)
    retries: int = Field(default=2, ge=0, le=10)
    retry_max_wait: float = Field(default=10.0, ge=0)
    user_agent: str = DEFAULT_USER_AGENT
    respect_robots: bool = True
    robots_timeout: float = Field(default=5.0, gt=0)
    http_proxy: str | None = _alias("NETSIFT_HTTP_PROXY", "HTTP_PROXY", "http_proxy")
    https_proxy: str | None = _alias("NETSIFT_HTTPS_PROXY", "HTTPS_PROXY", "https_proxy")

    # -- search
    providers: CommaList = Field(default_factory=lambda: ["duckduckgo", "wikipedia"])
    cache_url: str | None = None
    cache_ttl: float = Field(default=3600.0, ge=0)
    cache_max_entries: int = Field(default=10_000, gt=0)
    max_searches_per_request: int = Field(default=20, gt=0)
    max_searches_per_session: int = Field(default=200, gt=0)
    search_rate_limit: str = "100/second"  # all providers together (`limits` notation)
    provider_rate_limits: CommaList = Field(default_factory=list)  # name=1/second;1000/day
    redis_url: str | None = _alias("NETSIFT_REDIS_URL", "REDIS_URL")

    brave_api_key: SecretStr | None = _alias(
        "NETSIFT_BRAVE_API_KEY", "BRAVE_API_KEY", "BRAVE_SEARCH_API_KEY"
    )
    tavily_api_key: SecretStr | None = _alias("NETSIFT_TAVILY_API_KEY", "TAVILY_API_KEY")
    serpapi_api_key: SecretStr | None = _alias("NETSIFT_SERPAPI_API_KEY", "SERPAPI_API_KEY")
    google_api_key: SecretStr | None = _alias("NETSIFT_GOOGLE_API_KEY", "GOOGLE_API_KEY")
    google_cse_id: str | None = _alias("NETSIFT_GOOGLE_CSE_ID", "GOOGLE_CSE_ID")
    github_token: SecretStr | None = _alias("NETSIFT_GITHUB_TOKEN", "GITHUB_TOKEN")
    openalex_api_key: SecretStr | None = _alias("NETSIFT_OPENALEX_API_KEY", "OPENALEX_API_KEY")
    crossref_mailto: str | None = _alias("NETSIFT_CROSSREF_MAILTO", "CROSSREF_MAILTO")
    searxng_url: str | None = _alias(
        "NETSIFT_SEARXNG_URL", "SEARXNG_URL", "SEARXNG_API_URL", "SEARX_HOST"
    )

    duckduckgo_base_url: str | None = None
    brave_base_url: str | None = None
    searxng_base_url: str | None = None
    tavily_base_url: str | None = None
    serpapi_base_url: str | None = None
    google_base_url: str | None = None
    bing_base_url: str | None = None
    wikipedia_base_url: str | None = None
    openalex_base_url: str | None = None
    crossref_base_url: str | None = None
    github_base_url: str | None = None
    arxiv_base_url: str | None = None

    # -- research and chat
    llm_model: str | None = None
    openai_api_key: SecretStr | None = _alias("NETSIFT_OPENAI_API_KEY", "OPENAI_API_KEY")
    openai_base_url: str | None = _alias("NETSIFT_OPENAI_BASE_URL", "OPENAI_BASE_URL")
    llm_timeout: float = Field(default=60.0, gt=0)
    jobs_url: str | None = None
    discoveries_path: Path | None = None
    max_sleep: float = Field(default=3600.0, gt=0)
    # -- jobs: a worker holds a job for `job_lease` seconds past its last heartbeat; a stop
    # hands running jobs back within `job_stop_timeout`; `run_jobs` off = enqueue only
    job_lease: float = Field(default=15.0, gt=0)
    job_stop_timeout: float = Field(default=10.0, gt=0)
    worker_concurrency: int = Field(default=4, gt=0, le=256)
    run_jobs: bool = True

    # -- HTTP server (`netsift serve`): per-client limits, CORS, request size
    cors_origins: CommaList = Field(default_factory=list)  # CORS stays off unless listed
    server_rate_limit: str = "600/minute"  # API requests per client (`limits` notation)
    server_search_quota: str | None = None  # searches per client, e.g. 1000/day; off by default
    server_max_body: int = Field(default=1024 * 1024, gt=0)  # request body cap in bytes

    @field_validator(
        "capabilities",
        "api_keys",
        "allow_networks",
        "resolve",
        "providers",
        "provider_rate_limits",
        "cors_origins",
        mode="before",
    )
    @classmethod
    def _comma_lists(cls, value: Any) -> Any:
        return _split(value)

    @field_validator("capabilities")
    @classmethod
    def _known_capabilities(cls, value: list[str]) -> list[str]:
        unknown = sorted(set(value) - set(CAPABILITIES))
        if unknown:
            raise ValueError(f"unknown capabilities {unknown}; known: {', '.join(CAPABILITIES)}")
        return value

    @field_validator("allow_networks")
    @classmethod
    def _valid_networks(cls, value: list[str]) -> list[str]:
        for cidr in value:
            ipaddress.ip_network(cidr, strict=False)
        return value

    @field_validator("resolve")
    @classmethod
    def _valid_pins(cls, value: list[str]) -> list[str]:
        for pin in value:
            host, sep, address = pin.rpartition(":") if pin.count(":") == 1 else pin.partition(":")
            if not sep or not host or not address:
                raise ValueError(f"resolve pin {pin!r} must look like host:address")
        return value

    @field_validator("providers")
    @classmethod
    def _lower_providers(cls, value: list[str]) -> list[str]:
        return [name.lower() for name in value]

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (
            init_settings,
            env_settings,
            dotenv_settings,
            TomlConfigSettingsSource(settings_cls),
        )

    # -- derived views, handed down to the layers

    def resolve_map(self) -> dict[str, list[str]]:
        """`host:address` pins as a host → addresses map (a host may be pinned several times)."""
        pins: dict[str, list[str]] = {}
        for pin in self.resolve:
            host, _, address = pin.partition(":")
            pins.setdefault(host.strip().lower().rstrip("."), []).append(
                address.strip().strip("[]")
            )
        return pins

    def data_path(self) -> Path:
        return self.data_dir if self.data_dir is not None else default_data_dir()

    def effective_cache_url(self) -> str:
        """Where the cache lives: shared on Redis when scaled out, else SQLite in the data dir."""
        if self.cache_url:
            return self.cache_url
        if self.redis_url:
            return self.redis_url
        return f"sqlite:///{self.data_path() / 'cache.sqlite3'}"

    def effective_jobs_url(self) -> str:
        """Where jobs and sleeps live: Redis when scaled out, else SQLite in the data dir."""
        if self.jobs_url:
            return self.jobs_url
        if self.redis_url:
            return self.redis_url
        return f"sqlite:///{self.data_path() / 'jobs.sqlite3'}"

    def effective_discoveries_path(self) -> Path:
        return self.discoveries_path or self.data_path() / "discoveries.jsonl"

    def enabled(self, capability: str) -> bool:
        return capability in self.capabilities

    def provider_settings(self, name: str) -> ProviderSettings:
        """The frozen slice of settings one provider instance gets."""
        keys: dict[str, SecretStr | None] = {
            "brave": self.brave_api_key,
            "tavily": self.tavily_api_key,
            "serpapi": self.serpapi_api_key,
            "bing": self.serpapi_api_key,
            "google": self.google_api_key,
            "github": self.github_token,
            "openalex": self.openalex_api_key,
        }
        extra: dict[str, str] = {}
        if name == "google" and self.google_cse_id:
            extra["cx"] = self.google_cse_id
        if name == "crossref" and self.crossref_mailto:
            extra["mailto"] = self.crossref_mailto
        base_url = getattr(self, f"{name}_base_url", None)
        if name == "searxng":
            base_url = base_url or self.searxng_url
        return ProviderSettings(
            name=name,
            api_key=keys.get(name),
            base_url=base_url,
            extra=extra,
            timeout=min(self.timeout, 15.0),
            user_agent=self.user_agent,
        )
