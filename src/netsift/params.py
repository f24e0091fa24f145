"""What each operation accepts: one pydantic model per call, shared by every door.

The CLI's JSON-lines mode, the HTTP API, MCP and the agent tools validate input with these
models, so a bad argument gets the same clear message everywhere, and tool schemas are
generated from them rather than written twice.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from .errors import InvalidInput
from .models import (
    ContentFormat,
    PageTypeChoice,
    RenderMode,
    SafeSearch,
    ScreenshotMode,
    SearchResult,
    TimeRange,
)
from .render.actions import MAX_ACTIONS, Action

__all__ = [
    "MAX_BATCH_QUERIES",
    "MAX_BATCH_URLS",
    "MAX_EXTRACT_URLS",
    "MAX_MAP_LIMIT",
    "MAX_QUERY_CHARS",
    "BatchFetchParams",
    "BatchSearchParams",
    "CitationPackParams",
    "CitedReport",
    "ContextParams",
    "CrawlParams",
    "DedupeRankParams",
    "DiscoveriesParams",
    "ExtractDataParams",
    "ExtractParams",
    "FetchOptions",
    "FetchParams",
    "FlagDiscoveryParams",
    "JobListParams",
    "JobStatusParams",
    "MapOptions",
    "MapParams",
    "MetaParams",
    "ResearchParams",
    "RobotsCheckParams",
    "SearchParams",
    "SitemapMode",
    "SleepMode",
    "SleepParams",
    "WakeParams",
    "WaybackParams",
    "validated",
    "well_formed",
]

MAX_QUERY_CHARS = 400  # Brave's and Tavily's limit: a longer query fails on the best engines
MAX_URL_CHARS = 8192
# The most queries one batch may hold: the default per-request search budget
# (Settings.max_searches_per_request), so what the schema accepts a default host serves.
MAX_BATCH_QUERIES = 20
# The most URLs one map lists: Firecrawl's default map size; more is a crawl's job, and a
# model reading the list gains nothing from the tail.
MAX_MAP_LIMIT = 5000


# A UTF-16 surrogate code point: JSON can spell one alone (`"\ud800"`) and Python keeps it in a
# str, but no UTF-8 can carry it, so the first layer that encodes the text would fail.
_SURROGATE = re.compile("[\ud800-\udfff]")


def well_formed(value: Any) -> Any:
    """`value` unchanged when every string in it (in lists and dicts, keys too) is well-formed
    Unicode; else a validation error, so every door answers `invalid_input` instead of failing
    later with an encoding error (500) wherever the text is first sent or stored."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            if found := _SURROGATE.search(item):
                raise PydanticCustomError(
                    "malformed_unicode",
                    "malformed Unicode: a lone UTF-16 surrogate (U+{code:04X}) at character "
                    "{index}; send well-formed UTF-8 text",
                    {"code": ord(found.group()), "index": found.start()},
                )
        elif isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list | tuple):
            pending.extend(item)
    return value


class _Params(BaseModel):
    # Strict, as the generated schemas say: `"count": "5"` or `"seconds": true` is refused at
    # every door rather than coerced (a float field still takes a JSON integer).
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True, strict=True)

    @field_validator("*", mode="before")
    @classmethod
    def _well_formed(cls, value: object, info: ValidationInfo) -> object:
        return _within_length(cls, info.field_name, well_formed(value))


P = TypeVar("P", bound=BaseModel)


def _within_length(model: type[BaseModel], name: str | None, value: object) -> object:
    """A string no longer than its field's `max_length` as sent: whitespace is stripped
    before pydantic measures, and the schema a client reads bounds the text as sent."""
    field = model.model_fields.get(name or "")
    if not isinstance(value, str) or field is None:
        return value
    for rule in field.metadata:
        limit = getattr(rule, "max_length", None)
        if limit is not None and len(value) > limit:
            raise PydanticCustomError(
                "string_too_long",
                "String should have at most {max_length} characters",
                {"max_length": limit},
            )
    return value


def validated(model: type[P], **fields: Any) -> P:
    """`model` built from `fields`, or InvalidInput naming each field and its problem."""
    try:
        return model.model_validate(fields)
    except ValidationError as exc:
        raise InvalidInput.from_validation(exc) from None


Url = Annotated[
    str,
    Field(min_length=1, max_length=MAX_URL_CHARS, description="An http or https URL to read."),
]


class FetchParams(_Params):
    """Fetch a web page and return its main content as Markdown, text or cleaned HTML."""

    url: Url
    format: ContentFormat = Field(
        default="markdown", description="Output format: markdown, text or html."
    )
    max_length: int | None = Field(
        default=None,
        ge=1,
        le=1_000_000,
        description="Return at most this many characters; the page says where to continue.",
    )
    start_index: int = Field(
        default=0, ge=0, description="Start at this character (continue a truncated page)."
    )
    respect_robots: bool | None = Field(
        default=None, description="Obey robots.txt (default: the server's setting, on)."
    )
    page_type: PageTypeChoice = Field(
        default="auto",
        description="How to read an HTML page: auto (classify it) or a page type to force.",
    )
    render: RenderMode | None = Field(
        default=None,
        description="Run the page's JavaScript in a guarded headless browser: auto (only when "
        "the HTML is a JavaScript shell), always or never. Default: auto when the browser "
        "extra is installed, else never.",
    )
    keep_hidden: bool = Field(
        default=False,
        description="Keep the text an HTML page hides from its visitors (display:none, "
        "off-screen, noscript...); by default it is dropped and counted in warnings.",
    )


class FetchOptions(FetchParams):
    """FetchParams plus what only the library's caller sets: its own caps and the cache.

    Over HTTP and to agents these are the host's settings, not the request's."""

    max_bytes: int | None = Field(default=None, ge=1, description="Largest body to read.")
    timeout: float | None = Field(default=None, gt=0, description="Total seconds for the fetch.")
    no_cache: bool = Field(default=False, description="Fetch again, ignoring cached pages.")
    keep_source: bool = Field(
        default=False, description="Also return the decoded body as served (Page.source)."
    )
    error_pages: bool = Field(
        default=False,
        description="Read a page that answers an HTTP error (4xx, 5xx) as a Page with that "
        "status (Firecrawl's scrape does), instead of raising http_error.",
    )
    screenshot: ScreenshotMode | None = Field(
        default=None,
        description="A PNG of the rendered page (Page.screenshot): its viewport or full page. "
        "Renders the page.",
    )
    actions: list[Action] = Field(
        default_factory=list,
        max_length=MAX_ACTIONS,
        description="Page actions performed in order before the page is read (Page.actions): "
        "wait, click, write, press, scroll, screenshot. Renders the page.",
    )
    images: bool = Field(
        default=False, description="List the page's image URLs, absolute (Page.images)."
    )

    @model_validator(mode="after")
    def _browser_work_renders(self) -> FetchOptions:
        if (self.screenshot or self.actions) and self.render == "never":
            raise PydanticCustomError(
                "render_needed",
                "screenshot and actions run in the browser: they cannot go with render=never",
            )
        return self


class MetaParams(_Params):
    """Fetch a page's link-preview card: title, description, image, site name, favicon."""

    url: Url
    respect_robots: bool | None = Field(
        default=None, description="Obey robots.txt (default: the server's setting, on)."
    )
    explain: bool = Field(
        default=False,
        description="Say why the page was read as its page type: each signal with its weight "
        "and where it was found, and the runner-up (page_type_explanation).",
    )


class _ProviderChoice(_Params):
    providers: list[str] | None = Field(
        default=None, description="Providers to use, in priority order (default: configured)."
    )

    @field_validator("providers", mode="before")
    @classmethod
    def _comma_list(cls, value: object) -> object:
        if isinstance(value, str):
            return [part.strip() for part in value.split(",") if part.strip()]
        return value


class _SearchOptions(_ProviderChoice):
    count: int = Field(default=10, ge=1, le=50, description="Number of results (1-50).")
    merge: bool = Field(
        default=False, description="Ask several providers at once and merge their results."
    )
    time_range: TimeRange | None = Field(
        default=None, description="Only results from the last day, week, month or year."
    )
    region: str | None = Field(
        default=None, max_length=16, description="Region or language code, e.g. us-en or de."
    )
    safesearch: SafeSearch = "moderate"
    no_cache: bool = Field(default=False, description="Bypass the search cache.")


class SearchParams(_SearchOptions):
    """Search the web; results come with the attempts made on each provider."""

    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS, description="What to search for.")


class BatchSearchParams(_SearchOptions):
    """Run several searches in parallel; results come back in the same order."""

    queries: list[Annotated[str, Field(min_length=1, max_length=MAX_QUERY_CHARS)]] = Field(
        min_length=1,
        max_length=MAX_BATCH_QUERIES,
        description=f"The queries to run (1-{MAX_BATCH_QUERIES}).",
    )


Depth = Literal["quick", "standard", "deep"]
DEPTH_ITERATIONS = {"quick": 1, "standard": 3, "deep": 5}
DEFAULT_BREADTH = 4  # queries a round when the caller sets neither breadth nor a budget
DEFAULT_SEARCHES = 30  # the search budget of a run that names none
MAX_RESEARCH_SEARCHES = 100  # a deep research of the host netsift serves asks for up to 100
MAX_ITERATIONS = 5
# Queries a round at most: the largest budget spread over the most rounds (100 / 5).
MAX_BREADTH = MAX_RESEARCH_SEARCHES // MAX_ITERATIONS


class ResearchParams(_Params):
    """Research a question: plan searches, read sources, answer with verified citations."""

    question: str = Field(min_length=3, max_length=2000, description="The question to research.")
    depth: Depth = Field(
        default="standard", description="quick: one round; standard: up to 3; deep: up to 5."
    )
    breadth: int | None = Field(
        default=None,
        ge=1,
        le=MAX_BREADTH,
        description=f"Queries per round (1-{MAX_BREADTH}; default {DEFAULT_BREADTH}, or more "
        "when max_searches gives the rounds more to spend).",
    )
    max_iterations: int | None = Field(
        default=None,
        ge=1,
        le=MAX_ITERATIONS,
        description=f"Rounds at most (1-{MAX_ITERATIONS}; default from depth).",
    )
    max_searches: int | None = Field(
        default=None,
        ge=1,
        le=MAX_RESEARCH_SEARCHES,
        description=f"Searches at most (1-{MAX_RESEARCH_SEARCHES}; default {DEFAULT_SEARCHES}).",
    )
    max_pages: int = Field(default=12, ge=1, le=60, description="Pages read at most.")
    max_tokens: int = Field(
        default=60_000, ge=1000, le=2_000_000, description="LLM tokens at most."
    )
    deadline: float = Field(
        default=180.0, gt=0, le=3600, description="Seconds before the run stops and answers."
    )

    def iterations(self) -> int:
        return self.max_iterations or DEPTH_ITERATIONS[self.depth]

    def searches(self) -> int:
        """The run's search budget: the caller's, or the default."""
        return self.max_searches or DEFAULT_SEARCHES

    def queries_per_round(self) -> int:
        """The caller's breadth; else, when the caller set a search budget, that budget spread
        over the rounds (100 searches in 5 rounds plan 20 queries a round), never narrower than
        the default: a budget, not a fixed shape, bounds a deep run."""
        if self.breadth is not None:
            return self.breadth
        if self.max_searches is None:
            return DEFAULT_BREADTH
        spread = -(-self.max_searches // self.iterations())
        return min(MAX_BREADTH, max(DEFAULT_BREADTH, spread))


SitemapMode = Literal["include", "only", "skip"]
PathPatterns = Annotated[
    list[Annotated[str, Field(min_length=1, max_length=500)]], Field(max_length=100)
]


class _SiteScope(_Params):
    """The bounds map and crawl share (crawl/scope.py): the site, its subdomains, and path
    patterns checked here, once, so a bad pattern is invalid input on every door."""

    subdomains: bool = Field(default=False, description="Also the site's subdomains.")
    include: PathPatterns = Field(
        default_factory=list,
        description="Regular expressions; a URL's path (and query) must match one of them "
        "(e.g. ^/docs/).",
    )
    exclude: PathPatterns = Field(
        default_factory=list,
        description="Regular expressions; a URL whose path (and query) matches one is left out.",
    )

    @field_validator("include", "exclude")
    @classmethod
    def _patterns(cls, value: list[str], info: Any) -> list[str]:
        from .crawl.scope import check_patterns

        try:
            check_patterns(value, info.field_name)
        except InvalidInput as exc:  # the field is named once, by the validation report
            problem = exc.message.removeprefix(f"{info.field_name}: ")
            raise PydanticCustomError("path_pattern", problem) from None
        return value


class MapParams(_SiteScope):
    """List a site's URLs without reading every page: its sitemaps (from robots.txt), the
    RSS/Atom feeds and links of the start page; each URL once, with where it was found."""

    url: Url
    limit: int = Field(
        default=100,
        ge=1,
        le=MAX_MAP_LIMIT,
        description=f"List at most this many URLs (1-{MAX_MAP_LIMIT}).",
    )
    query: str | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_QUERY_CHARS,
        description="Rank the URLs by relevance to this query (their words and titles).",
    )
    sitemaps: SitemapMode = Field(
        default="include",
        description="include: sitemaps, feeds and the start page's links; only: sitemaps "
        "alone; skip: the start page's links and feeds alone.",
    )
    respect_robots: bool | None = Field(
        default=None,
        description="Leave out URLs robots.txt disallows (default: the server's setting, on).",
    )


class MapOptions(MapParams):
    """MapParams plus what only the library's caller sets: the time the whole map may take."""

    timeout: float | None = Field(
        default=None, gt=0, description="Seconds for the whole map (default 60)."
    )


# A crawl's bounds: the most any one request may ask for. A host can lower what it serves
# with its own limits; these keep one request from holding a worker for a day.
MAX_CRAWL_PAGES = 10_000
MAX_CRAWL_DEPTH = 50
MAX_CRAWL_SECONDS = 6 * 3600.0
MAX_CRAWL_WORKERS = 16


class CrawlParams(_SiteScope):
    """Crawl a site from a URL: read its pages breadth-first (or best-first for a query),
    within its scope, robots.txt and budgets; each page as clean Markdown with its links."""

    url: Url
    format: ContentFormat = Field(
        default="markdown", description="Each page's content as markdown, text or html."
    )
    max_pages: int = Field(
        default=50, ge=1, le=MAX_CRAWL_PAGES, description="Pages to keep at most."
    )
    max_depth: int = Field(
        default=3,
        ge=0,
        le=MAX_CRAWL_DEPTH,
        description="Link hops to follow from the nearest seed (the start URL or a sitemap's).",
    )
    sitemap: SitemapMode = Field(
        default="include",
        description="include: the site's sitemaps seed the crawl with the start URL; only: "
        "the sitemaps' URLs alone, no links followed; skip: the start URL and its links alone.",
    )
    query: str | None = Field(
        default=None,
        max_length=MAX_QUERY_CHARS,
        description="Read the pages most relevant to this first (best-first order).",
    )
    max_bytes: int = Field(
        default=200 * 1024 * 1024,
        ge=1,
        le=10 * 1024**3,
        description="Bytes to download across the crawl at most.",
    )
    deadline: float = Field(
        default=600.0,
        gt=0,
        le=MAX_CRAWL_SECONDS,
        description="Seconds before the crawl stops with what it has.",
    )
    respect_robots: bool | None = Field(
        default=None, description="Obey robots.txt (default: the server's setting, on)."
    )
    workers: int = Field(
        default=1,
        ge=1,
        le=MAX_CRAWL_WORKERS,
        description="Workers that may share this crawl (the others are `netsift worker`s).",
    )


class ExtractParams(_Params):
    """Read HTML the caller already has, as fetch reads a page; no network."""

    url: str | None = Field(
        default=None, max_length=MAX_URL_CHARS, description="The page's URL, to resolve links."
    )
    format: ContentFormat = Field(
        default="markdown", description="Output format: markdown, text or html."
    )
    max_length: int | None = Field(
        default=None, ge=1, le=1_000_000, description="Return at most this many characters."
    )
    start_index: int = Field(default=0, ge=0, description="Start at this character.")
    page_type: PageTypeChoice = Field(
        default="auto",
        description="How to read the page: auto (classify it) or a page type to force.",
    )


class JobStatusParams(_Params):
    """A job's status, its progress events after `since` and (when done) its result."""

    job_id: str = Field(min_length=1, max_length=64, description="The research job's id.")
    since: int = Field(default=0, ge=0, description="Only events after this sequence number.")


class JobListParams(_Params):
    """Recent jobs, newest first; `before` continues after the last one listed."""

    status: Literal["queued", "running", "done", "failed", "cancelled", "interrupted"] | None = (
        Field(default=None, description="Only jobs in this status.")
    )
    limit: int = Field(default=50, ge=1, le=500, description="The most recent N.")
    before: str | None = Field(default=None, max_length=64, description="A job id to list after.")


class FlagDiscoveryParams(_Params):
    """Flag a notable finding for a human to look at later."""

    title: str = Field(min_length=1, max_length=300, description="A short headline.")
    description: str = Field(
        min_length=1, max_length=10_000, description="What was found and why it matters."
    )
    url: str | None = Field(default=None, max_length=8192, description="Where it was found.")


class DiscoveriesParams(_Params):
    """The findings agents flagged, oldest first."""

    job_id: str | None = Field(default=None, max_length=64, description="Only this job's.")
    limit: int | None = Field(default=None, ge=1, le=10_000, description="The most recent N.")


SleepMode = Literal["timer", "event", "manual"]


class SleepParams(_Params):
    """Pause until a timer, a research job's end, or a person's wake; every sleep is capped."""

    mode: SleepMode = Field(description="timer, event or manual.")
    seconds: float | None = Field(
        default=None, gt=0, description="How long (timer), or the longest to wait (others)."
    )
    job_id: str | None = Field(default=None, description="The research job to wait for (event).")
    reason: str = Field(default="", max_length=500, description="Why you are sleeping.")


class WakeParams(_Params):
    """Wake a sleep; the sleeper wakes with "Sleep ended. Reason: <message>"."""

    sleep_id: str = Field(min_length=1, description="The sleep's id.")
    message: str | None = Field(
        default=None, max_length=2000, description="What the sleeper is told it woke for."
    )


# OpenAI's rule of thumb for English text. A budget estimate, not a tokenizer: netsift serves
# any model, and an agent's budget is a ceiling to stay well under, not a count to hit.
CHARS_PER_TOKEN = 4
CONTEXT_MIN_TOKENS = 512  # below this a page's best passage may not fit
CONTEXT_MAX_TOKENS = 32_768  # the largest context an agent's tool result usually takes


class ContextParams(_ProviderChoice):
    """Context sized for an agent: the passages most relevant to a query across the pages a
    search finds, deduplicated, within a token budget, each with its URL, title and position."""

    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS, description="What to look up.")
    max_tokens: int = Field(
        default=4096,
        ge=CONTEXT_MIN_TOKENS,
        le=CONTEXT_MAX_TOKENS,
        description=f"Token budget of the passages ({CONTEXT_MIN_TOKENS}-{CONTEXT_MAX_TOKENS}; "
        f"estimated at {CHARS_PER_TOKEN} characters a token).",
    )
    max_sources: int = Field(default=5, ge=1, le=20, description="Pages read at most (1-20).")
    per_source: int = Field(
        default=3, ge=1, le=10, description="Passages from one page at most (1-10)."
    )
    time_range: TimeRange | None = Field(
        default=None, description="Only pages from the last day, week, month or year."
    )
    region: str | None = Field(
        default=None, max_length=16, description="Region or language code, e.g. us-en or de."
    )
    no_cache: bool = Field(default=False, description="Bypass the search and page caches.")


# The most URLs one batch fetch holds: its results are one job's, paged like a crawl's
# (firecrawl-py itself splits larger lists into batches of 100).
MAX_BATCH_URLS = 1000
# Fetches one batch keeps in flight: a job of many pages, one wider than a request's few
# (at_once.PAGES_AT_ONCE), and few enough that one batch does not flood a site.
BATCH_CONCURRENCY = 5


class BatchFetchParams(_Params):
    """Fetch a list of URLs as one job (Firecrawl's batch scrape): each URL read once, in any
    order, its page or its error kept as a result of the job (read like a crawl's)."""

    urls: list[Url] = Field(min_length=1, max_length=MAX_BATCH_URLS, description="The URLs.")
    format: ContentFormat = Field(
        default="markdown", description="Each page's content as markdown, text or html."
    )
    respect_robots: bool | None = Field(
        default=None, description="Obey robots.txt (default: the server's setting, on)."
    )
    timeout: float | None = Field(default=None, gt=0, description="Seconds for each fetch.")
    no_cache: bool = Field(default=False, description="Fetch again, ignoring cached pages.")
    keep_source: bool = Field(
        default=False, description="Also keep each body as served (Page.source)."
    )
    error_pages: bool = Field(
        default=False, description="Keep a page that answers 4xx/5xx as a page with its status."
    )
    concurrency: int = Field(
        default=BATCH_CONCURRENCY, ge=1, le=BATCH_CONCURRENCY, description="Fetches at once."
    )


# -- the toolbelt: robots_check, wayback_lookup, citation_pack, dedupe_rank (issue 29)


class RobotsCheckParams(_Params):
    """May this user agent fetch this URL, and with what crawl delay? (robots.txt)"""

    url: Url
    user_agent: str | None = Field(
        default=None,
        min_length=1,
        max_length=500,
        description="The user agent to ask for (default: netsift's own).",
    )


# The dates `at` accepts: 1 to 14 digits of YYYYMMDDhhmmss (the Wayback Machine's own form),
# or an ISO date or date-time (2024-03-01, 2024-03-01T12:00:00Z).
WAYBACK_AT = (
    r"^(\d{4}(\d{2}){0,5}"
    r"|\d{4}-\d{2}(-\d{2}([T ]\d{2}:\d{2}(:\d{2})?(\.\d+)?(Z|[+-]\d{2}:?\d{2})?)?)?)$"
)


class WaybackParams(_Params):
    """Find the Internet Archive snapshot of a URL nearest a date; optionally save one now,
    or read the snapshot as a page."""

    url: Url
    at: str | None = Field(
        default=None,
        pattern=WAYBACK_AT,
        description="The date to be nearest: YYYY[MM[DD[hh[mm[ss]]]]] or an ISO date "
        "(default: the newest snapshot).",
    )
    save: bool = Field(
        default=False, description="Ask the Internet Archive to save the page now (Save Page Now)."
    )
    read: bool = Field(default=False, description="Also read the snapshot as a page.")
    max_length: int | None = Field(
        default=None, ge=1, le=1_000_000, description="With read: at most this many characters."
    )


MAX_CITATION_SOURCES = 50  # a report cites a few dozen sources; past that it is a crawl


class _ReportPart(_Params):
    # A report is sent whole (`research --json`'s output): its other fields are ignored, but
    # the ones read are strict like every param.
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True, strict=True)


# A report's parts are bounded so that the largest report (and one item past each bound) fits
# the server's 1 MiB body cap: a citation's URL as browsers keep it (2,048), a quote a few
# sentences long.
REPORT_URL_CHARS = 2048
MAX_QUOTE_CHARS = 2000


class ReportCitation(_ReportPart):
    n: int = Field(ge=0, description="Its [n] in the answer.")
    url: str = Field(min_length=1, max_length=REPORT_URL_CHARS)
    title: str | None = Field(default=None, max_length=300)
    quote: str = Field(default="", max_length=MAX_QUOTE_CHARS, description="The passage quoted.")


class ReportSource(_ReportPart):
    url: str = Field(min_length=1, max_length=REPORT_URL_CHARS)
    title: str | None = Field(default=None, max_length=300)


class CitedReport(_ReportPart):
    """What citation_pack reads of a research report: its citations (or else its sources)."""

    citations: list[ReportCitation] = Field(default_factory=list, max_length=MAX_CITATION_SOURCES)
    sources: list[ReportSource] = Field(default_factory=list, max_length=MAX_CITATION_SOURCES)


class RankedInput(SearchResult):
    """A search result given to dedupe_rank: strict, as every param is (its texts are
    bounded by the request body's cap)."""

    model_config = ConfigDict(extra="forbid", strict=True)


CitationFormat = Literal["csl-json", "bibtex", "markdown"]
ArchiveMode = Literal["off", "lookup", "save"]


class CitationPackParams(_Params):
    """Cite sources: a list of URLs, a research report, or a research job's report."""

    urls: list[Url] = Field(
        default_factory=list,
        max_length=MAX_CITATION_SOURCES,
        description="The pages to cite (or give report or job_id).",
    )
    report: CitedReport | None = Field(
        default=None, description="A research report (its JSON) whose sources to cite."
    )
    job_id: str | None = Field(
        default=None,
        min_length=1,
        max_length=64,
        description="A research job whose report to cite.",
    )
    format: CitationFormat = Field(
        default="csl-json", description="The export: csl-json, bibtex or markdown."
    )
    archive: ArchiveMode = Field(
        default="lookup",
        description="Archived copies: lookup (link an existing snapshot), save (request one) "
        "or off.",
    )

    @model_validator(mode="after")
    def _one_source(self) -> CitationPackParams:
        given = [
            name
            for name, present in (
                ("urls", bool(self.urls)),
                ("report", self.report is not None),
                ("job_id", self.job_id is not None),
            )
            if present
        ]
        if len(given) != 1:
            shown = " and ".join(given) or "none"
            raise ValueError(f"give one of urls, report or job_id (given: {shown})")
        return self


# A merged result page holds a few hundred; near-duplicate folding compares every pair.
MAX_RANK_RESULTS = 200


class DedupeRankParams(_Params):
    """Fold duplicate results (same page, near-same text) and rank them against a query."""

    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS, description="What to rank for.")
    results: list[RankedInput] = Field(
        min_length=1,
        max_length=MAX_RANK_RESULTS,
        description="Search results (title, url, snippet, source...), in preference order.",
    )
    count: int = Field(default=10, ge=1, le=MAX_RANK_RESULTS, description="Results to keep.")


# extract_data reads a handful of pages: Firecrawl's and Tavily's extract take up to 20 URLs
# a call; more is a crawl's job.
MAX_EXTRACT_URLS = 20


class ExtractDataParams(_Params):
    """Extract typed data (a JSON Schema's fields) from pages, each field with its evidence."""

    urls: list[Url] | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_EXTRACT_URLS,
        description=f"The pages to read (1-{MAX_EXTRACT_URLS}).",
    )
    query: str | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_QUERY_CHARS,
        description="Search for the pages to read instead (or as well).",
    )
    output_schema: dict[str, Any] | None = Field(
        default=None,
        description="A JSON Schema of an object: the fields to fill. Without a model they "
        "come from the pages' structured data, tables and definition lists.",
    )
    prompt: str | None = Field(
        default=None,
        min_length=1,
        max_length=2000,
        description="What to extract, in words (for the model); alone, the model names the fields.",
    )
    max_pages: int = Field(default=5, ge=1, le=MAX_EXTRACT_URLS, description="Pages read at most.")
    max_tokens: int = Field(
        default=30_000, ge=1000, le=2_000_000, description="LLM tokens at most."
    )
    deadline: float = Field(
        default=120.0, gt=0, le=3600, description="Seconds before it stops and answers."
    )

    @field_validator("output_schema")
    @classmethod
    def _schema(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        from .structured.schema import check_schema

        try:
            return None if value is None else check_schema(value)
        except ValueError as exc:  # said as it is, without pydantic's "Value error, "
            raise PydanticCustomError(
                "invalid_schema", "{problem}", {"problem": str(exc)}
            ) from None

    @model_validator(mode="after")
    def _asks_something(self) -> ExtractDataParams:
        if not self.urls and not self.query:
            raise PydanticCustomError(
                "nothing_to_read", "give urls, or a query to search for the pages"
            )
        if self.output_schema is None and self.prompt is None:
            raise PydanticCustomError(
                "nothing_to_fill", "give output_schema (the fields to fill), a prompt, or both"
            )
        return self
