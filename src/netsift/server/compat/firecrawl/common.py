"""What every part of Firecrawl's API shares: its error envelope, its scrape options, and a
netsift Page as a Firecrawl Document."""

from __future__ import annotations

from typing import Any, Literal

from fastapi.requests import HTTPConnection
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from ....errors import InvalidInput, NetsiftError
from ....models import ContentFormat, Page, ScreenshotMode
from ....render.actions import Action
from ...operations import Operations
from ...responses import FetchRequest, status_of
from ..shared import ROUTED_FROM, build, error_reply
from .change_tracking import (
    CHANGE_TRACKING,
    ChangeTrackingOptions,
    change_fields,
    change_options,
)
from .extract import STRUCTURED_FORMATS, StructuredOptions, structured_fields
from .paths import PREFIX

__all__ = [
    "SERVED_FORMATS",
    "Lenient",
    "ScrapeOptions",
    "SitemapChoice",
    "SitemapMode",
    "add_warning",
    "api_root",
    "document",
    "formats_of",
    "kept_document",
    "metadata",
    "no_cache",
    "render_error",
    "seconds",
]

# Formats netsift serves (the structured ones, json and summary, in extract.py); any other is
# refused by name rather than silently left out or answered with something else. A screenshot
# is v1's `screenshot` or `screenshot@fullPage`, v2's `{"type": "screenshot", "fullPage": true}`.
SERVED_FORMATS = {
    "markdown",
    "html",
    "rawHtml",
    "links",
    "screenshot",
    "screenshot@fullPage",
    "images",
    CHANGE_TRACKING,
    *STRUCTURED_FORMATS,
}
# Firecrawl's error codes that firecrawl-py turns into their own exception classes.
_CODES = {"dns_error": "SCRAPE_DNS_RESOLUTION_ERROR", "tls_error": "SCRAPE_SSL_ERROR"}
# Firecrawl's statuses where netsift's differ: a timeout is 408 there, a failed upstream 500
# (firecrawl-py retries 502s, which would repeat a fetch netsift already reported as failed).
_STATUS = {504: 408, 502: 500, 422: 400, 413: 400, 415: 400}


class Lenient(BaseModel):
    """A Firecrawl body: its clients send fields netsift does not read, which are ignored."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)


class ScrapeOptions(StructuredOptions, ChangeTrackingOptions, Lenient):
    formats: list[str | dict[str, Any]] = ["markdown"]  # pydantic copies the default
    only_main_content: bool = Field(default=True, alias="onlyMainContent")
    max_age: int | None = Field(default=None, ge=0, alias="maxAge")
    store_in_cache: bool = Field(default=True, alias="storeInCache")
    timeout: int | None = Field(default=None, gt=0)  # milliseconds
    # Page actions, in Firecrawl's own shapes (render/actions.py reads them as they are).
    actions: list[dict[str, Any]] = Field(default_factory=list)

    def screenshot(self) -> ScreenshotMode | None:
        """The screenshot the formats ask for: v1's names, or v2's object with `fullPage`."""
        for fmt in self.formats:
            if fmt == "screenshot@fullPage":
                return "full_page"
            if isinstance(fmt, dict) and fmt.get("type") == "screenshot":
                return "full_page" if fmt.get("fullPage") else "viewport"
        return "viewport" if "screenshot" in self.formats else None

    def page_actions(self) -> list[Action]:
        try:
            return _ACTIONS.validate_python(self.actions)
        except ValidationError as exc:
            raise InvalidInput.from_validation(exc, subject="actions", lead="actions: ") from None


_ACTIONS: TypeAdapter[list[Action]] = TypeAdapter(list[Action])


SitemapMode = Literal["include", "only", "skip"]


class SitemapChoice(Lenient):
    """Whether a map or crawl reads the site's sitemaps: v2's `sitemap`, or v1's
    `ignoreSitemap` / `sitemapOnly`."""

    sitemap: SitemapMode | None = None  # v2
    ignore_sitemap: bool | None = Field(default=None, alias="ignoreSitemap")  # v1
    sitemap_only: bool | None = Field(default=None, alias="sitemapOnly")  # v1

    def sitemaps(self) -> SitemapMode:
        if self.sitemap is not None:
            return self.sitemap
        if self.sitemap_only:
            return "only"
        return "skip" if self.ignore_sitemap else "include"


def render_error(error: NetsiftError) -> JSONResponse:
    status = status_of(error)
    body: dict[str, Any] = {"success": False, "error": error.message, "details": error.code}
    if code := _CODES.get(error.code):
        body["code"] = code
    return error_reply(body, error, status=_STATUS.get(status, status))


def api_root(connection: HTTPConnection) -> str:
    """The URL this client reaches Firecrawl's API at: a host root when routing brought it
    there, else the `/firecrawl` prefix it asked under."""
    root = str(connection.base_url).rstrip("/")
    return root if ROUTED_FROM in connection.scope else root + PREFIX


def formats_of(options: ScrapeOptions, served: set[str] = SERVED_FORMATS) -> set[str]:
    names = {f if isinstance(f, str) else str(f.get("type", "")) for f in options.formats}
    unknown = sorted(names - served)
    if unknown:
        raise InvalidInput(
            f"formats {', '.join(unknown)} are not served by netsift here; "
            f"ask for {', '.join(sorted(served))}",
            details={"formats": unknown},
        )
    return names or {"markdown"}


def seconds(milliseconds: int | None) -> float | None:
    return None if milliseconds is None else milliseconds / 1000


def no_cache(options: ScrapeOptions) -> bool:
    """`maxAge: 0` asks for a fresh read; netsift's page cache is short-lived either way."""
    return options.max_age == 0


def metadata(page: Page) -> dict[str, Any]:
    meta = page.metadata
    fields: dict[str, Any] = {
        "title": page.title or meta.title,
        "description": meta.description,
        "language": meta.lang,
        "sourceURL": page.url,
        "url": page.final_url,
        "statusCode": page.status,
        "contentType": page.content_type,
        "ogTitle": meta.opengraph.get("title"),
        "ogDescription": meta.opengraph.get("description"),
        "ogImage": meta.image,
        "ogSiteName": meta.site_name,
        "favicon": meta.favicon,
        "publishedTime": meta.published,
        "author": meta.author,
        "pageType": page.page_type,
    }
    return {key: value for key, value in fields.items() if value is not None}


def kept_document(page: Page, content: ContentFormat) -> dict[str, Any]:
    """A page a crawl or batch kept, as a Firecrawl Document: its content under its format's
    name (`markdown` or `html`), its links, its source as served when kept, its metadata."""
    fields: dict[str, Any] = {
        content: page.content,
        "links": [link.url for link in page.links],
        "metadata": metadata(page),
    }
    if page.source is not None:
        fields["rawHtml"] = page.source
    return fields


async def document(ops: Operations, url: str, options: ScrapeOptions) -> dict[str, Any]:
    """One Firecrawl Document: each format asked for, read through the one fetch operation. A
    page that answers an HTTP error is a document with its `statusCode`, as Firecrawl's."""
    formats = formats_of(options)
    changes = change_options(options, formats)
    wanted: list[ContentFormat] = [fmt for fmt in ("markdown", "html") if fmt in formats]
    timeout = seconds(options.timeout)
    keep_source = "rawHtml" in formats  # the page as served, beside its extracted content
    # The browser's work (a screenshot, actions, which may change the page) happens once, in
    # the first format's visit; that visit's screenshot, images and action results answer.
    browser: dict[str, Any] = {
        "screenshot": options.screenshot(),
        "actions": options.page_actions(),
        "images": "images" in formats,
    }
    pages: dict[str, Page] = {}
    for fmt in wanted or ["markdown"]:
        request = build(FetchRequest, url=url, format=fmt)
        pages[fmt] = await ops.fetch(
            request,
            timeout=timeout,
            no_cache=no_cache(options),
            keep_source=keep_source,
            error_pages=True,
            **browser,
        )
        browser = {}
    first = next(iter(pages.values()))
    fields: dict[str, Any] = {"metadata": metadata(first)}
    if "markdown" in formats:
        fields["markdown"] = pages["markdown"].content
    if "html" in formats:
        fields["html"] = pages["html"].content
    if "rawHtml" in formats:
        fields["rawHtml"] = first.source or ""
    if "links" in formats:
        fields["links"] = [link.url for link in first.links]
    if first.screenshot is not None:
        fields["screenshot"] = first.screenshot
    if "images" in formats:
        fields["images"] = first.images
    if options.actions:
        shots = [done.screenshot for done in first.actions if done.screenshot is not None]
        fields["actions"] = {
            "screenshots": shots,
            "scrapes": [],
            "javascriptReturns": [],
            "pdfs": [],
        }
    fields.update(await structured_fields(ops, url, options, formats))
    if changes is not None:
        page = pages["markdown"]
        tracked = await change_fields(
            ops,
            ops.caller.key,
            page.url,
            page.content,
            status_code=page.status,
            taken_at=page.fetched_at,
            options=changes,
        )
        add_warning(fields, tracked.pop("warning", None))
        fields.update(tracked)
    return fields


def add_warning(fields: dict[str, Any], warning: str | None) -> None:
    """Firecrawl's one `warning` string per document: a new one joins any already there."""
    if warning:
        fields["warning"] = "; ".join(filter(None, [fields.get("warning"), warning]))
