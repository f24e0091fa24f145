"""Passages: pages cut into citable pieces and ranked against the question (BM25)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from ..search.rank import bm25_scores
from .tables import judged_text

__all__ = ["Passage", "rank_passages", "split_passages"]

_BLOCK = re.compile(r"\n\s*")  # text output puts one block per line; Markdown a blank line
_MARKDOWN_NOISE = re.compile(r"^\s*(?:[#>*+-]+|\d+\.)\s+", re.MULTILINE)


@dataclass(frozen=True)
class Passage:
    source: int  # 1-based number of the source it comes from
    text: str
    score: float = 0.0


def split_passages(text: str, *, max_chars: int = 800, min_chars: int = 40) -> list[str]:
    """Paragraph-sized pieces: blocks (lines) are joined up to `max_chars` with their line
    breaks kept — so a heading never runs into the sentence after it — long blocks are cut at
    sentence ends, and fragments too short to say anything (menus, captions) are dropped.
    Table rows and definitions are cut as their statements (tables.py)."""
    pieces: list[str] = []
    current = ""
    for block in _BLOCK.split(judged_text(text)):
        block = " ".join(_MARKDOWN_NOISE.sub("", block).split())
        if not block:
            continue
        while len(block) > max_chars:
            cut = block.rfind(". ", 0, max_chars)
            cut = cut + 1 if cut > max_chars // 3 else max_chars
            pieces.append(block[:cut].strip())
            block = block[cut:].strip()
        if current and len(current) + len(block) + 1 > max_chars:
            pieces.append(current)
            current = block
        else:
            current = f"{current}\n{block}".strip()
    if current:
        pieces.append(current)
    return [piece for piece in pieces if len(piece) >= min_chars]


def rank_passages(
    question: str,
    passages: list[Passage],
    *,
    per_source: int = 3,
    titles: Mapping[int, str] | None = None,
) -> list[Passage]:
    """Best passages first, at most `per_source` from one source, so one long page cannot
    crowd out the others (source diversity). A passage is scored with its page's title
    (`titles`, by source number): a page whose text says "the painting" throughout is about
    what its title names, which a page that keeps its heading as the title no longer
    repeats in its text."""
    titled = titles or {}
    scores = bm25_scores(question, [f"{titled.get(p.source, '')}\n{p.text}" for p in passages])
    scored = sorted(
        (Passage(p.source, p.text, s) for p, s in zip(passages, scores, strict=True)),
        key=lambda p: p.score,
        reverse=True,
    )
    taken: dict[int, int] = {}
    ranked: list[Passage] = []
    for passage in scored:
        if passage.score <= 0:
            continue
        if taken.get(passage.source, 0) >= per_source:
            continue
        taken[passage.source] = taken.get(passage.source, 0) + 1
        ranked.append(passage)
    return ranked
