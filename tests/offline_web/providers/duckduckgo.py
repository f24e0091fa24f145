"""DuckDuckGo no-JS simulator: `/html/` and `/lite/`, POST form or GET `?q=`.

Pages are the recorded ones (providers/data/duckduckgo-*.html) with the organic result
blocks rebuilt for the query: ads, the zero-click box and the next-page form stay as recorded.
GET pages wrap every link in `//duckduckgo.com/l/?uddg=…&rut=…`, POST pages link directly, as
observed. A page-2 request without the page-1 `vqd` gets the anomaly page, as it would live.
Endpoint modes (`knob.set(mode, endpoint="html"|"lite")`) let html fail while lite answers.
"""

from __future__ import annotations

import hashlib
import html
import re
from functools import cache
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import Response

from .corpus import Doc, documents
from .sim import (
    COMMON_MODES,
    DECOY_QUERY,
    PROVIDERS_DIR,
    Knob,
    Seen,
    example,
    hang,
    highlight,
    int_param,
    truncated,
)

NAME = "duckduckgo"
HOSTS = ("duckduckgo.test", "html.duckduckgo.test", "lite.duckduckgo.test")
MODES = COMMON_MODES | {"anomaly", "anomaly200"}
RECORDED_QUERY = "rust async runtime"
HTML_TYPE = {"Content-Type": "text/html; charset=UTF-8", "X-Robots-Tag": "noindex"}
PAGE_SIZE = 10
_SPACER = "<tr>\n              <td>&nbsp;</td>\n              <td>&nbsp;</td>\n            </tr>"


@cache
def _html_parts() -> tuple[str, str, list[str], str]:
    """The html page split into: before the results, the ad block, organic blocks, after."""
    page = (PROVIDERS_DIR / "duckduckgo-html.html").read_text()
    start = page.index('<div class="result results_links')
    start = page.rindex("\n", 0, start) + 1
    nav = page.index('<div class="nav-link">')
    nav = page.rindex("\n", 0, nav) + 1
    blocks = re.split(r"(?m)^(?=\s*<div class=\"result results_links)", page[start:nav])
    blocks = [block for block in blocks if block.strip()]
    ads = "".join(block for block in blocks if "result--ad" in block)
    organic = [block for block in blocks if "result--ad" not in block]
    return page[:start], ads, organic, page[nav:]


@cache
def _lite_parts() -> tuple[str, str, list[str], str]:
    """The lite page split into: before the result rows, the ad rows, organic rows, after."""
    page = (PROVIDERS_DIR / "duckduckgo-lite.html").read_text()
    table = page.rindex('<table border="0">')
    first = page.index("<tr", table)
    first = page.rindex("\n", 0, first) + 1
    end = page.index("<tr>\n        <td colspan=2>", first)
    end = page.rindex("\n", 0, end) + 1
    groups = [g + _SPACER for g in page[first:end].split(_SPACER) if "<tr" in g]
    ads = "".join(group for group in groups if "result-sponsored" in group)
    organic = [group for group in groups if "result-sponsored" not in group]
    return page[:first], ads, organic, "\n" + page[end:]


def _href(url: str, *, wrapped: bool) -> str:
    if not wrapped:
        return html.escape(url)
    rut = hashlib.sha256(url.encode()).hexdigest()
    return f"//duckduckgo.com/l/?uddg={quote(url, safe='')}&amp;rut={rut}"


def _swap(block: str, pattern: str, new: str) -> str:
    """Replace the first group of `pattern` in `block` with `new` (everywhere it occurs)."""
    match = re.search(pattern, block, re.DOTALL)
    assert match, f"recorded DuckDuckGo markup changed: {pattern!r} not found"
    old = match.group(1)
    return block.replace(f">{old}<", f">{new}<").replace(f'"{old}"', f'"{new}"')


def _html_block(template: str, doc: Doc, query: str, *, wrapped: bool) -> str:
    url = re.search(r'class="result__a" href="([^"]+)"', template)
    assert url
    block = template.replace(f'"{url.group(1)}"', f'"{_href(doc.url, wrapped=wrapped)}"')
    block = _swap(block, r'class="result__a" href="[^"]+">([^<]+)</a>', html.escape(doc.title))
    snippet = highlight(html.escape(doc.snippet), query, "<b>", "</b>")
    block = _swap(block, r'class="result__snippet" href="[^"]+">(.*?)</a>', snippet)
    display = re.search(r'class="result__url" href="[^"]+">(\s*)(.*?)(\s*)</a>', block, re.DOTALL)
    assert display
    block = block.replace(display.group(0), display.group(0).replace(display.group(2), doc.display))
    block = re.sub(r"ip3/[^\"]+\.ico", f"ip3/{doc.host}.ico", block)
    if doc.published:
        block = re.sub(r"\d{4}-\d\d-\d\dT00", f"{doc.published}T00", block)
    return block


def _lite_group(template: str, number: int, doc: Doc, query: str) -> str:
    url = re.search(r"href=\"([^\"]+)\" class='result-link'", template)
    assert url
    group = template.replace(f'"{url.group(1)}"', f'"{html.escape(doc.url)}"')
    group = re.sub(r"\d+\.&nbsp;", f"{number}.&nbsp;", group, count=1)
    group = _swap(group, r"class='result-link'>([^<]+)</a>", html.escape(doc.title))
    snippet = re.search(r"class='result-snippet'>\s*(.*?)\s*</td>", group, re.DOTALL)
    assert snippet
    new = highlight(html.escape(doc.snippet), query, "<b>", "</b>")
    group = group.replace(snippet.group(1), new)
    group = _swap(group, r"class='link-text'>([^<]+)</span>", doc.display)
    if doc.published:
        group = re.sub(r"\d{4}-\d\d-\d\dT00", f"{doc.published}T00", group)
    return group


def _pick(templates: list[str], doc: Doc, marker: str) -> str:
    """A recorded block with a date line for dated docs, one without for the others."""
    dated = [t for t in templates if marker in t]
    plain = [t for t in templates if marker not in t]
    return (dated or plain)[0] if doc.published else (plain or dated)[0]


def build_html_page(query: str, docs: list[Doc], *, wrapped: bool) -> str:
    head, ads, organic, tail = _html_parts()
    blocks = [
        _html_block(_pick(organic, d, "&nbsp; &nbsp;"), d, query, wrapped=wrapped) for d in docs
    ]
    page = head.replace(RECORDED_QUERY, html.escape(query)) + ads + "".join(blocks)
    return page + tail.replace(RECORDED_QUERY, html.escape(query))


def build_lite_page(query: str, docs: list[Doc]) -> str:
    head, ads, organic, tail = _lite_parts()
    groups = [
        _lite_group(_pick(organic, d, "timestamp"), n, d, query)
        for n, d in enumerate(docs, start=2)
    ]
    page = head.replace(RECORDED_QUERY, html.escape(query)) + ads + "".join(groups)
    return page + tail.replace(RECORDED_QUERY, html.escape(query))


def _anomaly(lite: bool, status: int) -> Response:
    _, _, body = example(NAME, "blocked_anomaly_202")
    if lite:
        body = body.replace(b"sv=html", b"sv=lite")
    return Response(body, status_code=status, headers={"Content-Type": "text/html; charset=UTF-8"})


def _no_results(query: str, lite: bool) -> Response:
    if lite:
        _, headers, body = example(NAME, "lite_no_more_results")
        text = body.decode().replace(RECORDED_QUERY, html.escape(query))
        return Response(text.encode(), headers=headers)
    _, headers, body = example(NAME, "html_no_results")
    text = body.decode()
    recorded = re.search(r"No results found for <strong>&quot;(.*?)&quot;", text)
    if recorded:
        text = text.replace(recorded.group(1), html.escape(query))
    return Response(text.encode(), headers=headers)


async def handle(request: Request, knob: Knob, seen: Seen) -> Response:
    path = request.url.path
    lite = "lite" in path or request.url.hostname == "lite.duckduckgo.test"
    mode = knob.take("lite" if lite else "html")
    if mode == "timeout":
        return await hang(request, knob.hang)
    form = seen.form() if request.method == "POST" else dict(seen.params)
    query = " ".join(form.get("q", "").split())
    if mode == "anomaly":
        return _anomaly(lite, 202)
    if mode == "anomaly200":
        return _anomaly(lite, 200)
    if mode == "auth":
        return Response(b"", status_code=403, headers={"Content-Type": "text/html; charset=UTF-8"})
    if mode == "rate_limit":
        return Response(b"", status_code=429, headers={"Content-Type": "text/html; charset=UTF-8"})
    if mode == "server_error":
        return Response(b"<html><body>Error</body></html>", 500, headers=HTML_TYPE)
    if mode == "empty":
        return Response(b"", headers=HTML_TYPE)
    start = int_param(form.get("s"), 0) or 0
    if start and not form.get("vqd"):
        return _anomaly(lite, 202)  # page 2 without the page-1 token: a bot
    if not query:
        return Response(
            b"<html><body><form action='/html/'></form></body></html>", headers=HTML_TYPE
        )
    asked = DECOY_QUERY if mode == "decoy" else query
    docs = documents(asked, start + PAGE_SIZE, provider=NAME, link_port=knob.link_port)[start:]
    if mode == "noresults" or not docs:
        return _no_results(query, lite)
    if lite:
        page = build_lite_page(asked, docs)
    else:
        page = build_html_page(asked, docs, wrapped=request.method == "GET")
    response = Response(page.encode(), headers=HTML_TYPE)
    return truncated(response) if mode == "malformed" else response
