"""One comparison: a page's reading against the caller's previous one of the same URL (and
tag), then this reading recorded as the next one's previous.

A page that answers 404 is `removed`; else `new` without a previous reading, `same` or
`changed` by compare.py's rule. Only a changed page gets the modes asked for: its unified
diff (`git-diff`), and the schema's fields read from both readings and compared (`json`),
which needs the model; without one the answer says so rather than guess a difference.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime

from ..errors import NetsiftError
from ..structured.model import ExtractDataResult
from .compare import differs, field_changes, unified_diff
from .model import ChangeOptions, ChangeStatus, PageChange
from .store import MAX_MARKDOWN_CHARS, SnapshotStore

__all__ = ["NO_MODEL", "REMOVED_STATUS", "ReadFields", "track"]

REMOVED_STATUS = 404  # Firecrawl's rule: only a page that is gone, not one that failed
NO_MODEL = (
    "changeTracking json mode: comparing a schema's fields needs a language model "
    "(NETSIFT_LLM_MODEL), and none is configured on this host; the fields were not compared"
)
# Reads a schema's fields (and/or a prompt's) from a text taken from a URL; None: no model.
ReadFields = Callable[[str, str, ChangeOptions], Awaitable[ExtractDataResult]]


async def track(
    store: SnapshotStore,
    read_fields: ReadFields | None,
    *,
    owner: str,
    url: str,
    markdown: str,
    status_code: int,
    taken_at: datetime,
    options: ChangeOptions,
    reading: str | None = None,
) -> PageChange:
    previous = await store.swap(owner, url, options.tag, markdown, taken_at, reading)
    current = markdown[:MAX_MARKDOWN_CHARS]  # compared as it is kept
    notes = []
    if len(markdown) > MAX_MARKDOWN_CHARS:
        notes.append(
            f"changeTracking compared the page's first {MAX_MARKDOWN_CHARS:,} characters "
            "of Markdown, as much as netsift keeps of a reading"
        )
    status: ChangeStatus
    if status_code == REMOVED_STATUS:
        status = "removed"
    elif previous is None:
        status = "new"
    else:
        status = "changed" if differs(previous.markdown, current) else "same"
    change = PageChange(
        status=status, previous_at=previous.taken_at if previous else None, notes=notes
    )
    if previous is None or status != "changed":
        return change
    if "git-diff" in options.modes:
        change.diff = unified_diff(previous.markdown, current)
    if "json" in options.modes:
        if read_fields is None:
            change.notes.append(NO_MODEL)
        else:
            try:
                before = await read_fields(url, previous.markdown, options)
                after = await read_fields(url, current, options)
            except NetsiftError as error:  # the status and diff stand without the fields
                change.notes.append(f"changeTracking json mode failed: {error.message}")
            else:
                change.fields = field_changes(before.data, after.data)
    return change
