"""Public-API snippets that mypy checks (click's tests/typing habit); pytest never runs them.

If a signature users rely on changes type, `scripts/check` fails here first.
"""

from __future__ import annotations

from typing import Any, assert_type

import netsift
from netsift import tools


async def async_client(settings: netsift.Settings) -> None:
    async with netsift.Client(settings) as client:
        page = await client.fetch("https://example.org/", max_length=5000, start_index=0)
        assert_type(page, netsift.Page)
        assert_type(page.next_start_index, int | None)
        assert_type(page.metadata, netsift.Metadata)
        found = await client.search("rust async runtimes", count=5, providers=["duckduckgo"])
        assert_type(found, netsift.SearchResponse)
        for attempt in found.attempts:
            assert_type(attempt, netsift.Attempt)
            assert_type(attempt.error_code, str | None)
        card = await client.meta("https://example.org/")
        assert_type(card, netsift.Metadata)
        report = await client.research("What changed in HTTP/3?", depth="quick")
        assert_type(report, netsift.ResearchReport)


def sync_conveniences(html: str) -> None:
    assert_type(netsift.fetch("https://example.org/"), netsift.Page)
    assert_type(netsift.search("query"), netsift.SearchResponse)
    assert_type(netsift.extract(html, url="https://example.org/"), netsift.Page)
    assert_type(netsift.research("question"), netsift.ResearchReport)


def errors(error: netsift.NetsiftError) -> None:
    assert_type(error.code, str)
    assert_type(error.retryable, bool)
    if isinstance(error, netsift.RateLimited):
        assert_type(error.retry_after, float | None)


async def agent_tools() -> None:
    result = await tools.dispatch("web_fetch", {"url": "https://example.org/"})
    assert isinstance(result, dict)


def tool_definitions() -> None:
    assert_type(tools.definitions(format="anthropic"), list[dict[str, Any]])


async def typos_are_type_errors(client: netsift.Client) -> None:
    """Every option is a named keyword: a misspelt one is a type error, so each ignore below
    is needed (mypy's warn_unused_ignores fails the check the day one stops being)."""
    netsift.fetch("https://example.org/", max_lenght=5)  # type: ignore[call-arg]
    netsift.search("query", provider=["brave"])  # type: ignore[call-arg]
    netsift.research("question", dpeth="quick")  # type: ignore[call-arg]
    netsift.fetch("https://example.org/", format="pdf")  # type: ignore[arg-type]
    await client.research("question", dpeth="quick")  # type: ignore[call-arg]
    await client.fetch("https://example.org/", page_type="blog")  # type: ignore[arg-type]
    client.extract("<p>hi</p>", max_length=10, start_index=5)
