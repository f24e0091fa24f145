"""What a reference needs of a source, made from the page netsift read (pure).

The canonical URL is the page's own `<link rel=canonical>` (when it is an http(s) URL) or the
address it was read at, normalised as search results are (search/rank.py's `canonical_url`:
no tracking parameters, no fragment, lower-case host), so two citations of one page agree.
"""

from __future__ import annotations

import re
from datetime import datetime
from urllib.parse import urlsplit

from pydantic import BaseModel, Field

from ..models import Page
from ..search.rank import canonical_url

__all__ = ["CitationSource", "authors_of", "source_of"]

_NAME_SEPARATORS = re.compile(r"\s*(?:;|\band\b|&|\|)\s*|\s*,\s*(?=\S+\s+\S)")


class CitationSource(BaseModel):
    """One cited source: where, what, who, when, what it said then, and its archived copy."""

    n: int  # its number in the bundle (a report's [n] when it came from one)
    url: str  # as given
    canonical_url: str
    title: str | None = None
    authors: list[str] = Field(default_factory=list)
    site: str | None = None
    published: str | None = None  # as the page states it (ISO when it gave one)
    accessed: datetime | None = None  # when netsift read it (None: it could not be read)
    content_sha256: str | None = None  # of the text netsift read, to show it has not changed
    passages: list[str] = Field(default_factory=list)  # the quoted passages
    archived_url: str | None = None  # a Wayback Machine copy
    archived_at: datetime | None = None
    error: dict[str, object] | None = None  # why the page could not be read (its error object)


def authors_of(author: str | None) -> list[str]:
    """A page's author line as names: "Ada Lovelace and Alan Turing" → two; "Lovelace, Ada"
    (a family name first) stays one."""
    if not author:
        return []
    names = [name.strip(" .") for name in _NAME_SEPARATORS.split(author)]
    return list(dict.fromkeys(name for name in names if name))


def source_of(n: int, url: str, page: Page, passages: list[str]) -> CitationSource:
    """The citation facts of `page` (read from `url`)."""
    meta = page.metadata
    canonical = meta.canonical if meta.canonical and _is_http(meta.canonical) else page.final_url
    return CitationSource(
        n=n,
        url=url,
        canonical_url=canonical_url(canonical),
        title=page.title or meta.title,
        authors=authors_of(meta.author),
        site=meta.site_name or urlsplit(page.final_url).hostname,
        published=meta.published,
        accessed=page.fetched_at,
        content_sha256=page.content_sha256 or None,
        passages=passages,
    )


def _is_http(url: str) -> bool:
    return urlsplit(url).scheme in ("http", "https")
