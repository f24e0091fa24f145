"""The structured formats (`json`, `summary`) a crawl or batch scrape asked for: each document
of the job carries them, made by the scrape's own path (extract.py's structured_fields) the
first time the document is read, and kept so later polls, the watcher and `next` pages answer
the same fields without asking again.

netsift's crawl keeps each page's content and links; what a caller asked of Firecrawl beyond
that lives here, in the process that started the job (as /extract's answers do): with several
server workers, a poll that reaches another one gets the documents without these fields
(docs/compat-firecrawl.md).

`changeTracking` compares each document's kept Markdown with the previous scrape of its URL
by the key that started the job (change_tracking.py) when the document is first made; the
document's reading is named (job and number), so making it again (another worker, or after
eviction) answers the same comparison from the snapshot store (changes/store.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ....at_once import each
from ....changes.model import ChangeOptions
from ....errors import NetsiftError
from ....models import Page
from ...operations import Operations
from ..kept import Kept
from .change_tracking import change_fields, change_options
from .common import ScrapeOptions, add_warning
from .extract import STRUCTURED_FORMATS, StructuredOptions, check_structured, structured_fields

__all__ = ["Asked", "ask", "derived_fields", "remember"]

# Firecrawl keeps a job's results 24 hours; the options are small, so that long for as many
# jobs as a busy server starts in a day's burst.
KEPT_SECONDS = 24 * 3600.0
KEPT_JOBS = 1024
# Documents whose fields are kept: forty status pages of 50; an older one is made again.
KEPT_DOCUMENTS = 2000

_asked = Kept(size=KEPT_JOBS, seconds=KEPT_SECONDS)
_made = Kept(size=KEPT_DOCUMENTS, seconds=KEPT_SECONDS)


@dataclass(frozen=True)
class Asked:
    """What a job's documents get beyond the page: the structured formats, change tracking."""

    formats: set[str]
    changes: ChangeOptions | None = None

    def __bool__(self) -> bool:
        return bool(self.formats) or self.changes is not None


def ask(options: ScrapeOptions, formats: set[str]) -> Asked:
    """The derived formats of a job about to start, checked (a json format without a schema
    or prompt, changeTracking without markdown, are refused before the job is queued)."""
    asked = formats & STRUCTURED_FORMATS
    check_structured(options, asked)
    return Asked(asked, change_options(options, formats))


def remember(job_id: str, options: StructuredOptions, asked: Asked, *, owner: str) -> None:
    """What the job asked, for its documents, and whose history its pages join: nothing to
    keep when it asked none."""
    if asked:
        _asked.keep(job_id, {"options": options, "asked": asked, "owner": owner})


async def derived_fields(
    ops: Operations, job_id: str, pages: list[tuple[int, Page]]
) -> dict[int, dict[str, Any]]:
    """Each (result number, kept page)'s derived fields, when its job asked for some; a page
    that cannot be read again says so in Firecrawl's `warning`."""
    kept_options = _asked.get(job_id)
    if kept_options is None:
        return {}
    options: StructuredOptions = kept_options["options"]
    asked: Asked = kept_options["asked"]
    owner: str = kept_options["owner"]

    async def made(numbered: tuple[int, Page]) -> dict[str, Any]:
        n, page = numbered
        key = f"{job_id}:{n}"
        if (kept := _made.get(key)) is not None:
            return kept
        fields: dict[str, Any] = {}
        if asked.formats:  # each document made is a page read (and a model call)
            try:
                fields = await structured_fields(ops, page.url, options, asked.formats)
            except NetsiftError as error:
                fields = {"warning": f"{', '.join(sorted(asked.formats))}: {error.message}"}
        if asked.changes is not None:
            tracked = await change_fields(
                ops,
                owner,
                page.url,
                page.content,
                status_code=page.status,
                taken_at=page.fetched_at,
                options=asked.changes,
                reading=key,
            )
            add_warning(fields, tracked.pop("warning", None))
            fields.update(tracked)
        _made.keep(key, fields)
        return fields

    found = await each(pages, made)
    return {n: fields for (n, _), fields in zip(pages, found, strict=True)}
