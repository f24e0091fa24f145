"""The contracts users see (design.md §3): results, pages, attempts, reports and events.

Field names here are the public API of every door (Python, CLI `--json`, HTTP, MCP, tools):
rename nothing, add with defaults.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Final, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "HTML_PAGE_TYPES",
    "TIME_RANGE_WORDS",
    "ActionResult",
    "Attempt",
    "Citation",
    "ContentFormat",
    "CrawlReport",
    "CrawlSkip",
    "Event",
    "EventType",
    "FeedEntry",
    "HtmlPageType",
    "Link",
    "MapLink",
    "MapResult",
    "MapSource",
    "Metadata",
    "Page",
    "PageType",
    "PageTypeChoice",
    "PageTypeExplanation",
    "PageTypeSignal",
    "Query",
    "Redirect",
    "RenderMode",
    "ResearchReport",
    "SafeSearch",
    "ScreenshotMode",
    "SearchResponse",
    "SearchResult",
    "SignalSource",
    "SitemapReport",
    "TimeRange",
]

ContentFormat = Literal["markdown", "text", "html"]
RenderMode = Literal["auto", "always", "never"]
ScreenshotMode = Literal["viewport", "full_page"]
TimeRange = Literal["d", "w", "m", "y"]
# The words a time range is also spelled with, on the CLI and in the compatible APIs.
TIME_RANGE_WORDS: dict[str, TimeRange] = {
    "d": "d",
    "day": "d",
    "w": "w",
    "week": "w",
    "m": "m",
    "month": "m",
    "y": "y",
    "year": "y",
}
SafeSearch = Literal["off", "moderate", "strict"]
# The page types, written once: an HTML page is classified as one of these (fetch/pagetype.py)
# or forced to one (`page_type=`); other content types know their kind.
HtmlPageType = Literal[
    "article", "documentation", "forum", "product", "service", "listing", "collection"
]  # fmt: skip
PageType = Literal[HtmlPageType, "feed", "pdf", "json", "text"]
PageTypeChoice = Literal["auto", HtmlPageType]  # what `page_type=` accepts
HTML_PAGE_TYPES: Final[tuple[HtmlPageType, ...]] = get_args(HtmlPageType)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Query(_Model):
    """One search as a provider sees it: what to ask and with which options."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    text: str
    count: int = 10
    time_range: TimeRange | None = None
    region: str | None = None
    safesearch: SafeSearch = "moderate"
    page: int = 1


class SearchResult(_Model):
    title: str
    url: str
    snippet: str = ""
    source: str
    rank: int = 0
    score: float | None = None
    published: str | None = None
    thumbnail: str | None = None
    favicon: str | None = None
    engines: list[str] = Field(default_factory=list)
    doi: str | None = None
    authors: list[str] = Field(default_factory=list)
    extra: dict[str, Any] = Field(default_factory=dict)


class Attempt(_Model):
    """One provider tried for one query, so failures are never silent."""

    provider: str
    ok: bool
    error_code: str | None = None
    message: str | None = None
    latency_ms: float = 0.0
    result_count: int = 0
    retry_after: float | None = None
    retryable: bool | None = None  # for a failed attempt: may asking again later help?


class SearchResponse(_Model):
    query: str
    results: list[SearchResult] = Field(default_factory=list)
    provider: str | None = None
    cached: bool = False
    search_time_ms: float = 0.0
    result_count: int = 0
    attempts: list[Attempt] = Field(default_factory=list)
    request_id: str | None = None


class Redirect(_Model):
    """One hop of a redirect chain."""

    url: str
    status: int
    location: str


# Where a page-type signal was found (fetch/pagetype.py's Evidence.where).
SignalSource = Literal["json-ld", "microdata", "opengraph", "url", "body"]


class PageTypeSignal(_Model):
    """One piece of evidence the classifier weighed: what it saw, where, for which type."""

    signal: str  # what was seen: "schema:newsarticle", "url:dated-path", "dom:posts=4"
    where: SignalSource
    type: HtmlPageType
    weight: float


class PageTypeExplanation(_Model):
    """Why netsift read a page as its type (`netsift meta --explain`): each signal with its
    weight and where it was found, the totals per type, the rule that decided, the runner-up."""

    type: PageType
    confidence: float  # the winner's share of all the weight (0 when no signal counted)
    rule: str  # how the type was decided: the highest total, or the rule that overruled it
    signals: list[PageTypeSignal] = Field(default_factory=list)
    scores: dict[str, float] = Field(default_factory=dict)  # total weight per type
    runner_up: HtmlPageType | None = None  # the best-scoring type that was not chosen
    runner_up_score: float | None = None


class Metadata(_Model):
    """What a client needs to draw a link-preview card, plus the raw structured data."""

    title: str | None = None
    description: str | None = None
    site_name: str | None = None
    image: str | None = None
    url: str | None = None
    type: str | None = None
    author: str | None = None
    published: str | None = None
    lang: str | None = None
    canonical: str | None = None
    favicon: str | None = None
    page_type: PageType | None = None  # what netsift read the page as (Page.page_type)
    # A page read from the Internet Archive (wayback_lookup's `read`): the URL the copy was
    # captured from and when; None for a page read live.
    archived_from: str | None = None
    archived_at: datetime | None = None
    # why it was read as that type; filled only by `meta` when asked (`explain`)
    page_type_explanation: PageTypeExplanation | None = None
    twitter: dict[str, str] = Field(default_factory=dict)
    opengraph: dict[str, str] = Field(default_factory=dict)
    json_ld: list[dict[str, Any]] = Field(default_factory=list)


class FeedEntry(_Model):
    title: str | None = None
    url: str | None = None
    published: str | None = None
    author: str | None = None
    summary: str | None = None


class Link(_Model):
    """A link a page offers: its absolute URL (no fragment) and its anchor text."""

    url: str
    text: str = ""


class ActionResult(_Model):
    """One page action that was performed (render/actions.py), in the order asked: a failed
    action is an error, so every result listed succeeded. A screenshot action carries its
    PNG as a data URL."""

    index: int
    type: str
    screenshot: str | None = None


class Page(_Model):
    url: str
    final_url: str
    status: int = 200
    content_type: str = ""
    fetched_at: datetime
    elapsed_ms: float = 0.0
    bytes: int = 0
    redirects: list[Redirect] = Field(default_factory=list)
    title: str | None = None
    format: ContentFormat = "markdown"
    content: str = ""
    truncated: bool = False
    total_length: int = 0
    start_index: int = 0
    next_start_index: int | None = None
    metadata: Metadata = Field(default_factory=Metadata)
    page_type: PageType | None = None
    page_count: int | None = None
    entries: list[FeedEntry] = Field(default_factory=list)
    # Where the page leads: its http(s) links in page order (fetch/links.py), a feed's entries.
    links: list[Link] = Field(default_factory=list)
    content_sha256: str = ""
    cached: bool = False
    rendered: bool = False  # the content is the DOM after a headless browser ran the page
    render_reason: str | None = None  # why it was (or would have been) rendered
    # The decoded body as served (HTML before extraction; the DOM when rendered), only when
    # asked for (FetchOptions.keep_source): Firecrawl's rawHtml, the MCP fetch tool's raw.
    source: str | None = None
    # Asked for with FetchOptions.screenshot / actions / images (render/actions.py): a PNG
    # data URL of the rendered page, the actions performed, the page's image URLs.
    screenshot: str | None = None
    actions: list[ActionResult] = Field(default_factory=list)
    images: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    # The PDF pages whose text came from OCR (Tesseract) because they had no text layer.
    ocr_pages: list[int] = Field(default_factory=list)


class Citation(_Model):
    n: int
    url: str
    title: str | None = None
    quote: str
    verified: bool = True


class ResearchReport(_Model):
    question: str
    answer: str
    citations: list[Citation] = Field(default_factory=list)
    sources: list[SearchResult] = Field(default_factory=list)
    queries: list[str] = Field(default_factory=list)
    iterations: int = 0
    searches: int = 0
    pages_read: int = 0
    tokens: int = 0
    elapsed_ms: float = 0.0
    stopped_because: str = ""
    mode: Literal["llm", "extractive"] = "llm"
    notes: list[str] = Field(default_factory=list)
    # False when no source read answered the question: the answer then says so and lists
    # what came closest (research/support.py says how "answers" is measured).
    answered: bool = True
    # Sentences of the sources that read as instructions to the reader or an AI (prompt
    # injection, phishing), each naming its source; they were kept out of the answer.
    warnings: list[str] = Field(default_factory=list)


class CrawlSkip(_Model):
    """A URL a crawl did not keep, and why (`code`: out_of_scope, blocked_by_robots,
    blocked_address, duplicate, http_error, …)."""

    url: str
    code: str
    message: str = ""
    duplicate_of: str | None = None


class CrawlReport(_Model):
    """What a crawl read: its pages in the order they were kept, what it left out and why."""

    url: str
    job_id: str | None = None
    pages: list[Page] = Field(default_factory=list)
    skipped: list[CrawlSkip] = Field(default_factory=list)
    pages_read: int = 0
    bytes: int = 0
    # Every reason it ended short: max_pages, max_bytes, time, cancelled, trap, max_depth;
    # ["done"] when it read every URL it was allowed to (docs/crawl.md, "Endings").
    stopped_because: list[str] = Field(default_factory=list)
    elapsed_ms: float = 0.0
    traps: list[str] = Field(default_factory=list)  # path patterns judged traps, left unread
    trapped: int = 0  # URLs of those patterns not read
    seen: int = 0  # URLs met: queued, refused, or linked past max_depth
    skipped_by_code: dict[str, int] = Field(default_factory=dict)  # `skipped`, counted by code
    unread: int = 0  # URLs in scope never asked for (a budget, a trap, max_depth)
    beyond_depth: int = 0  # of those, linked past max_depth only


EventType = Literal[
    "started",
    "planned",
    "search_started",
    "search_done",
    "fetch_started",
    "fetch_done",
    "discovery",
    "synthesizing",
    "gap_found",
    "result",
    "done",
    "error",
    "page",  # a crawl kept a page (data: n, url, final_url, title, depth, …; the page is paged)
    "skipped",  # a crawl left a URL out, and why (data: url, code, message)
]


class Event(_Model):
    """One step of a long operation; one vocabulary for SSE, WebSocket, MCP and the CLI."""

    type: EventType
    job_id: str | None = None
    seq: int = 0
    at: datetime
    data: dict[str, Any] = Field(default_factory=dict)


MapSource = Literal["robots", "sitemap", "feed", "page"]


class MapLink(_Model):
    """One URL of a site's map and where it was found.

    `source`: "robots" (a sitemap robots.txt names, or an index it names, lists it),
    "sitemap" (the site's /sitemap.xml, found without robots.txt), "feed" (an RSS/Atom feed the
    start page links) or "page" (a link of the start page). `found_in` is that document."""

    url: str
    source: MapSource
    found_in: str
    lastmod: str | None = None  # the sitemap's <lastmod>, or the feed entry's date
    title: str | None = None  # the feed entry's title, or the link's anchor text
    score: float | None = None  # relevance to the map's query, when one was given


class SitemapReport(_Model):
    """One sitemap document a map met: read, refused (never requested), failed or skipped."""

    url: str
    via: Literal["robots", "guess", "index"]  # named by robots.txt, /sitemap.xml, an index
    status: Literal["read", "refused", "failed", "skipped"]
    kind: Literal["urlset", "index", "text"] | None = None
    urls: int = 0  # entries it listed
    reason: str | None = None


class MapResult(_Model):
    """A site's URLs, each once (by canonical URL), without reading every page.

    `left_out` counts what was found and not listed, by reason: `robots` (disallowed for
    netsift), `scope` (another site, or the include/exclude patterns), `duplicate`, `invalid`
    (a URL the guard's parser refuses), `limit`. Without a query, reading stops once `limit`
    URLs are in hand, so `found` counts what was found by then. `stopped_because` names each
    bound that cut discovery short."""

    url: str
    links: list[MapLink] = Field(default_factory=list)
    found: int = 0  # distinct URLs in scope and allowed, before the limit
    sitemaps: list[SitemapReport] = Field(default_factory=list)
    feeds: list[str] = Field(default_factory=list)
    left_out: dict[str, int] = Field(default_factory=dict)
    stopped_because: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    elapsed_ms: float = 0.0


class ContextPassage(_Model):
    """One passage of context: verbatim page text, where it came from, and its rank."""

    n: int  # 1-based rank among the passages given
    url: str
    title: str
    text: str
    position: int  # the passage's index among its page's passages (0 = the page's first)
    score: float  # BM25 against the query, with the page's title
    tokens: int  # its estimated share of the budget


class ContextSource(_Model):
    """A page read for the context, and how many of its passages were given."""

    url: str
    title: str
    passages: int = 0


class ContextAnswer(_Model):
    """A query's most relevant passages across the pages that answer it, within a token budget.

    `left_out` counts what was not given, by reason: `budget` (passages with no room left),
    `per_source` (passages past the cap for one page), `duplicate` (paragraphs or passages
    another page gave already), `instruction` (paragraphs that address the reader or an AI,
    never handed to an agent as context)."""

    query: str
    passages: list[ContextPassage] = Field(default_factory=list)
    sources: list[ContextSource] = Field(default_factory=list)
    tokens: int = 0
    max_tokens: int
    left_out: dict[str, int] = Field(default_factory=dict)
    provider: str | None = None
    warnings: list[str] = Field(default_factory=list)
    elapsed_ms: float = 0.0
