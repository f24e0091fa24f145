"""What a fetched page looks like to a model: compact text, metadata once, a clear way on.

Two renderings of one Page: `reference_text`, the exact text the reference MCP fetch server
returns (so agents and prompts written for it keep working when netsift serves `fetch`), and
`lean_page`, web_fetch's result, which names the page once, on its first part, instead of
repeating the whole metadata on every continuation.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..models import Page

__all__ = ["NO_MORE_CONTENT", "ReferenceFetchArgs", "lean_page", "raw_part", "reference_text"]


class ReferenceFetchArgs(BaseModel):
    """The reference MCP fetch server's `fetch` arguments, with its bounds and defaults."""

    model_config = ConfigDict(extra="ignore", strict=True)

    url: str = Field(min_length=1, max_length=8192, description="URL to fetch")
    max_length: int = Field(
        default=5000, gt=0, lt=1_000_000, description="Maximum number of characters to return."
    )
    start_index: int = Field(
        default=0,
        ge=0,
        description="On return output starting at this character index, useful if a previous "
        "fetch was truncated and more context is required.",
    )
    raw: bool = Field(
        default=False,
        description="Get the actual HTML content of the requested page, without simplification.",
    )


REFERENCE_DESCRIPTION = (
    "Fetches a URL from the internet and extracts its main content as markdown, through "
    "netsift's SSRF guard and robots.txt. Long pages come in parts: call again with the "
    "start_index the text names."
)

NO_MORE_CONTENT = "<error>No more content available.</error>"
# The page facts worth a model's tokens on the first part; the rest (Open Graph, Twitter card,
# JSON-LD, redirects, hashes) is for programs, which ask `/v1/fetch` or `Client.fetch`.
_FIRST_PART_FIELDS = ("title", "final_url", "page_type", "content_type", "total_length")
_META_FIELDS = ("site_name", "author", "published", "description", "lang")


def raw_part(page: Page, *, start_index: int, max_length: int) -> Page:
    """`page` with its source (Page.source, the body as served) as the content, sliced like
    any content; a page without a text source (a PDF) keeps its extracted text."""
    from ..fetch.fetcher import paginate

    source = page.source if page.source is not None else page.content
    part, next_start = paginate(source, start_index=start_index, max_length=max_length)
    return page.model_copy(
        update={
            "content": part,
            "format": "html",
            "start_index": start_index,
            "next_start_index": next_start,
            "truncated": next_start is not None,
            "total_length": len(source),
        }
    )


def reference_text(url: str, page: Page | None, *, raw: bool = False) -> str:
    """The reference server's text for one part of a page; `page` None is past the end."""
    if page is None or not page.content:
        content = NO_MORE_CONTENT
    else:
        content = page.content
        if page.next_start_index is not None:
            content += (
                "\n\n<error>Content truncated. Call the fetch tool with a start_index of "
                f"{page.next_start_index} to get more content.</error>"
            )
    prefix = ""
    if raw and page is not None:
        prefix = (
            f"Content type {page.content_type} cannot be simplified to markdown, "
            "but here is the raw content:\n"
        )
    return f"{prefix}Contents of {url}:\n{content}"


def lean_page(page: Page) -> dict[str, Any]:
    """web_fetch's result: the content and where to continue; the page's facts on part one."""
    result: dict[str, Any] = {"url": page.url, "content": page.content}
    if page.start_index == 0:
        result.update({name: getattr(page, name) for name in _FIRST_PART_FIELDS})
        meta = page.metadata
        facts = {name: getattr(meta, name) for name in _META_FIELDS if getattr(meta, name)}
        if facts:
            result["metadata"] = facts
    else:
        result["start_index"] = page.start_index
    if page.next_start_index is not None:
        result["next_start_index"] = page.next_start_index
        result["hint"] = (
            f"Content truncated at {page.next_start_index} of {page.total_length} characters. "
            f"Call web_fetch with start_index={page.next_start_index} to read more."
        )
    return {key: value for key, value in result.items() if value is not None}
