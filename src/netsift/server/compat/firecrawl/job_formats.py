"""The structured formats (`json`, `summary`) a crawl or batch scrape asked for: each document
of the job carries them, made by the scrape's own path (extract.py's structured_fields) the
first time the document is read, and kept so later polls, the watcher and `next` pages answer
the same fields without asking again.

netsift's crawl keeps each page's content and links; what a caller asked of Firecrawl beyond
that lives here, in the process that started the job (as /extract's answers do): with several
server workers, a poll that reaches another one gets the documents without these fields
(docs/compat-firecrawl.md).
"""

from __future__ import annotations

import asyncio
from typing import Any

from ....errors import NetsiftError
from ...operations import Operations
from ..kept import Kept
from .extract import STRUCTURED_FORMATS, StructuredOptions, check_structured, structured_fields

__all__ = ["ask", "derived_fields", "remember"]

# Firecrawl keeps a job's results 24 hours; the options are small, so that long for as many
# jobs as a busy server starts in a day's burst.
KEPT_SECONDS = 24 * 3600.0
KEPT_JOBS = 1024
# Documents whose fields are kept: forty status pages of 50; an older one is made again.
KEPT_DOCUMENTS = 2000
# Documents made at once in one status answer: each is a page read (and a model call).
AT_ONCE = 4

_asked = Kept(size=KEPT_JOBS, seconds=KEPT_SECONDS)
_made = Kept(size=KEPT_DOCUMENTS, seconds=KEPT_SECONDS)


def ask(options: StructuredOptions, formats: set[str]) -> set[str]:
    """The structured formats of a job about to start, checked (a json format without a
    schema or prompt is refused before the job is queued)."""
    asked = formats & STRUCTURED_FORMATS
    check_structured(options, asked)
    return asked


def remember(job_id: str, options: StructuredOptions, asked: set[str]) -> None:
    """What the job asked, for its documents: nothing to keep when it asked none."""
    if asked:
        _asked.keep(job_id, {"options": options, "formats": asked})


async def derived_fields(
    ops: Operations, job_id: str, pages: list[tuple[int, str]]
) -> dict[int, dict[str, Any]]:
    """Each (result number, URL)'s structured fields, when its job asked for some; a page that
    cannot be read again says so in Firecrawl's `warning`."""
    asked = _asked.get(job_id)
    if asked is None:
        return {}
    options: StructuredOptions = asked["options"]
    formats: set[str] = asked["formats"]
    gate = asyncio.Semaphore(AT_ONCE)

    async def made(n: int, url: str) -> dict[str, Any]:
        key = f"{job_id}:{n}"
        if (kept := _made.get(key)) is not None:
            return kept
        async with gate:
            try:
                fields = await structured_fields(ops, url, options, formats)
            except NetsiftError as error:
                fields = {"warning": f"{', '.join(sorted(formats))}: {error.message}"}
        _made.keep(key, fields)
        return fields

    found = await asyncio.gather(*(made(n, url) for n, url in pages))
    return {n: fields for (n, _), fields in zip(pages, found, strict=True)}
