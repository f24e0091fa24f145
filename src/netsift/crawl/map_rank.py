"""A map's URLs ranked by a query: BM25 over the words of each URL's path and its title.

Pure, so it runs in a compute worker: scoring 100,000 URLs takes seconds of CPU that the event
loop must not spend. The URLs and titles cross as two newline-joined strings (a URL the guard
accepted holds no newline; a title's are made spaces), and only the top `limit` come back.
"""

from __future__ import annotations

import heapq
import re
from urllib.parse import unquote, urlsplit

from ..search.rank import bm25_scores

__all__ = ["joined", "ranked", "words"]

_PATH_WORDS = re.compile(r"[/\-_.?=&+%~:;,]+")


def words(url: str, title: str | None) -> str:
    """What a URL is ranked by: its title and the words of its path and query."""
    parts = urlsplit(url)
    path = unquote(f"{parts.path} {parts.query}")
    return f"{title or ''} {_PATH_WORDS.sub(' ', path)}"


def joined(urls: list[str], titles: list[str | None]) -> tuple[str, str]:
    """`urls` and `titles` as the two strings `ranked` takes."""
    return "\n".join(urls), "\n".join(" ".join((t or "").split()) for t in titles)


def ranked(query: str, urls: str, titles: str, limit: int) -> list[tuple[int, float]]:
    """The `limit` best (index, score) pairs, best first; ties keep their order."""
    docs = [words(u, t) for u, t in zip(urls.split("\n"), titles.split("\n"), strict=True)]
    scores = bm25_scores(query, docs)
    best = heapq.nlargest(limit, range(len(scores)), key=scores.__getitem__)
    return [(index, round(scores[index], 4)) for index in best]
