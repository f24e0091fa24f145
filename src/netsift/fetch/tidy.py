"""Tidying extracted text: the source's indentation is not content.

Extractors keep the line breaks and indentation of the page's own HTML source inside
paragraphs ("…made their first\\n        battery-only crossings…"): harmless to a Markdown
renderer (a lazy continuation line), but tokens an agent pays for. Continuation lines lose
their leading white space; a paragraph's first line (four spaces there would make Markdown
code), list items, quotes, tables and fenced code keep theirs; a fence is followed by a blank
line. Runs of spaces between words are one space. A pipe table keeps one separator row, under
its header; plain text gets no pipe tables.
"""

from __future__ import annotations

import re

__all__ = ["plain_tables", "tidy"]

_FENCE = re.compile(r"^\s*(```|~~~)")
_BLOCK_START = re.compile(r"^\s*([-*+]\s|\d+[.)]\s|>|\||#)")
_INNER_SPACES = re.compile(r"(?<=\S) {2,}(?=\S)")  # source line breaks turned spaces
_TABLE_ROW = re.compile(r"^\|.*\|$")
_SEPARATOR_ROW = re.compile(r"^\|(\s*:?-+:?\s*\|)+$")
_CELL_BORDER = re.compile(r"(?<!\\)\|")


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
        if not fenced and "  " in line:
            line = _INNER_SPACES.sub(" ", line)
        lines.append(line)
    return "\n".join(_one_separator(lines))


def _one_separator(lines: list[str]) -> list[str]:
    """A pipe table's separator row belongs under its first row only; a later one (trafilatura
    writes one under every header row) is dropped. Fenced code is left as it is."""
    kept: list[str] = []
    fenced = False
    for line in lines:
        if _FENCE.match(line):
            fenced = not fenced
        elif (
            not fenced
            and _SEPARATOR_ROW.match(line)
            and len(kept) >= 2
            and _TABLE_ROW.match(kept[-1])
            and _TABLE_ROW.match(kept[-2])
        ):
            continue
        kept.append(line)
    return kept


def plain_tables(text: str) -> str:
    """Plain text has no pipe tables: each row of one (a run of `|` lines with a separator
    row) becomes its cells separated by tabs, the header row first, and the separator goes;
    pure. The tab keeps the cell boundaries (a reader can pair each cell with its column's
    header, as research does) and reads as a space to anything that folds white space; an
    empty cell stays an empty field, so the columns stay aligned."""
    lines = text.split("\n")
    out: list[str] = []
    start = 0
    while start < len(lines):
        end = start
        while end < len(lines) and _TABLE_ROW.match(lines[end].strip()):
            end += 1
        if end == start:
            out.append(lines[start])
            start += 1
            continue
        run = [line.strip() for line in lines[start:end]]
        if any(_SEPARATOR_ROW.match(line) for line in run):
            rows = (_cells(line) for line in run if not _SEPARATOR_ROW.match(line))
            out.extend(row for row in rows if row)
        else:
            out.extend(lines[start:end])
        start = end
    return "\n".join(out)


def _cells(row: str) -> str:
    cells = [cell.strip().replace("\\|", "|") for cell in _CELL_BORDER.split(row[1:-1])]
    return "\t".join(cells) if any(cells) else ""
