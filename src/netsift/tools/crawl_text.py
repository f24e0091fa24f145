"""web_crawl's result for a model: each page's facts and the start of its Markdown, and what
was left out, counted by reason (the full pages stay with the job, paged over HTTP)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from ..models import CrawlReport

__all__ = ["lean_crawl"]


def lean_crawl(report: CrawlReport, *, max_length: int) -> dict[str, Any]:
    pages = []
    for page in report.pages:
        item: dict[str, Any] = {
            "url": page.final_url,
            "title": page.title,
            "page_type": page.page_type,
            "content": page.content[:max_length],
        }
        if len(page.content) > max_length:
            item["truncated"] = True
        pages.append({key: value for key, value in item.items() if value is not None})
    return {
        "url": report.url,
        "job_id": report.job_id,
        "pages": pages,
        "skipped": dict(Counter(skip.code for skip in report.skipped)),
        "stopped_because": report.stopped_because,
        "unread": report.unread,
    }
