"""Which links a crawl queues and in what order; pure.

Breadth-first by default: a link's priority is its depth, so the site is read level by
level (the frontier breaks ties by discovery order). With a query the crawl is best-first:
a link whose URL words and anchor text share words with the query moves ahead by up to
`RELEVANCE_LEVELS` levels, so the relevant part of a site is read before the budget runs out
(trafilatura's focused crawler and Crawl4AI's BestFirst strategy order by the same kind of
score).

Traps — calendars, faceted filters, session ids — make an endless supply of URLs. Depth
bounds them, and one more rule stops them early: URLs are grouped by *path pattern* (digit
runs and query values masked, `/calendar/2031/07?view=week` → `/calendar/0/0?view`), and
rules.py judges a pattern by the pages it yielded.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from ..dedupe import GENERATED_ID, ID_HEX_CHARS
from ..scope import canonical_url, site_host

__all__ = [
    "ANY_SEGMENTS",
    "ID_HEX_CHARS",
    "RELEVANCE_LEVELS",
    "is_tail",
    "is_view",
    "path_pattern",
    "pattern_path",
    "priority",
    "relevance",
]

# A link that names every query word jumps this many levels ahead of an unrelated one at
# the same depth: enough to read a relevant section first, not enough to dive forever.
RELEVANCE_LEVELS = 3.0
# Digit runs, and generated ids (dedupe.GENERATED_ID: `/ideas/0c51905797` and
# `/ideas/9fa2e01b7c` are one pattern, not `/ideas/0c0` and `/ideas/0fa0e0b0c`).
_DIGITS = re.compile(rf"{GENERATED_ID.pattern}|\d+")
# What stands for the resource a view (a URL with a query) shows, in its path pattern.
VIEW_OF = "*"
# What stands for the leading segments of a path named by its last one (`is_tail`).
ANY_SEGMENTS = "**"
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def path_pattern(url: str) -> str:
    """The URL's host and path with digit runs and hex ids masked, query values dropped.
    A URL with a query is a view of a resource (a page, a sort, a filter, a print copy, a
    language): its last path segment is masked too (`VIEW_OF`), so the same view of sibling
    resources is one pattern — `/guide/vat?print=1` and `/guide/petty-cash?print=1` are
    `/guide/*?print`, judged together (`is_view`)."""
    parts = urlsplit(canonical_url(url))
    keys = sorted({pair.partition("=")[0] for pair in parts.query.split("&") if pair})
    path = _DIGITS.sub("0", parts.path)
    if not keys:
        return f"{site_host(url)}{_tail(path)}"
    head, _, last = path.rpartition("/")
    if last:
        path = f"{head}/{VIEW_OF}"
    return f"{site_host(url)}{path}?{'&'.join(keys)}"


def _tail(path: str) -> str:
    """A path of two or more segments whose last one is a name (no digits: not one of a
    numbered series, whose directory tells series apart) is patterned by that name alone:
    `/about/services/contact/` → `/**/contact/`. A relative link in a site's template
    (`contact/`, not `/contact/`) resolves under every page's path, and a site that serves a
    page by its last segment answers each with the same page, for ever longer paths; what
    its copies share is their tail. On a real site, namesakes under different parents
    (`/a/reviews/`, `/b/reviews/`) are one template's pages of different things, judged
    together as a view's are; a page of such a pattern is also judged against the page at
    its tail alone (rules.resource_scope)."""
    segments = path.strip("/").split("/")
    last = segments[-1]
    if len(segments) < 2 or "0" in last:
        return path
    return f"/{ANY_SEGMENTS}/{last}{'/' if path.endswith('/') else ''}"


def is_tail(pattern: str) -> bool:
    """Whether a path pattern is of paths named by their last segment (`_tail`)."""
    return f"/{ANY_SEGMENTS}/" in pattern


def is_view(pattern: str) -> bool:
    """Whether a path pattern is one of views (its URLs have a query: `path_pattern`)."""
    return "?" in pattern


def pattern_path(pattern: str) -> str:
    """A path pattern without its query keys: `/shop?colour&size` and `/shop?size` are one
    path, so a faceted search's links to its other filters are not news (rules.other_patterns)."""
    return pattern.partition("?")[0]


def query_words(query: str | None) -> frozenset[str]:
    return frozenset(word for word in _WORD.findall((query or "").casefold()) if len(word) > 1)


def relevance(url: str, text: str, words: frozenset[str]) -> float:
    """The share of the query's words found in the link's path and anchor text (0 to 1)."""
    if not words:
        return 0.0
    seen = set(_WORD.findall(f"{urlsplit(url).path} {text}".casefold()))
    return len(words & seen) / len(words)


def priority(depth: int, score: float) -> float:
    """Lower is sooner: the depth, less the relevance bonus."""
    return depth - RELEVANCE_LEVELS * score
