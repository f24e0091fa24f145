"""Agent tool definitions, generated from the pydantic argument models (never written twice).

One list of tools serves OpenAI function calling, Anthropic tool use and MCP; the formats only
differ in the envelope around the same JSON Schema.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..config import Settings
from ..errors import InvalidInput
from ..models import ContentFormat, PageTypeChoice, RenderMode, TimeRange
from ..operations import by_tool
from ..params import (
    CONTEXT_MAX_TOKENS,
    CONTEXT_MIN_TOKENS,
    MAX_BATCH_QUERIES,
    MAX_EXTRACT_URLS,
    MAX_MAP_LIMIT,
    MAX_QUERY_CHARS,
    CitationPackParams,
    DedupeRankParams,
    Depth,
    FlagDiscoveryParams,
    JobStatusParams,
    ResearchParams,
    RobotsCheckParams,
    SitemapMode,
    SleepParams,
    WaybackParams,
)

__all__ = [
    "ARGS",
    "TOOLS",
    "TOOL_ALIASES",
    "BatchSearchArgs",
    "CitationPackArgs",
    "ContextArgs",
    "DedupeRankArgs",
    "ExtractDataArgs",
    "FlagDiscoveryArgs",
    "PageMetaArgs",
    "ResearchArgs",
    "ResearchStatusArgs",
    "RobotsCheckArgs",
    "SleepArgs",
    "ToolFormat",
    "ToolSpec",
    "WaybackArgs",
    "WebCrawlArgs",
    "WebFetchArgs",
    "WebMapArgs",
    "WebSearchArgs",
    "decode_json_text",
    "definitions",
    "enabled_tools",
    "input_schema",
    "params_of",
    "strict_schema",
    "tool_name",
]

ToolFormat = Literal["openai", "anthropic", "mcp"]


class _Args(BaseModel):
    # Strict like params.py: a model that sends "500" for an integer is told so.
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True, strict=True)


class WebSearchArgs(_Args):
    """Search the web. Returns ranked results (title, url, snippet) and which engines answered."""

    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS, description="What to search for.")
    count: int = Field(default=10, ge=1, le=50, description="Number of results (1-50).")
    providers: list[str] | None = Field(
        default=None, description="Search engines to use in priority order (default: configured)."
    )
    time_range: TimeRange | None = Field(
        default=None,
        description="Only results from the last day (d), week (w), month (m), year (y).",
    )
    region: str | None = Field(
        default=None, max_length=16, description="Region or language code, e.g. us-en or de."
    )


class ContextArgs(_Args):
    """Look something up and get back only what matters: the passages most relevant to the
    query across the pages a web search finds, verbatim, deduplicated and within a token
    budget, each with its URL, title and position on its page. Cheaper than reading whole
    pages; use web_fetch on a passage's URL to read more of it."""

    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS, description="What to look up.")
    max_tokens: int = Field(
        default=4096,
        ge=CONTEXT_MIN_TOKENS,
        le=CONTEXT_MAX_TOKENS,
        description=f"Token budget of the passages ({CONTEXT_MIN_TOKENS}-{CONTEXT_MAX_TOKENS}).",
    )
    max_sources: int = Field(default=5, ge=1, le=20, description="Pages read at most (1-20).")
    per_source: int = Field(
        default=3, ge=1, le=10, description="Passages from one page at most (1-10)."
    )
    providers: list[str] | None = Field(
        default=None, description="Search engines to use in priority order (default: configured)."
    )
    time_range: TimeRange | None = Field(
        default=None,
        description="Only pages from the last day (d), week (w), month (m), year (y).",
    )
    region: str | None = Field(
        default=None, max_length=16, description="Region or language code, e.g. us-en or de."
    )


class WebFetchArgs(_Args):
    """Fetch a web page and read its main content as Markdown. Long pages come in parts:
    call again with `start_index` to continue where the previous part stopped."""

    url: str = Field(min_length=1, max_length=8192, description="The http(s) URL to read.")
    max_length: int = Field(
        default=5000, ge=1, le=1_000_000, description="Maximum number of characters to return."
    )
    start_index: int = Field(
        default=0, ge=0, description="Start at this character, to continue a truncated page."
    )
    format: ContentFormat = Field(default="markdown", description="markdown, text or html.")
    page_type: PageTypeChoice = Field(
        default="auto",
        description="How to read the page: auto (classify it) or a page type to force.",
    )
    render: RenderMode | None = Field(
        default=None,
        description="Run the page's JavaScript in a guarded browser: auto (only for JavaScript "
        "shells), always or never. Default: auto when the host has a browser.",
    )


class WebMapArgs(_Args):
    """List a website's URLs without reading its pages (from its sitemaps, feeds and home page
    links), each with where it was found and its last-modified date when known. Use it to
    find the pages worth reading on one site; `query` ranks them by relevance."""

    url: str = Field(min_length=1, max_length=8192, description="The site's start URL.")
    limit: int = Field(
        default=100, ge=1, le=MAX_MAP_LIMIT, description="List at most this many URLs."
    )
    query: str | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_QUERY_CHARS,
        description="Rank the URLs by relevance to this (e.g. 'pricing').",
    )
    subdomains: bool = Field(default=False, description="Also list the site's subdomains.")
    include: list[str] = Field(
        default_factory=list,
        max_length=100,
        description="Regular expressions; only URLs whose path matches one are listed.",
    )
    exclude: list[str] = Field(
        default_factory=list,
        max_length=100,
        description="Regular expressions; URLs whose path matches one are left out.",
    )


class PageMetaArgs(_Args):
    """Read a page's link-preview card: title, description, image, site name, favicon, date."""

    url: str = Field(min_length=1, max_length=8192, description="The http(s) URL to describe.")
    explain: bool = Field(
        default=False,
        description="Also say why the page was read as its page type (page_type_explanation).",
    )


class BatchSearchArgs(_Args):
    """Run several web searches at once; results come back in the same order as the queries."""

    queries: list[str] = Field(
        min_length=1, max_length=MAX_BATCH_QUERIES, description="The queries to run."
    )
    count: int = Field(default=5, ge=1, le=50, description="Results per query (1-50).")
    providers: list[str] | None = Field(
        default=None, description="Search engines to use in priority order (default: configured)."
    )
    time_range: TimeRange | None = Field(
        default=None,
        description="Only results from the last day (d), week (w), month (m), year (y).",
    )
    region: str | None = Field(
        default=None, max_length=16, description="Region or language code, e.g. us-en or de."
    )


class ResearchArgs(_Args):
    """Research a question on the web: plans searches, reads sources and writes an answer
    whose every [n] citation quotes a source that was read. Takes from seconds to minutes."""

    question: str = Field(min_length=3, max_length=2000, description="The question to research.")
    depth: Depth = Field(
        default="standard", description="quick: one round; standard: up to 3; deep: up to 5."
    )

    def to_params(self) -> ResearchParams:
        params = params_of("deep_research", self)
        assert isinstance(params, ResearchParams)
        return params


class ResearchStatusArgs(JobStatusParams):
    """The status, progress events and (when done) report of a research job."""


class FlagDiscoveryArgs(FlagDiscoveryParams):
    """Flag a notable finding for a human to look at later (kept in the discoveries log)."""


class SleepArgs(SleepParams):
    """Pause yourself: for some seconds (timer), until a research job finishes (event), or
    until a person wakes you (manual). Every sleep is capped. Nothing runs while you sleep."""


class RobotsCheckArgs(RobotsCheckParams):
    """Ask robots.txt whether a user agent (default: netsift's) may fetch a URL: answers
    allowed, the crawl delay, and the rule that decided it."""


class WaybackArgs(WaybackParams):
    """Find the Internet Archive (Wayback Machine) snapshot of a URL nearest a date, for a dead
    link or to cite what a page said then; `save` asks the archive to capture it now, `read`
    also returns the snapshot's content."""


class CitationPackArgs(CitationPackParams):
    """Make references for sources: give `urls`, a research `report` or a research `job_id`;
    answers each source's canonical URL, title, authors, site, dates, content hash, quoted
    passages and archived copy, and the references as CSL-JSON, BibTeX or Markdown."""


class DedupeRankArgs(DedupeRankParams):
    """Fold duplicate search results (one page under several URLs, near-identical snippets)
    and rank the rest against a query; no network. Give results as web_search returns them."""


# A crawl's answer goes into a model's context: a few pages, each cut to a readable length.
MAX_TOOL_CRAWL_PAGES = 50


class WebCrawlArgs(_Args):
    """Read a website: follows its links from a start URL (same site, robots.txt obeyed,
    duplicates dropped) and returns each page's Markdown, cut to `max_length` characters.
    Give a `query` to read the pages most relevant to it first. Takes seconds to minutes."""

    url: str = Field(min_length=1, max_length=8192, description="Where to start (http/https).")
    max_pages: int = Field(
        default=10, ge=1, le=MAX_TOOL_CRAWL_PAGES, description="Pages to read at most."
    )
    max_depth: int = Field(
        default=2,
        ge=0,
        le=10,
        description="Links to follow from the start URL or a URL its sitemaps list.",
    )
    sitemap: SitemapMode = Field(
        default="include",
        description="include: start from the site's sitemaps too; only: read just the URLs "
        "its sitemaps list; skip: follow links from the start URL alone.",
    )
    include: list[str] = Field(
        default_factory=list,
        max_length=20,
        description="Regular expressions; only paths matching one are read (e.g. ^/docs/).",
    )
    exclude: list[str] = Field(
        default_factory=list,
        max_length=20,
        description="Regular expressions; paths matching one are skipped.",
    )
    query: str | None = Field(
        default=None, max_length=MAX_QUERY_CHARS, description="Read what matches this first."
    )
    max_length: int = Field(
        default=2000, ge=1, le=100_000, description="Characters of each page to return."
    )


class ExtractDataArgs(_Args):
    """Extract typed data from web pages: give the pages (`urls`) or a `query` to find them,
    and the fields to fill as a JSON Schema (`output_schema`) and/or in words (`prompt`).
    Each field comes with the verbatim passage and URL it was read from; a field the pages
    do not state is null, with the reason in `missing`."""

    urls: list[str] | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_EXTRACT_URLS,
        description="The http(s) pages to read.",
    )
    query: str | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_QUERY_CHARS,
        description="Search for the pages to read instead.",
    )
    output_schema: dict[str, Any] | None = Field(
        default=None,
        description='A JSON Schema of an object, e.g. {"type": "object", "properties": '
        '{"price": {"type": "number"}}}.',
    )
    prompt: str | None = Field(
        default=None, min_length=1, max_length=2000, description="What to extract, in words."
    )


@dataclass(frozen=True)
class ToolSpec:
    name: str
    args: type[BaseModel]
    capabilities: tuple[str, ...]

    @property
    def description(self) -> str:
        return " ".join((self.args.__doc__ or "").split())


# Each tool's arguments: a view of its operation's params (operations.py says which of them
# it leaves to the host); the list of tools, their order and capabilities are the catalogue's.
ARGS: dict[str, type[BaseModel]] = {
    "web_search": WebSearchArgs,
    "web_fetch": WebFetchArgs,
    "page_meta": PageMetaArgs,
    "web_map": WebMapArgs,
    "batch_search": BatchSearchArgs,
    "web_context": ContextArgs,
    "web_crawl": WebCrawlArgs,
    "deep_research": ResearchArgs,
    "research_status": ResearchStatusArgs,
    "flag_discovery": FlagDiscoveryArgs,
    "sleep": SleepArgs,
    "robots_check": RobotsCheckArgs,
    "wayback_lookup": WaybackArgs,
    "citation_pack": CitationPackArgs,
    "dedupe_rank": DedupeRankArgs,
    "extract_data": ExtractDataArgs,
}


def _tools() -> tuple[ToolSpec, ...]:
    specs = []
    for name, op in by_tool().items():
        assert op.capability is not None, f"the {name} tool's operation names no capability"
        specs.append(ToolSpec(name, ARGS[name], op.capabilities()))
    return tuple(specs)


TOOLS = _tools()


# Other names a tool answers to (never listed, so a model sees one tool per job): the
# library's and the HTTP API's word for the operation, and the names used before they met.
TOOL_ALIASES = {
    "research": "deep_research",
    "meta": "page_meta",
    "map": "web_map",
    "crawl": "web_crawl",
    "context": "web_context",
}


def params_of(name: str, args: BaseModel) -> BaseModel:
    """The params of tool `name`'s operation, made of its arguments (the tool's own options,
    such as web_crawl's max_length, left out); a ValidationError names what is wrong."""
    op = by_tool()[name]
    assert op.params is not None, f"the {name} tool's operation takes no params"
    return op.params.model_validate(args.model_dump(include=set(op.fields())))


def tool_name(name: str) -> str:
    """The tool `name` means: itself, or the tool it is an alias of."""
    return TOOL_ALIASES.get(name, name)


def input_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON Schema without pydantic's titles (noise for a model reading it)."""
    schema = model.model_json_schema()
    schema.pop("description", None)

    def strip(node: Any) -> Any:
        """Drop the `title` keyword of every schema, never a property that is named title."""
        if isinstance(node, list):
            return [strip(v) for v in node]
        if not isinstance(node, dict):
            return node
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key == "title":
                continue
            if key in ("properties", "$defs") and isinstance(value, dict):
                out[key] = {name: strip(sub) for name, sub in value.items()}
            else:
                out[key] = strip(value)
        return out

    cleaned: dict[str, Any] = strip(schema)
    cleaned.setdefault("additionalProperties", False)
    return cleaned


def enabled_tools(settings: Settings | None = None) -> list[ToolSpec]:
    """Tools whose capability is on: a host that switched fetch off offers no fetch tool."""
    return [t for t in TOOLS if settings is None or all(map(settings.enabled, t.capabilities))]


# What OpenAI's strict mode (and pydantic-ai's check of it) refuses in a schema: these keys
# move into the description, where the model still reads them; netsift validates them anyway.
_STRICT_REFUSED = (
    "minLength",
    "maxLength",
    "patternProperties",
    "unevaluatedProperties",
    "propertyNames",
    "minProperties",
    "maxProperties",
    "unevaluatedItems",
    "contains",
    "minContains",
    "maxContains",
    "uniqueItems",
)
_STRICT_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)


def _open_object(node: Any) -> bool:
    """A free-form object (any keys), which strict mode cannot say."""
    return (
        isinstance(node, dict)
        and node.get("type") == "object"
        and "properties" not in node
        and node.get("additionalProperties", True) is not False
    )


JSON_TEXT = "a JSON object, sent as a string"


def _as_json_text(node: dict[str, Any]) -> dict[str, Any] | None:
    """A tool's own free-form object argument (extract_data's `output_schema`) in the strict
    form: a string holding the JSON, which dispatch reads back (`decode_json_text`). None
    when the argument is no such object."""
    options = node.get("anyOf", [node])
    if not any(_open_object(option) for option in options):
        return None
    kinds = [{"type": "string"} if _open_object(o) else o for o in options]
    said = node.get("description")
    out: dict[str, Any] = {k: v for k, v in node.items() if k not in ("anyOf", "type")}
    out |= {"anyOf": kinds} if len(kinds) > 1 else kinds[0]
    out["description"] = f"{said} ({JSON_TEXT})" if said else JSON_TEXT
    return out


def decode_json_text(model: type[BaseModel], arguments: dict[str, Any]) -> dict[str, Any]:
    """Arguments with each free-form object argument sent as JSON text (the strict form)
    read back as the object; text that is not a JSON object is left for validation to name."""
    out = dict(arguments)
    for name, spec in input_schema(model).get("properties", {}).items():
        value = out.get(name)
        if isinstance(value, str) and _as_json_text(spec) is not None:
            try:
                decoded = json.loads(value)
            except ValueError:
                continue
            if isinstance(decoded, dict):
                out[name] = decoded
    return out


def strict_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` in the form OpenAI's strict mode accepts: every object closed and every
    property required (an optional one is nullable already, and a model that wants the
    default sends it), no `default`, the bounds strict mode refuses said in the description,
    a `$ref` with siblings wrapped in `anyOf`. A free-form object that is the tool's own
    argument is asked for as JSON text; one nested deeper (a search result's provider
    extras, passed through) is left out. The arguments are still validated by the same
    model, bounds included, so nothing is lost but the model's hint."""

    def walk(node: Any, top: bool = False) -> Any:
        if isinstance(node, list):
            return [walk(item) for item in node]
        if not isinstance(node, dict):
            return node
        out = {key: walk(value) for key, value in node.items() if key != "properties"}
        if "properties" in node:
            kept: dict[str, Any] = {}
            for name, sub in node["properties"].items():
                text = _as_json_text(sub) if top else None
                if text is not None:
                    kept[name] = text
                elif not _open_object(sub) and _as_json_text(sub) is None:
                    kept[name] = sub
            out["properties"] = {name: walk(sub) for name, sub in kept.items()}
            out["required"] = list(kept)
            out["additionalProperties"] = False
        notes = [f"{key}={out.pop(key)}" for key in _STRICT_REFUSED if key in out]
        if "format" in out and out["format"] not in _STRICT_FORMATS:
            notes.append(f"format={out.pop('format')}")
        if "default" in out:
            notes.append(f"default={json.dumps(out.pop('default'))}")
        if "oneOf" in out:
            out["anyOf"] = out.pop("oneOf")
        if notes:
            said = out.get("description")
            out["description"] = f"{said} ({', '.join(notes)})" if said else ", ".join(notes)
        if "$ref" in out and len(out) > 1:
            out["anyOf"] = [{"$ref": out.pop("$ref")}]
        return out

    result: dict[str, Any] = walk(schema, top=True)
    return result


def definitions(
    format: ToolFormat = "openai", *, settings: Settings | None = None, strict: bool = False
) -> list[dict[str, Any]]:
    """Tool definitions in the envelope `format` expects; `strict` gives OpenAI's strict
    form (`"strict": true` and a schema its strict mode accepts)."""
    out: list[dict[str, Any]] = []
    for tool in enabled_tools(settings):
        schema = input_schema(tool.args)
        if strict:
            schema = strict_schema(schema)
        if format == "openai":
            function = {"name": tool.name, "description": tool.description, "parameters": schema}
            out.append(
                {"type": "function", "function": function | ({"strict": True} if strict else {})}
            )
        elif format == "anthropic":
            out.append({"name": tool.name, "description": tool.description, "input_schema": schema})
        elif format == "mcp":
            out.append({"name": tool.name, "description": tool.description, "inputSchema": schema})
        else:
            raise InvalidInput(f"format must be openai, anthropic or mcp, not {format!r}")
    return out
