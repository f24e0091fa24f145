"""The pages every simulator "finds": a small corpus rebuilt for each query.

Each result mentions the query's words in its title and snippet, so netsift's off-topic check
passes for honest answers and fails for a decoy (results built for `DECOY_QUERY`). Providers
see the corpus in different orders (`ROTATION`), so merged searches overlap partly; brave adds
a near-duplicate mirror of the first page and spells one URL with `www.`, a trailing slash and
a tracking parameter, so merging has canonical URLs and near-duplicates to fold.

With a `link_port` (the offline tour), results link to pages a local server really serves
(`tests/offline_web/linked.py`): a question about the research corpus (the James Webb pages of
`tests/integration/research/web.py`) finds those pages, ranked by shared words; anything else
finds the same generic corpus as plain-http `<label>.corpus.test` pages on that port.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from urllib.parse import urlsplit

from tests.integration.research.web import DOCS as TOPIC_DOCS
from tests.integration.research.web import rank_docs

__all__ = [
    "LINKED_DOMAIN",
    "LINKED_HOSTS",
    "TOPIC_HOSTS",
    "Doc",
    "documents",
    "linked_host",
    "slug",
]

# (url template, title template, snippet template, published date or None)
_PAGES = (
    (
        "https://docs.example.org/{slug}",
        "{Q}: the official documentation",
        "Reference documentation for {q}: installation, configuration and every option.",
        "2026-07-02",
    ),
    (
        "https://blog.example.dev/posts/{slug}-in-practice",
        "{Q} in practice, lessons from production",
        "What two years of running {q} taught us about pitfalls, tuning and monitoring.",
        "2026-08-19",
    ),
    (
        "https://news.example.com/2026/08/{slug}",
        "What is new in {q} this year",
        "A roundup of the releases and announcements around {q} since January.",
        "2026-08-01",
    ),
    (
        "https://forum.example.net/t/{slug}/4242",
        "Question: how do you approach {q}?",
        "Community thread where people compare approaches to {q} and share numbers.",
        None,
    ),
    (
        "https://code.example.com/topics/{slug}",
        "{q} projects, sorted by stars",
        "Open-source projects tagged {q}, with their licences and latest releases.",
        "2026-06-11",
    ),
    (
        "https://papers.example.edu/{slug}-survey",
        "A survey of {q}",
        "We review the literature on {q} and classify the approaches by their trade-offs.",
        "2025-11-30",
    ),
    (
        "https://video.example.tv/watch/{digest}",
        "{Q} explained in ten minutes",
        "A short video introduction to {q} for people who have never used it.",
        "2026-03-14",
    ),
    (
        "https://wiki.example.org/wiki/{Slug}",
        "{Q}: encyclopedia article",
        "{Q}: history, design, notable implementations and reception.",
        None,
    ),
    (
        "https://shop.example.store/books/{slug}",
        "Learning {q}, second edition",
        "A book that teaches {q} from first principles with exercises.",
        "2024-09-01",
    ),
    (
        "https://qa.example.io/questions/{digest}",
        "Why does {q} behave this way?",
        "An answered question about a surprising corner of {q}, with a minimal example.",
        "2026-05-05",
    ),
)

ROTATION = {
    "duckduckgo": 0,
    "brave": 1,
    "searxng": 2,
    "tavily": 3,
    "serpapi": 4,
    "google": 5,
    "bing": 6,
    "wikipedia": 7,
    "openalex": 5,
    "crossref": 6,
    "github": 4,
    "arxiv": 3,
}


@dataclass(frozen=True)
class Doc:
    url: str
    title: str
    snippet: str
    published: str | None
    digest: str

    @property
    def host(self) -> str:
        return urlsplit(self.url).hostname or ""

    @property
    def display(self) -> str:
        parts = urlsplit(self.url)
        return f"{parts.hostname}{parts.path}"


def slug(query: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", query.casefold()).strip("-") or "query"


def _digest(query: str, index: int) -> str:
    return hashlib.sha256(f"{query}|{index}".encode()).hexdigest()[:12]


def documents(query: str, count: int, *, provider: str, link_port: int | None = None) -> list[Doc]:
    """Up to `count` pages about `query`, in this provider's order (linked: see the module)."""
    if link_port is not None:
        return _linked_documents(query, count, provider=provider, port=link_port)
    q = " ".join(query.split())
    fields = {"q": q, "Q": q[:1].upper() + q[1:], "slug": slug(q)}
    fields["Slug"] = fields["Q"].replace(" ", "_")
    start = ROTATION.get(provider, 0)
    order = [(start + i) % len(_PAGES) for i in range(len(_PAGES))]
    docs = []
    for index in order:
        url, title, snippet, published = _PAGES[index]
        digest = _digest(q, index)
        docs.append(
            Doc(
                url=url.format(digest=digest, **fields),
                title=title.format(**fields),
                snippet=snippet.format(**fields),
                published=published,
                digest=digest,
            )
        )
    if provider == "brave":
        # The first page of DuckDuckGo's list, spelled differently, then a near-copy of it
        # on a mirror site, then brave's own order.
        first = Doc(
            url=_respelled(_PAGES[0][0].format(digest="", **fields)),
            title=_PAGES[0][1].format(**fields),
            snippet=_PAGES[0][2].format(**fields),
            published=_PAGES[0][3],
            digest=_digest(q, 0),
        )
        mirror = Doc(
            url=f"https://mirror.example.net/{first.digest}",
            title=first.title + "!",
            snippet=first.snippet.rstrip("."),
            published=first.published,
            digest=_digest(q, 99),
        )
        rest = [doc for doc in docs if doc.digest != first.digest]
        docs = [first, mirror, *rest]
    return docs[:count]


def _respelled(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://www.{parts.hostname}{parts.path}/?utm_source=brave"


LINKED_DOMAIN = "corpus.test"


def linked_host(host: str) -> str:
    """`docs.example.org` → `docs.corpus.test` (a `www.` in front is kept)."""
    www = "www." if host.startswith("www.") else ""
    return f"{www}{host.removeprefix('www.').split('.')[0]}.{LINKED_DOMAIN}"


_ORIGINAL_HOSTS = [
    urlsplit(template.format(slug="x", digest="x", Slug="x")).hostname or ""
    for template, *_ in _PAGES
]
LINKED_HOSTS: tuple[str, ...] = tuple(
    dict.fromkeys(
        linked_host(host)
        for host in [*_ORIGINAL_HOSTS, "www." + _ORIGINAL_HOSTS[0], "mirror.example.net"]
    )
)
TOPIC_HOSTS: tuple[str, ...] = tuple(dict.fromkeys(doc.host for doc in TOPIC_DOCS))


def _linked_documents(query: str, count: int, *, provider: str, port: int) -> list[Doc]:
    topical = rank_docs(query)
    if topical:
        return [
            Doc(
                url=f"http://{doc.host}:{port}{doc.path}",
                title=doc.title,
                snippet=doc.paragraphs[0][:160],
                published=None,
                digest=_digest(doc.host + doc.path, 0),
            )
            for doc in topical[:count]
        ]
    linked = []
    for doc in documents(query, count, provider=provider):
        parts = urlsplit(doc.url)
        query_part = f"?{parts.query}" if parts.query else ""
        url = f"http://{linked_host(doc.host)}:{port}{parts.path}{query_part}"
        linked.append(Doc(url, doc.title, doc.snippet, doc.published, doc.digest))
    return linked
