"""Link-preview metadata from HTML: OpenGraph, Twitter cards, JSON-LD, canonical, lang, dates; pure.

It runs on every page, so it reads the document once with lexbor (selectolax) and walks only
`<meta>`, `<link>` and JSON-LD scripts. Pages are hostile input: every URL is resolved against
the page (and `<base href>`) and kept only when it is http(s), every string is unescaped,
whitespace-collapsed and length-capped, and JSON-LD is bounded in count and size, so no page
can poison or blow up the card. Each field has a fallback order, documented where it is built.
"""

from __future__ import annotations

import html as html_lib
import re
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit

from selectolax.lexbor import LexborHTMLParser, LexborNode

from ..models import Metadata
from .dates import parse_date, read_date
from .jsonld import is_json_ld, read_json_ld, type_names
from .links import absolute_url, page_base

if TYPE_CHECKING:  # the byline reader brings lxml and trafilatura, which feeds do not need
    from .byline import Byline

__all__ = ["extract_metadata", "with_byline"]

MAX_DESCRIPTION = 1000
MAX_TITLE = 500
MAX_VALUE = 2000
MAX_PROPERTIES = 100

_OG_PREFIXES = ("og:", "article:", "profile:", "book:")
_ARTICLE_TYPES = frozenset(
    {
        "article",
        "newsarticle",
        "blogposting",
        "report",
        "scholarlyarticle",
        "techarticle",
        "socialmediaposting",
        "liveblogposting",
        "posting",
        "reviewnewsarticle",
        "analysisnewsarticle",
        "opinionnewsarticle",
    }
)
_META_DATES = (
    "date",
    "pubdate",
    "publishdate",
    "publish-date",
    "publish_date",
    "datepublished",
    "dc.date",
    "dc.date.issued",
    "dcterms.created",
    "dcterms.issued",
    "dcterms.date",
    "citation_publication_date",
    "citation_date",
    "sailthru.date",
    "parsely-pub-date",
    "article.published",
)
_META_AUTHORS = ("dc.creator", "citation_author", "parsely-author", "sailthru.author", "byl")
_URL_KEYS = (":url", ":secure_url", ":image", ":image:src", ":video", ":audio", ":player")
_LANG = re.compile(r"^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*$")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def extract_metadata(html: str | LexborHTMLParser, url: str | None) -> Metadata:
    """Read the preview card and raw structured data of an HTML page; pure and bounded.

    `html` may be the page already parsed, so the fetcher reads links from the same tree."""
    tree = LexborHTMLParser(html) if isinstance(html, str) else html
    page_url = absolute_url(url or "", None)
    base = page_base(tree, page_url)
    metas = _meta_values(tree)
    links = _links(tree, base)
    ld = _json_ld(tree)
    ld_items = _by_preference(ld)

    def meta(*keys: str) -> Iterator[str]:
        return (metas[key] for key in keys if key in metas)

    canonical = links.get("canonical")
    title_node = tree.css_first("title")
    h1_node = tree.css_first("h1")
    return Metadata(
        title=_first_text(
            MAX_TITLE,
            meta("og:title", "twitter:title"),
            [title_node.text() if title_node is not None else ""],
            [h1_node.text() if h1_node is not None else ""],
        ),
        description=_first_text(
            MAX_DESCRIPTION,
            meta("og:description", "twitter:description", "description"),
            _ld_strings(ld_items, "description"),
        ),
        site_name=_first_text(
            MAX_TITLE,
            meta("og:site_name"),
            (name for item in ld_items for name in _names(item.get("publisher"))),
            (_text(i.get("name")) for i in ld if "website" in _types(i)),
            meta("application-name"),
            [_host(page_url)],
        ),
        image=_first_url(
            base,
            meta("og:image", "og:image:url", "og:image:secure_url"),
            meta("twitter:image", "twitter:image:src"),
            (img for item in ld_items for img in _images(item.get("image"))),
        ),
        url=page_url or _first_url(base, meta("og:url"), [canonical or ""]),
        type=_first_text(
            MAX_TITLE, meta("og:type"), (t for i in ld_items[:1] for t in type_names(i))
        ),
        author=_first_text(
            MAX_TITLE,
            meta("author"),
            (a for a in meta("article:author") if absolute_url(a, None) is None),
            (", ".join(_unique(_names(i.get("author") or i.get("creator")))) for i in ld_items),
            meta(*_META_AUTHORS),
        ),
        published=_first_date(
            meta("article:published_time", "og:published_time"),
            _ld_strings(ld_items, "datePublished", "dateCreated", "uploadDate"),
            _times(tree),
            meta(*_META_DATES),
        ),
        lang=_lang(
            tree.css_first("html"), meta("og:locale", "http-equiv:content-language", "language")
        ),
        canonical=canonical,
        favicon=links.get("icon") or links.get("apple-touch-icon") or _favicon(page_url),
        twitter=_properties(metas, ("twitter:",), base),
        opengraph=_properties(metas, _OG_PREFIXES, base),
        json_ld=ld,
    )


def with_byline(metadata: Metadata, byline: Byline | None) -> Metadata:
    """The card with the story's byline (taken out of its text) where the markup named no
    author or date: the byline is what the page shows its readers."""
    if byline is None:
        return metadata
    author = metadata.author or (_clean(byline.author, MAX_TITLE) if byline.author else None)
    published = metadata.published or (read_date(byline.date) if byline.date else None)
    return metadata.model_copy(update={"author": author, "published": published})


# --- collecting -------------------------------------------------------------------------------


def _meta_values(tree: LexborHTMLParser) -> dict[str, str]:
    """First value of each `<meta>` key (property, name, itemprop or http-equiv), capped."""
    found: dict[str, str] = {}
    for node in tree.css("meta"):
        attrs = node.attributes
        content = attrs.get("content")
        if content is None or len(found) >= MAX_PROPERTIES:
            continue
        value = _clean(content, MAX_VALUE)
        if not value:
            continue
        keys = [attrs.get("property"), attrs.get("name"), attrs.get("itemprop")]
        if equiv := attrs.get("http-equiv"):
            keys.append(f"http-equiv:{equiv}")
        for key in keys:
            if key and (key := key.strip().lower()) not in found:
                found[key] = value
    return found


def _properties(
    metas: dict[str, str], prefixes: tuple[str, ...], base: str | None
) -> dict[str, str]:
    """The raw OpenGraph or Twitter properties, with URL-valued ones resolved or dropped."""
    found: dict[str, str] = {}
    for key, value in metas.items():
        if not key.startswith(prefixes):
            continue
        if key.endswith(_URL_KEYS):
            if (url := absolute_url(value, base)) is None:
                continue
            value = url
        found[key] = value
    return found


def _links(tree: LexborHTMLParser, base: str | None) -> dict[str, str]:
    """canonical, icon and apple-touch-icon hrefs (first usable one of each), resolved."""
    found: dict[str, str] = {}
    for node in tree.css("link[rel][href]"):
        rels = (node.attributes.get("rel") or "").lower().split()
        href = absolute_url(node.attributes.get("href") or "", base)
        if href is None:
            continue
        for rel in rels:
            key = "apple-touch-icon" if rel.startswith("apple-touch-icon") else rel
            if key in ("canonical", "icon", "apple-touch-icon"):
                found.setdefault(key, href)
    return found


def _json_ld(tree: LexborHTMLParser) -> list[dict[str, Any]]:
    """Every JSON-LD object (jsonld.py: `@graph` flattened, repaired when easy, bounded)."""
    blocks = tree.css("script[type]")
    return read_json_ld(n.text(deep=True) for n in blocks if is_json_ld(n.attributes.get("type")))


def _by_preference(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Article-like objects first: they describe this page rather than the site or a breadcrumb."""
    return sorted(items, key=lambda item: not (_types(item) & _ARTICLE_TYPES))


def _types(item: dict[str, Any]) -> set[str]:
    return {kind.lower() for kind in type_names(item)}


def _names(value: Any) -> Iterator[str]:
    """Names of a JSON-LD person or organization: a string, `{"name": …}`, or a list of those."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        name = value.get("name")
        if isinstance(name, str):
            yield name
        elif isinstance(name, list):
            yield from (n for n in name if isinstance(n, str))
    elif isinstance(value, list):
        for item in value[:MAX_PROPERTIES]:
            yield from _names(item)


def _images(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key in ("url", "contentUrl", "@id"):
            if isinstance(found := value.get(key), str):
                yield found
    elif isinstance(value, list):
        for item in value[:MAX_PROPERTIES]:
            yield from _images(item)


def _ld_strings(items: list[dict[str, Any]], *keys: str) -> Iterator[str]:
    return (value for item in items for key in keys if isinstance(value := item.get(key), str))


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _times(tree: LexborHTMLParser) -> Iterator[str]:
    for selector in ("article time[datetime]", "time[pubdate][datetime]"):
        for node in tree.css(selector)[:5]:
            yield node.attributes.get("datetime") or ""


def _unique(values: Iterable[str]) -> list[str]:
    seen: dict[str, None] = {}
    for value in values:
        if cleaned := _clean(value, MAX_TITLE):
            seen.setdefault(cleaned, None)
    return list(seen)


# --- choosing and cleaning --------------------------------------------------------------------


def _clean(value: str, limit: int) -> str:
    """Unescape entities, drop control characters, collapse whitespace, cap at a word boundary."""
    value = html_lib.unescape(value[: limit * 4])
    value = " ".join(_CONTROL.sub("", value).split())
    if len(value) <= limit:
        return value
    cut = value[: limit - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit // 2 else cut).rstrip() + "…"


def _first_text(limit: int, *sources: Iterable[str]) -> str | None:
    for source in sources:
        for value in source:
            if cleaned := _clean(value, limit):
                return cleaned
    return None


def _first_url(base: str | None, *sources: Iterable[str]) -> str | None:
    for source in sources:
        for value in source:
            if found := absolute_url(html_lib.unescape(value), base):
                return found
    return None


def _first_date(*sources: Iterable[str]) -> str | None:
    for source in sources:
        for value in source:
            if found := parse_date(value):
                return found
    return None


def _host(url: str | None) -> str:
    host = urlsplit(url).hostname if url else None
    return host.removeprefix("www.") if host else ""


def _favicon(url: str | None) -> str | None:
    return urljoin(url, "/favicon.ico") if url else None


def _lang(html_node: LexborNode | None, fallbacks: Iterable[str]) -> str | None:
    candidates = [html_node.attributes.get("lang") or ""] if html_node is not None else []
    for value in [*candidates, *fallbacks]:
        tag = value.split(",")[0].strip().replace("_", "-")
        if _LANG.match(tag):
            return tag
    return None
