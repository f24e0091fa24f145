"""Tidying extracted text: the source's indentation is not content.

Extractors keep the line breaks and indentation of the page's own HTML source inside
paragraphs ("…made their first\\n        battery-only crossings…"): harmless to a Markdown
renderer (a lazy continuation line), but tokens an agent pays for. Continuation lines lose
their leading white space; a paragraph's first line (four spaces there would make Markdown
code), list items, quotes, tables and fenced code keep theirs; a fence is followed by a blank
line.
"""

from __future__ import annotations

import re

__all__ = ["tidy"]

_FENCE = re.compile(r"^\s*(```|~~~)")
_BLOCK_START = re.compile(r"^\s*([-*+]\s|\d+[.)]\s|>|\||#)")


def tidy(content: str) -> str:
    """`content` with source indentation removed from paragraph continuation lines; pure."""
    lines: list[str] = []
    fenced = False
    after_fence = False
    for raw in content.splitlines():
        line = raw.rstrip()
        if _FENCE.match(line):
            fenced = not fenced
            after_fence = not fenced
            lines.append(line)
            continue
        if after_fence and line:
            lines.append("")
        after_fence = False
        continuation = bool(lines) and bool(lines[-1]) and not _FENCE.match(lines[-1])
        if not fenced and continuation and line[:1].isspace() and not _BLOCK_START.match(line):
            line = line.lstrip()
        lines.append(line)
    return "\n".join(lines)
