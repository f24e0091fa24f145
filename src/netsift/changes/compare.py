"""The rules of a comparison: whether two readings of a page differ, their unified diff as
`git diff` prints it and as parse-diff reads it, and a schema's fields compared.

Whether a page changed is Firecrawl's rule (its `diff.ts` transformer), so a monitor moved
from Firecrawl sees the same statuses: whitespace and Markdown iframes (`[iframe](…)`) are
ignored, and the characters left are compared as a multiset (sorted), so text that only
moves on the page (a shuffled list, a rotating teaser) reads `same`.
"""

from __future__ import annotations

import difflib
import json
import re
from typing import Any

from .model import DiffChange, DiffChunk, DiffFile, FieldChange, TextDiff

__all__ = ["CONTEXT_LINES", "differs", "field_changes", "unified_diff"]

CONTEXT_LINES = 3  # lines around each change: git diff's default, which Firecrawl's diff uses
_SPACE = re.compile(r"\s+")
_IFRAME = re.compile(r"\[iframe\]\(.+?\)")
_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@")


def _fingerprint(markdown: str) -> str:
    """Firecrawl's transformer: no whitespace, no iframes, the characters sorted (in its
    order: whitespace first, so an iframe link split over lines is removed too)."""
    return "".join(sorted(_IFRAME.sub("", _SPACE.sub("", markdown))))


def differs(previous: str, current: str) -> bool:
    return _fingerprint(previous) != _fingerprint(current)


def unified_diff(previous: str, current: str) -> TextDiff:
    """The hunks from `previous` to `current` (each read as ending with a newline, so no
    `\\ No newline at end of file` marker), and their parsed form."""
    lines = difflib.unified_diff(
        previous.splitlines(), current.splitlines(), n=CONTEXT_LINES, lineterm=""
    )
    hunks = [line for line in lines if not line.startswith(("--- ", "+++ "))]
    text = "".join(line + "\n" for line in hunks)
    return TextDiff(text=text, files=_parsed(hunks))


def _parsed(hunks: list[str]) -> list[DiffFile]:
    """parse-diff's reading of the hunks: one file (without names: the diff has no file
    headers), its chunks, and each line with its line numbers."""
    chunks: list[DiffChunk] = []
    old = new = 0
    for line in hunks:
        header = _HUNK.match(line)
        if header is not None:
            old, new = int(header[1]), int(header[2])
            chunks.append(DiffChunk(content=line, changes=[]))
            continue
        changes = chunks[-1].changes
        if line.startswith("+"):
            changes.append(DiffChange(type="add", content=line, ln=new))
            new += 1
        elif line.startswith("-"):
            changes.append(DiffChange(type="del", content=line, ln=old))
            old += 1
        else:
            changes.append(DiffChange(type="normal", content=line, ln1=old, ln2=new))
            old, new = old + 1, new + 1
    return [DiffFile(from_=None, to=None, chunks=chunks)] if chunks else []


def field_changes(previous: dict[str, Any], current: dict[str, Any]) -> dict[str, FieldChange]:
    """The fields whose values differ (compared as JSON, Firecrawl's rule), with both values;
    a field one side lacks reads as null there."""
    changed: dict[str, FieldChange] = {}
    for name in dict.fromkeys([*previous, *current]):
        before, after = previous.get(name), current.get(name)
        if json.dumps(before, sort_keys=True) != json.dumps(after, sort_keys=True):
            changed[name] = FieldChange(previous=before, current=after)
    return changed
