"""The catalogue of operations: each thing netsift does for a caller, declared once.

An operation is one `Client` method (search, fetch, map, research…) with its typed params, its
result, the capability a host can switch off, the errors it may answer, and its name on each
door: the CLI command, the HTTP routes, the WebSocket message type and the agent tool (which
MCP serves too). The doors read what they can from here (the WebSocket's message types, the
agent tools' list and capabilities, the HTTP routes' error statuses, the server's capability
checks); `tests/e2e/test_parity.py` checks the rest against it, so each door offers exactly
these operations with these options, and `tests/unit/test_docs_parity.py` that each is
documented.

The params model is what every door accepts (the HTTP body, the WebSocket message, the CLI's
options and JSON lines); an agent tool leaves out `host_options`, the ones that are the host's
to decide for a model (robots.txt, the cache, budgets), and may add a few of its own
(`tool_options`, such as how much of each crawled page a model reads).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from .archive.wayback import WaybackResult
from .citations.pack import CitationPack
from .errors import (
    AllProvidersFailed,
    Blocked,
    BlockedAddress,
    BlockedByRobots,
    BudgetExhausted,
    ConfigError,
    Disabled,
    FetchFailed,
    HTTPError,
    InvalidInput,
    InvalidURL,
    LLMError,
    NetsiftError,
    NotFound,
    ProviderFailed,
    Timeout,
    TooComplex,
    UnsupportedContentType,
    UnsupportedScheme,
)
from .jobs.model import Job
from .models import (
    ContextAnswer,
    CrawlReport,
    MapResult,
    Metadata,
    Page,
    ResearchReport,
    SearchResponse,
)
from .net.robots import RobotsVerdict
from .params import (
    BatchSearchParams,
    CitationPackParams,
    ContextParams,
    CrawlParams,
    DedupeRankParams,
    DiscoveriesParams,
    ExtractDataParams,
    ExtractParams,
    FetchOptions,
    FetchParams,
    FlagDiscoveryParams,
    JobListParams,
    JobStatusParams,
    MapOptions,
    MapParams,
    MetaParams,
    ResearchParams,
    RobotsCheckParams,
    SearchParams,
    SleepParams,
    WakeParams,
    WaybackParams,
)
from .research.discoveries import Discovery, DiscoveryRead
from .research.sleep_store import SleepRecord
from .search.batch import BatchItem
from .search.rank import RankedResults
from .structured.model import ExtractDataResult

__all__ = [
    "CATALOGUE",
    "CLI_FLAGS",
    "CLI_PRESENTATION",
    "HOST_COMMANDS",
    "HOST_ROUTES",
    "HTTP_CONTROLS",
    "Operation",
    "by_tool",
    "by_ws",
    "operation",
]

JSON = dict[str, Any]  # an answer that is JSON as it stands (OpenAI's, a sleep's, a usage record)


@dataclass(frozen=True)
class Operation:
    """One operation: what it takes, answers and may fail with, and its name on each door."""

    name: str  # the Client method
    summary: str  # one line, as a route's OpenAPI summary
    params: type[BaseModel] | None  # None: the operation takes nothing but the caller
    result: Any  # the Client method's return type
    capability: str | None  # the NETSIFT_CAPABILITIES entry that switches it off
    errors: tuple[type[NetsiftError], ...]  # besides invalid_input and disabled (see _errors)
    cli: str | None = None  # the `netsift` command
    http: tuple[str, ...] = ()  # "METHOD /path" of each route
    ws: str | None = None  # the WebSocket message type
    tool: str | None = None  # the agent tool (netsift.tools, `netsift tools`, MCP)
    host_options: frozenset[str] = frozenset()  # params the agent tool leaves to the host
    tool_options: frozenset[str] = frozenset()  # the agent tool's own arguments
    # The library caller's own options besides the params (its caps, its cache): the CLI,
    # run by that caller, may offer them too; over HTTP and to agents they are the host's.
    library: type[BaseModel] | None = None
    input: str | None = None  # what the operation reads besides its params (extract's HTML)
    cli_leaves_out: frozenset[str] = frozenset()  # params the command does not offer (yet)
    also_needs: tuple[str, ...] = ()  # capabilities it uses besides its own (context: fetch)

    def capabilities(self) -> tuple[str, ...]:
        """Every NETSIFT_CAPABILITIES entry the operation needs on: switching any off
        switches it off."""
        return (*([self.capability] if self.capability else []), *self.also_needs)

    def statuses(self) -> tuple[int, ...]:
        """The HTTP statuses of those errors, for the routes' OpenAPI `responses`."""
        return tuple(sorted({c.status for c in self._errors()}))

    def _errors(self) -> list[type[NetsiftError]]:
        # An operation with params validates them; one under a capability answers `disabled`.
        own = [*([InvalidInput] if self.params else []), *([Disabled] if self.capability else [])]
        return own + _leaves(self.errors)

    def fields(self) -> frozenset[str]:
        """The params every door accepts."""
        return frozenset(self.params.model_fields) if self.params is not None else frozenset()

    def library_fields(self) -> frozenset[str]:
        """What the library's caller may set: the params and its own options."""
        own = frozenset(self.library.model_fields) if self.library is not None else frozenset()
        return self.fields() | own

    def tool_fields(self) -> frozenset[str]:
        """The agent tool's arguments: the params but the host's, plus the tool's own."""
        return (self.fields() - self.host_options) | self.tool_options


def _leaves(classes: tuple[type[NetsiftError], ...]) -> list[type[NetsiftError]]:
    """Each class that has a code of its own, a group (Blocked, FetchFailed…) by its leaves."""
    out: list[type[NetsiftError]] = []
    for cls in classes:
        if "code" in cls.__dict__:
            out.append(cls)
        out.extend(_leaves(tuple(cls.__subclasses__())))
    return out


# What reading a page may answer besides invalid input: a bad URL, the guard, robots.txt and
# the network.
_URL = (InvalidURL, UnsupportedScheme)
_READING = (*_URL, Blocked, FetchFailed, NotFound)
_SEARCHING = (ProviderFailed, AllProvidersFailed, BudgetExhausted, ConfigError, Timeout)
_SEARCH_HOST = frozenset({"merge", "safesearch", "no_cache"})

CATALOGUE: tuple[Operation, ...] = (
    Operation(
        "search",
        "Search the web with failover; attempts say what each provider did",
        SearchParams,
        SearchResponse,
        "search",
        _SEARCHING,
        cli="search",
        http=("POST /v1/search",),
        ws="search",
        tool="web_search",
        host_options=_SEARCH_HOST,
    ),
    Operation(
        "fetch",
        "Fetch a page and read its main content (Markdown, text or HTML), paginated",
        FetchParams,
        Page,
        "fetch",
        _READING,
        library=FetchOptions,
        cli="fetch",
        http=("POST /v1/fetch",),
        ws="fetch",
        tool="web_fetch",
        # an agent never asks for the text a page hides from people: that is where planted
        # instructions live (docs/extraction.md); a host may, through the other doors
        host_options=frozenset({"respect_robots", "keep_hidden"}),
    ),
    Operation(
        "meta",
        "A page's link-preview card: title, description, image, site name, favicon",
        MetaParams,
        Metadata,
        "fetch",
        _READING,
        cli="meta",
        http=("POST /v1/meta",),
        ws="meta",
        tool="page_meta",
        host_options=frozenset({"respect_robots"}),
    ),
    Operation(
        "map",
        "List a site's URLs from its sitemaps, feeds and start page, without reading them",
        MapParams,
        MapResult,
        "fetch",
        (*_URL, BlockedAddress, BlockedByRobots, Timeout, HTTPError),
        library=MapOptions,
        cli="map",
        http=("POST /v1/map",),
        ws="map",
        tool="web_map",
        host_options=frozenset({"sitemaps", "respect_robots"}),
    ),
    Operation(
        "batch_search",
        "Run several searches at once; each query's response or error, in order",
        BatchSearchParams,
        list[BatchItem],
        "search",
        _SEARCHING,
        http=("POST /v1/search/batch",),
        ws="batch",
        tool="batch_search",
        host_options=_SEARCH_HOST,
    ),
    Operation(
        "crawl",
        "Crawl a site from a URL: its pages as Markdown, within its scope and budgets",
        CrawlParams,
        CrawlReport,
        "fetch",
        _READING,
        cli="crawl",
        http=(
            "POST /v1/crawl",
            "GET /v1/crawl/{job_id}",
            "DELETE /v1/crawl/{job_id}",
            "GET /v1/crawl/{job_id}/events",
            "GET /v1/crawl/{job_id}/pages",
        ),
        ws="crawl",
        tool="web_crawl",
        host_options=frozenset(
            {"subdomains", "format", "max_bytes", "deadline", "respect_robots", "workers"}
        ),
        tool_options=frozenset({"max_length"}),
        cli_leaves_out=frozenset({"format", "max_bytes"}),
    ),
    Operation(
        "research",
        "Research a question: plan searches, read sources, answer with verified citations",
        ResearchParams,
        ResearchReport,
        "research",
        (*_SEARCHING, *_READING, LLMError),
        cli="research",
        http=("POST /v1/research", "DELETE /v1/research/{job_id}"),
        ws="research",
        tool="deep_research",
        host_options=frozenset(
            {
                "breadth",
                "max_iterations",
                "max_searches",
                "max_pages",
                "max_tokens",
                "deadline",
            }
        ),
    ),
    Operation(
        "context",
        "The passages most relevant to a query across the pages a search finds, within a "
        "token budget",
        ContextParams,
        ContextAnswer,
        "search",
        _SEARCHING,  # a page that cannot be read is a warning; the next result takes its place
        cli="context",
        http=("POST /v1/context",),
        ws="context",
        tool="web_context",
        host_options=frozenset({"no_cache"}),
        also_needs=("fetch",),
    ),
    Operation(
        "job_status",
        "A job's status, its events after `since` and, when done, its result",
        JobStatusParams,
        Job,
        "research",
        (NotFound,),
        http=("GET /v1/research/{job_id}/events", "GET /v1/research/{job_id}"),
        tool="research_status",
    ),
    Operation(
        "extract",
        "Read HTML you already have, as fetch reads a page; no network",
        ExtractParams,
        Page,
        None,
        (TooComplex, UnsupportedContentType),
        input="html",
        cli="extract",
        http=("POST /v1/extract/html",),
        ws="extract",
    ),
    Operation(
        "list_jobs",
        "Recent jobs and their status, newest first",
        JobListParams,
        list[Job],
        "research",
        (),
        cli="jobs",
        cli_leaves_out=frozenset({"status", "before"}),
        http=("GET /v1/research",),
    ),
    Operation(
        "chat",
        "Chat completion (OpenAI-compatible), optionally with web search",
        None,  # OpenAI's body, passed on (research/chat.py's ChatRequest)
        JSON,
        "chat",
        (LLMError, ProviderFailed, Timeout),
        http=(
            "POST /v1/chat/completions",
            "POST /v1/responses",
            "GET /v1/models",
            "GET /v1/models/{model}",
        ),
    ),
    Operation(
        "flag_discovery",
        "Flag a notable finding for a human to look at later",
        FlagDiscoveryParams,
        Discovery,
        "research",
        (),
        http=("POST /v1/discoveries",),
        tool="flag_discovery",
    ),
    Operation(
        "sleep",
        "Pause until a timer, a research job's end, or a person's wake; every sleep is capped",
        SleepParams,
        JSON,
        "research",
        (NotFound,),
        http=("POST /v1/sleeps", "GET /v1/sleeps", "GET /v1/sleeps/{sleep_id}"),
        tool="sleep",
    ),
    Operation(
        "wake",
        "Wake a sleep, with an optional message for the sleeper",
        WakeParams,
        SleepRecord,
        "research",
        (NotFound,),
        cli="wake",
        http=("POST /v1/sleeps/{sleep_id}/wake",),
    ),
    Operation(
        "read_discoveries",
        "The findings agents flagged for a human, oldest first",
        DiscoveriesParams,
        DiscoveryRead,
        "research",
        (),
        cli="discoveries",
        http=("GET /v1/discoveries",),
    ),
    Operation(
        "usage",
        "What the caller (its API key) has spent: searches by provider, pages, tokens",
        None,
        JSON,
        None,
        (),
        http=("GET /v1/usage",),
    ),
    Operation(
        "provider_status",
        "Every search provider: configured or not, limits and breaker state",
        None,
        list[JSON],
        "search",
        (),
        cli="providers",
    ),
    # -- the toolbelt (issue 29): small tools with JSON in and out, each its own capability
    Operation(
        "robots_check",
        "May a user agent fetch a URL? robots.txt's answer, crawl delay and deciding rule",
        RobotsCheckParams,
        RobotsVerdict,
        "robots",
        (*_URL, BlockedAddress, FetchFailed),
        cli="robots-check",
        http=("POST /v1/robots-check",),
        ws="robots_check",
        tool="robots_check",
    ),
    Operation(
        "wayback_lookup",
        "The Internet Archive snapshot of a URL nearest a date; save one; read it as a page",
        WaybackParams,
        WaybackResult,
        "wayback",
        _READING,
        cli="wayback",
        http=("POST /v1/wayback",),
        ws="wayback_lookup",
        tool="wayback_lookup",
    ),
    Operation(
        "citation_pack",
        "Cite a report's or a list of pages' sources: CSL-JSON, BibTeX or Markdown",
        CitationPackParams,
        CitationPack,
        "citations",
        (*_URL, NotFound),
        cli="citation-pack",
        http=("POST /v1/citation-pack",),
        ws="citation_pack",
        tool="citation_pack",
    ),
    Operation(
        "dedupe_rank",
        "Fold duplicate search results and rank the rest against a query; no network",
        DedupeRankParams,
        RankedResults,
        "search",
        (),
        cli="dedupe-rank",
        http=("POST /v1/dedupe-rank",),
        ws="dedupe_rank",
        tool="dedupe_rank",
    ),
    Operation(
        "extract_data",
        "Extract typed data (a JSON Schema's fields) from pages, each field with its evidence",
        ExtractDataParams,
        ExtractDataResult,
        "fetch",
        (*_READING, *_SEARCHING),
        cli="extract-data",
        http=("POST /v1/extract",),
        ws="extract_data",
        tool="extract_data",
        host_options=frozenset({"max_pages", "max_tokens", "deadline"}),
    ),
)

# CLI options that say how a command prints or reads, not what the operation does.
CLI_PRESENTATION = frozenset({"as_json", "stdin", "verbose"})
# CLI options spelled apart from their field: a switch for a default-on option, a short name.
CLI_FLAGS = {"no_robots": "respect_robots", "robots": "respect_robots", "job": "job_id"}
# HTTP parameters that steer the call, not the operation: an id for the logs, whether to wait
# for a job, where a reconnecting event stream resumes.
HTTP_CONTROLS = frozenset({"request_id", "wait", "last-event-id"})

# The doors' entries that are the host's, not operations: running the doors themselves, and
# what a host and its operators read about it.
HOST_COMMANDS = frozenset({"tools", "mcp", "serve", "worker"})
HOST_ROUTES = frozenset({"GET /v1/info", "GET /healthz", "GET /readyz", "GET /metrics"})

_BY_NAME = {op.name: op for op in CATALOGUE}


def operation(name: str) -> Operation:
    """The operation called `name` (a KeyError is a programming mistake, not user input)."""
    return _BY_NAME[name]


def by_ws() -> dict[str, Operation]:
    """The operations a WebSocket message may ask for, by message type."""
    return {op.ws: op for op in CATALOGUE if op.ws is not None}


def by_tool() -> dict[str, Operation]:
    """The operations offered as agent tools, by tool name, in the catalogue's order."""
    return {op.tool: op for op in CATALOGUE if op.tool is not None}
