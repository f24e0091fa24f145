"""Settings: every knob netsift has, read once at the edge and passed down frozen.

Precedence: arguments > environment (`NETSIFT_*` and the ecosystem's usual names) > a config
file named explicitly (`NETSIFT_CONFIG`, the CLI's `--config`) > `.env` > `netsift.toml` >
defaults. Nothing here does I/O at import; library code never builds `Settings()` itself
(conventions.md, habit 12).

Trust: a `.env` or `netsift.toml` found in the working directory may belong to whatever
checkout an agent happens to run in, so the settings that weaken the guard (`GUARD_KEYS`:
allowed networks, resolve pins, robots, proxies) are never taken from those implicit files:
they are dropped with a warning. The environment, arguments and an explicitly named file are
the operator's word and are honoured. Unknown keys in any file are warned about, naming the
closest known key; a file that does not parse is a `ConfigError` naming it.
"""

from __future__ import annotations

import difflib
import ipaddress
import logging
import os
import tomllib
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import (
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationInfo,
    field_validator,
)
from pydantic_settings import (
    BaseSettings,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

from ._version import __version__
from .errors import ConfigError

__all__ = [
    "CAPABILITIES",
    "CONFIG_ENV",
    "GUARD_KEYS",
    "ProviderSettings",
    "Settings",
    "default_data_dir",
    "env_name",
]

log = logging.getLogger(__name__)

CONFIG_ENV = "NETSIFT_CONFIG"  # the path of a TOML config file the operator names explicitly
# Settings that open the SSRF guard or hide where requests go: only from a trusted source.
GUARD_KEYS = frozenset(
    {
        "allow_networks",
        "resolve",
        "respect_robots",
        "http_proxy",
        "https_proxy",
        "proxy_enforces_egress",
    }
)
# HTTP proxies, spoken to in the clear or over TLS. Not SOCKS: the transport (httpcore's HTTP
# proxy pool) never spoke it, and a SOCKS URL accepted here only failed at the first request.
PROXY_SCHEMES = ("http", "https")
STORE_SCHEMES = ("memory://", "sqlite:///", "redis://", "rediss://", "unix://")

# robots, wayback and citations are the toolbelt's (issue 29): a host may offer fetch but not
# the Internet Archive (wayback), or not the tool that answers robots.txt questions.
CAPABILITIES = ("search", "fetch", "research", "chat", "robots", "wayback", "citations")
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


def _check_limit(value: str) -> None:
    from limits import parse_many

    try:
        parse_many(value)
    except ValueError:
        raise ValueError(
            f"{value!r} is not in `limits` notation, e.g. 10/second or 1/second;1000/day"
        ) from None


def _default_of(model: type[BaseModel], info: ValidationInfo) -> Any:
    """The declared default of the field being validated (None when it has no field name)."""
    field = model.model_fields.get(info.field_name or "")
    return None if field is None else field.default


def env_name(field: str) -> str:
    """The environment variable a user sets for `field` (its first alias, or NETSIFT_FIELD)."""
    info = Settings.model_fields.get(field)
    alias = info.validation_alias if info is not None else None
    if isinstance(alias, AliasChoices) and alias.choices:
        return str(alias.choices[0])
    return f"NETSIFT_{field.upper()}"


def _field_of(key: str) -> str | None:
    """The field a file's key sets (a field name, an alias, or NETSIFT_-prefixed), or None."""
    lowered = key.lower()
    for name, info in Settings.model_fields.items():
        alias = info.validation_alias
        names = {name, f"netsift_{name}"}
        if isinstance(alias, AliasChoices):
            names.update(str(choice).lower() for choice in alias.choices)
        if lowered in names:
            return name
    return None


def _screen(values: dict[str, Any], origin: str, *, trusted: bool) -> dict[str, Any]:
    """Warn about unknown keys (naming the closest known one) and, from an implicit file,
    drop the guard-weakening ones with a warning."""
    kept: dict[str, Any] = {}
    for key, value in values.items():
        field = _field_of(key)
        if field is None:
            close = difflib.get_close_matches(key.lower(), list(Settings.model_fields), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            log.warning("%s: unknown setting %r is ignored%s", origin, key, hint)
            continue
        if field in GUARD_KEYS and not trusted and _weakens(field, value):
            log.warning(
                "%s: %r is ignored: settings that weaken the guard are read only from the "
                "environment, the command line or a file named by %s/--config",
                origin,
                key,
                CONFIG_ENV,
            )
            continue
        kept[key] = value
    return kept


def _weakens(field: str, value: Any) -> bool:
    """Whether this value of a guard key opens something (`respect_robots = true` does not)."""
    if field == "respect_robots":
        return str(value).strip().lower() in {"false", "0", "no", "off", "f", "n"}
    if field == "proxy_enforces_egress":
        return str(value).strip().lower() in {"true", "1", "yes", "on", "t", "y"}
    return bool(value)


class _Checked(PydanticBaseSettingsSource):
    """Another source (the working directory's `.env`), screened by `_screen`."""

    def __init__(
        self, inner: PydanticBaseSettingsSource, settings_cls: type[BaseSettings], origin: str
    ) -> None:
        super().__init__(settings_cls)
        self._inner = inner
        self._origin = origin

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False  # unused: __call__ answers for the whole source

    def __call__(self) -> dict[str, Any]:
        return _screen(self._inner(), self._origin, trusted=False)


class _FileSource(PydanticBaseSettingsSource):
    """A TOML file: `netsift.toml` in the working directory (implicit, screened for guard
    keys) or the file named by NETSIFT_CONFIG (explicit, trusted, and required to exist)."""

    def __init__(self, settings_cls: type[BaseSettings], path: Path, *, trusted: bool) -> None:
        super().__init__(settings_cls)
        self._path = path
        self._trusted = trusted

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False  # unused: __call__ answers for the whole source

    def __call__(self) -> dict[str, Any]:
        key = CONFIG_ENV if self._trusted else str(self._path)
        try:
            text = self._path.read_bytes()
        except FileNotFoundError:
            if self._trusted:
                raise ConfigError(
                    f"{CONFIG_ENV} names {self._path}, which does not exist",
                    details={"key": key},
                ) from None
            return {}
        except OSError as exc:
            raise ConfigError(
                f"cannot read {self._path}: {exc.strerror or exc}", details={"key": key}
            ) from None
        try:
            values = tomllib.loads(text.decode("utf-8"))
        except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise ConfigError(
                f"{self._path} is not valid TOML: {exc}; fix or remove it",
                details={"key": key},
            ) from None
        return _screen(values, str(self._path), trusted=self._trusted)


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
    )

    # -- capabilities and doors
    capabilities: CommaList = Field(default_factory=lambda: list(CAPABILITIES))
    api_keys: CommaList = Field(default_factory=list)
    audit_log: Path | None = None
    data_dir: Path | None = None
    # The most an MCP tool result may cost a model: hosts cap a tool result (Claude Code at
    # 25k tokens) and drop what is over; netsift stays under it and says how to get the rest.
    mcp_max_result_tokens: int = Field(default=20_000, ge=1000)

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
    # The proxy is itself an SSRF filter (Smokescreen…): send it names, not checked addresses.
    proxy_enforces_egress: bool = False

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
    # The Internet Archive: None asks the real ones (the availability API at archive.org; the
    # CDX index, snapshots and Save Page Now at web.archive.org); a URL serves all of them.
    wayback_url: str | None = None

    # -- research and chat
    llm_model: str | None = None
    openai_api_key: SecretStr | None = _alias("NETSIFT_OPENAI_API_KEY", "OPENAI_API_KEY")
    openai_base_url: str | None = _alias("NETSIFT_OPENAI_BASE_URL", "OPENAI_BASE_URL")
    llm_timeout: float = Field(default=60.0, gt=0)
    # the model's context window: extract_data cuts long pages into chunks that fit it
    llm_context_tokens: int = Field(default=8192, ge=1024, le=2_000_000)
    jobs_url: str | None = None
    discoveries_path: Path | None = None
    max_sleep: float = Field(default=3600.0, gt=0)
    # -- jobs: a worker holds a job for `job_lease` seconds past its last heartbeat; a stop
    # hands running jobs back within `job_stop_timeout`; `run_jobs` off = enqueue only
    job_lease: float = Field(default=15.0, gt=0)
    job_stop_timeout: float = Field(default=10.0, gt=0)
    worker_concurrency: int = Field(default=4, gt=0, le=256)
    # -- crawls: requests in flight to one host that asked nothing (Crawl-delay: one)
    crawl_host_concurrency: int = Field(default=8, ge=1, le=64)
    run_jobs: bool = True

    # -- headless browser (`netsift[browser]`): see netsift.render
    render: Literal["auto", "always", "never"] | None = None  # None: auto when installed
    browser_path: str | None = None  # a Chromium to use instead of Playwright's own
    render_timeout: float = Field(default=20.0, gt=0)  # one render, waits included
    render_concurrency: int = Field(default=2, ge=1, le=32)  # renders at once per process
    render_memory_mb: int = Field(default=1024, ge=1)  # browser PSS that triggers a restart
    render_max_requests: int = Field(default=200, ge=1)  # requests one page may make
    render_max_bytes: int = Field(default=32 * 1024 * 1024, gt=0)  # bytes one render may load
    render_scrolls: int = Field(default=5, ge=0, le=50)  # screens scrolled for lazy lists
    render_media: bool = False  # load images, fonts and media (off: text needs none)

    # -- HTTP server (`netsift serve`): per-client limits, CORS, request size
    cors_origins: CommaList = Field(default_factory=list)  # CORS stays off unless listed
    server_rate_limit: str = "600/minute"  # API requests per client (`limits` notation)
    server_search_quota: str | None = None  # searches per client, e.g. 1000/day; off by default
    server_max_body: int = Field(default=1024 * 1024, gt=0)  # request body cap in bytes
    # SearXNG's clients send no key: where keys are required, the networks admitted without one
    # on the SearXNG-compatible route only (server/compat/searxng.py). Empty: nobody.
    searxng_keyless_networks: CommaList = Field(default_factory=list)
    # the port of the Firecrawl listener (`netsift serve --firecrawl-port`): every path on it is
    # Firecrawl's API, v1 and v2, at the root its clients need (server/compat/routing.py); off
    # when unset. 3002 is Firecrawl's own self-hosted port.
    firecrawl_port: int | None = Field(default=None, ge=1, le=65535)
    # proxies whose X-Forwarded-For names the client (CIDRs); none by default, so a client
    # cannot pick its own rate-limit identity by sending the header
    trusted_proxies: CommaList = Field(default_factory=list)

    # -- compute: the worker processes pages are parsed in (compute.py)
    # 0 = one per core this process may use
    workers: int = Field(default=0, ge=0, le=256)
    # per page: 15 s is ~5x the slowest friendly page measured (a 5.3 MB article), whole seconds
    # because RLIMIT_CPU counts in seconds
    task_cpu_seconds: int = Field(default=15, ge=1, le=3600)
    # per worker beyond its idle size: a 10 MB body (the default byte cap) parses into trees of
    # ~20x its size, which trafilatura copies a few times; 0 = no ceiling
    task_memory_mb: int = Field(default=1024, ge=0)
    # how much lower the workers' scheduling priority is than the serving process's (nice):
    # when parsing and answering want the same core, answering goes first (compute.py)
    worker_niceness: int = Field(default=10, ge=0, le=19)

    @field_validator(
        "capabilities",
        "api_keys",
        "allow_networks",
        "resolve",
        "providers",
        "provider_rate_limits",
        "cors_origins",
        "searxng_keyless_networks",
        "trusted_proxies",
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

    @field_validator("allow_networks", "searxng_keyless_networks", "trusted_proxies")
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

    @field_validator("resolve")
    @classmethod
    def _pinned_addresses(cls, value: list[str]) -> list[str]:
        for pin in value:
            address = pin.partition(":")[2].strip().strip("[]")
            try:
                ipaddress.ip_address(address)
            except ValueError:
                raise ValueError(f"resolve pin {pin!r}: {address!r} is not an IP address") from None
        return value

    @field_validator("http_proxy", "https_proxy")
    @classmethod
    def _valid_proxy(cls, value: str | None) -> str | None:
        if value:
            parts = urlsplit(value)
            if parts.scheme not in PROXY_SCHEMES or not parts.hostname:
                raise ValueError(
                    f"a proxy is a URL like http://host:3128 ({', '.join(PROXY_SCHEMES)})"
                )
        return value

    @field_validator("*")
    @classmethod
    def _valid_http_url(cls, value: Any, info: ValidationInfo) -> Any:
        """Every endpoint (`*_base_url`, `searxng_url`) is an http(s) URL with a host."""
        name = info.field_name or ""
        endpoint = name.endswith("_base_url") or name in ("searxng_url", "wayback_url")
        if endpoint and isinstance(value, str) and value:
            parts = urlsplit(value)
            if parts.scheme not in ("http", "https") or not parts.hostname:
                raise ValueError("must be an http(s) URL with a host, like https://host/path")
        return value

    @field_validator("user_agent")
    @classmethod
    def _sendable_user_agent(cls, value: str) -> str:
        if not value or not all(" " <= char <= "~" for char in value):
            raise ValueError("must be printable ASCII on one line (it is sent as a header)")
        return value

    @field_validator("cache_url", "jobs_url", "redis_url")
    @classmethod
    def _store_url(cls, value: str | None) -> str | None:
        if value and not value.startswith(STORE_SCHEMES):
            raise ValueError(f"must start with one of {', '.join(STORE_SCHEMES)}")
        return value

    @field_validator("search_rate_limit", "server_rate_limit", "server_search_quota")
    @classmethod
    def _limits_notation(cls, value: str | None, info: ValidationInfo) -> str | None:
        # A default is netsift's own string (a test parses each): checking it would import
        # the `limits` library (~15 ms) into every process that only reads its settings.
        if value and value != _default_of(cls, info):
            _check_limit(value)
        return value

    @field_validator("provider_rate_limits")
    @classmethod
    def _provider_limits(cls, value: list[str]) -> list[str]:
        for entry in value:
            name, sep, limit = entry.partition("=")
            if not sep or not name.strip():
                raise ValueError(f"{entry!r} must look like name=1/second")
            _check_limit(limit)
        return value

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        sources: list[PydanticBaseSettingsSource] = [init_settings, env_settings]
        named = os.environ.get(CONFIG_ENV, "").strip()
        if named:
            sources.append(_FileSource(settings_cls, Path(named), trusted=True))
        sources.append(_Checked(dotenv_settings, settings_cls, ".env"))
        implicit = Path("netsift.toml")
        if not named or Path(named).resolve() != implicit.resolve():
            sources.append(_FileSource(settings_cls, implicit, trusted=False))
        return tuple(sources)

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
