"""DuckDuckGo: the no-JavaScript HTML page, with the lite page as fallback; no key.

There is no official web-search API; netsift reads the pages DuckDuckGo serves to browsers
without JavaScript, sending what the site's own form sends (as SearXNG and ddgs do):
https://html.duckduckgo.com/html/ and https://lite.duckduckgo.com/lite/. Contract and recorded
pages: shared/providers/README.md#duckduckgo, shared/providers/duckduckgo.json and
duckduckgo-html.html, duckduckgo-html-uddg.html, duckduckgo-html-noresults.html,
duckduckgo-lite.html, duckduckgo-anomaly.html.

- POST form `q`, `b=""`, `kl` (region, e.g. `us-en`), `df` (d/w/m/y), `kp` (safe search:
  1 strict, -2 off; moderate is the default and not sent).
- Result links are direct or wrapped as `//duckduckgo.com/l/?uddg=<target>&rut=...`; ads
  (`result--ad`, `tr.result-sponsored`, links back to duckduckgo.com) are dropped.
- A block is the anomaly page ("Unfortunately, bots use DuckDuckGo too."), usually HTTP 202
  and sometimes 200: that is `rate_limited` with `details.captcha` (the breaker suspends for an
  hour), never "no results". 403/418/429 are rate limits too. The real empty page has
  `div.result--no-result` (html) or "No more results." (lite) and is an honest `[]`.
- Page 2 needs the `vqd` token from page 1's form, which one request cannot know; asking for
  it is refused rather than sent without it (that is a bot signal).
"""

from __future__ import annotations

from typing import Any

import httpx
import lxml.html
from lxml import etree
from lxml.etree import ParserError

from ...errors import InvalidInput, NetsiftError, ProviderUnavailable, RateLimited
from ...models import Query, SearchResult
from ..provider import About, Provider
from .dates import iso_date
from .region import parse_region
from .status import raise_for_status, retry_after_from

__all__ = ["DuckDuckGo", "is_anomaly_page", "unwrap_link"]

LITE_BASE_URL = "https://lite.duckduckgo.com"
BROWSER_HEADERS = {
    "User-Agent": "Mozilla/5.0 (X11; Linux x86_64; rv:131.0) Gecko/20100101 Firefox/131.0",
    "Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
    "Accept-Language": "en-US,en;q=0.5",
}
_ANOMALY_MARKERS = ("anomaly-modal", "challenge-form", "anomaly.js", "bots use DuckDuckGo too")
_SAFESEARCH = {"strict": "1", "off": "-2"}
_BLOCK_STATUSES = (403, 418, 429)


class DuckDuckGo(Provider):
    name = "duckduckgo"
    about = About(
        website="https://duckduckgo.com",
        docs="https://duckduckgo.com/duckduckgo-help-pages/settings/params",
        base_url="https://html.duckduckgo.com",
        requires_key=False,
        results="HTML",
        kind="web",
        rate_limit="1/second",
        max_count=10,
    )

    def build_request(self, query: Query) -> httpx.Request:
        _check_first_page(query)
        return _form_request(self.base_url, "/html/", _form(query, html=True))

    def fallback_request(self, query: Query, error: NetsiftError) -> httpx.Request | None:
        """The lite page: simpler markup, served by other machines than the html page."""
        if query.page > 1 or isinstance(error, InvalidInput):
            return None
        base = self.settings.base_url or LITE_BASE_URL
        return _form_request(base, "/lite/", _form(query, html=False))

    def parse_response(self, response: httpx.Response, query: Query) -> list[SearchResult]:
        status = response.status_code
        if status == 202 or is_anomaly_page(response.text):
            raise RateLimited(
                "duckduckgo showed its bot challenge (anomaly page) instead of results",
                details={"captcha": True, "status": status},
            )
        if status in _BLOCK_STATUSES:
            raise RateLimited(
                f"duckduckgo refused the search with HTTP {status} (a block, not an empty page)",
                retry_after=retry_after_from(response),
                details={"status": status},
            )
        if status != 200:
            raise_for_status(response, self.name)
            raise ProviderUnavailable(
                f"duckduckgo answered HTTP {status}", details={"status": status}
            )
        try:
            doc = lxml.html.document_fromstring(response.content)
        except (ParserError, ValueError) as exc:
            raise ProviderUnavailable("duckduckgo sent an empty or unreadable page") from exc
        if doc.xpath("//div[@id='links']"):
            return _parse_html(doc)
        if doc.xpath(f"//a[{_cls('result-link')}] | //td[{_cls('result-snippet')}]"):
            return _parse_lite(doc)
        raise ProviderUnavailable("duckduckgo sent a page without a results list")


def is_anomaly_page(text: str) -> bool:
    """True for DuckDuckGo's bot challenge, whatever the status it came with."""
    return any(marker in text for marker in _ANOMALY_MARKERS)


def unwrap_link(href: str | None) -> str | None:
    """The target of a result link: direct, or decoded from `//duckduckgo.com/l/?uddg=`.

    None for links that stay on duckduckgo.com (ads go through `y.js`).
    """
    if not href:
        return None
    if href.startswith("//"):
        href = f"https:{href}"
    try:
        url = httpx.URL(href)
    except httpx.InvalidURL:
        return None
    if _is_ddg(url.host) and url.path == "/l/":
        target = url.params.get("uddg")
        return unwrap_link(target) if target else None
    if _is_ddg(url.host) or url.scheme not in ("http", "https"):
        return None
    return href


def _check_first_page(query: Query) -> None:
    if query.page > 1:
        raise InvalidInput(
            "duckduckgo serves later pages only to the browser that saw page 1 (its vqd token);"
            " ask for page 1 with a larger count, or use another provider"
        )


def _form(query: Query, *, html: bool) -> dict[str, str]:
    form = {"q": query.text}
    if html:
        form["b"] = ""
    region = parse_region(query.region)
    kl = region.kl or (f"{region.country}-{region.language}" if region.country else None)
    if kl:
        form["kl"] = "uk-en" if kl == "gb-en" else kl
    if query.time_range:
        form["df"] = query.time_range
    if query.safesearch in _SAFESEARCH:
        form["kp"] = _SAFESEARCH[query.safesearch]
    return form


def _form_request(base: str, path: str, form: dict[str, str]) -> httpx.Request:
    headers = {**BROWSER_HEADERS, "Referer": f"{base}/"}
    return httpx.Request("POST", f"{base}{path}", data=form, headers=headers)


def _parse_html(doc: Any) -> list[SearchResult]:
    results = []
    for block in _HTML_BLOCKS(doc):
        classes = set((block.get("class") or "").split())
        if classes & {"result--ad", "result--no-result"}:
            continue
        links = _HTML_LINK(block)
        url = unwrap_link(links[0].get("href")) if links else None
        if not url:
            continue
        snippet = _HTML_SNIPPET(block)
        stamp = _HTML_STAMP(block)
        icon = _HTML_ICON(block)
        results.append(
            SearchResult(
                title=_text(links[0]),
                url=url,
                snippet=_text(snippet[0]) if snippet else "",
                source="duckduckgo",
                published=iso_date(_text(stamp[0])) if stamp else None,
                favicon=f"https:{icon[0]}" if icon and icon[0].startswith("//") else None,
            )
        )
    if results or _HTML_NO_RESULTS(doc):
        return results
    raise ProviderUnavailable(
        "duckduckgo sent a results page with neither results nor 'No results'"
    )


def _parse_lite(doc: Any) -> list[SearchResult]:
    """Lite: the last table, four rows per result (link, snippet, url + date, spacer)."""
    found: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    for row in doc.xpath("//table")[-1].iter("tr"):
        if "result-sponsored" in (row.get("class") or "").split():
            current = None
            continue
        links = row.xpath(f".//a[{_cls('result-link')}]")
        if links:
            url = unwrap_link(links[0].get("href"))
            current = {"title": _text(links[0]), "url": url} if url else None
            if current:
                found.append(current)
            continue
        if current is None:
            continue
        snippet = row.xpath(f".//td[{_cls('result-snippet')}]")
        if snippet and "snippet" not in current:
            current["snippet"] = _text(snippet[0])
        stamp = row.xpath(f".//span[{_cls('timestamp')}]")
        if stamp:
            current["published"] = iso_date(_text(stamp[0]))
    if not found and "No more results." not in doc.text_content():
        raise ProviderUnavailable("duckduckgo lite sent a page with neither results nor an end")
    return [SearchResult(source="duckduckgo", **item) for item in found]


def _cls(name: str) -> str:
    """XPath test for one class token (not a substring of another class)."""
    return f"contains(concat(' ', normalize-space(@class), ' '), ' {name} ')"


# Compiled once: evaluating XPath text re-parses it on every call.
_HTML_BLOCKS = etree.XPath(f"//div[@id='links']/div[{_cls('result')}]")
_HTML_LINK = etree.XPath(f".//a[{_cls('result__a')}]")
_HTML_SNIPPET = etree.XPath(f".//a[{_cls('result__snippet')}]")
_HTML_STAMP = etree.XPath(f".//div[{_cls('result__extras__url')}]/span[not(@class)]")
_HTML_ICON = etree.XPath(f".//img[{_cls('result__icon__img')}]/@src")
_HTML_NO_RESULTS = etree.XPath(f"//div[{_cls('result--no-result')} or {_cls('no-results')}]")


def _text(element: Any) -> str:
    return " ".join(str(element.text_content()).split())


def _is_ddg(host: str) -> bool:
    return host == "duckduckgo.com" or host.endswith(".duckduckgo.com")
