"""The JavaScript-shell classifier: shells are recognised by their evidence, and ordinary pages
(long, or short without scripts, or server-rendered by a framework) are never sent to a browser."""

from __future__ import annotations

import pytest

from netsift.render.shell import LITTLE_TEXT, classify_shell
from tests.offline_web.site import PAGES

WORDS = "The harbour master logs every ship that enters and leaves the port each day. "


def page(body: str, head: str = "") -> str:
    return f"<html><head><title>t</title>{head}</head><body>{body}</body></html>"


@pytest.mark.parametrize(
    ("html", "evidence"),
    [
        (page("<div id='root'></div><script src='/app.js'></script>"), "empty app root #root"),
        (page("<div id='__next'></div><script>x</script>"), "empty app root #__next"),
        (page("<app-root></app-root><script src=main.js></script>"), "empty app root <app-root>"),
        (
            page("<noscript>You need to enable JavaScript to run this app.</noscript><script>"),
            "<noscript> asks for JavaScript",
        ),
        (
            page(
                "<noscript>Please enable JavaScript</noscript><nav>" + WORDS * 8 + "</nav><script>"
            ),
            "<noscript> asks for JavaScript",
        ),
        (page("<main>Loading…</main><script>window.__NUXT__={}</script>"), "Nuxt markers"),
        (page("<p>Loading</p><script src=/bundle.js></script>"), "scripts and only"),
        (page("<p>Loading</p><script type='module' src=/app.mjs></script>"), "scripts and only"),
        (page("<div id=app></div><script type='Text/JavaScript; x'>go()</script>"), "empty app"),
    ],
)
def test_shells_are_recognised_with_their_evidence(html: str, evidence: str) -> None:
    verdict = classify_shell(html)
    assert verdict.shell
    assert verdict.reason is not None and evidence in verdict.reason


@pytest.mark.parametrize(
    "html",
    [
        page("<p>Short page, no scripts.</p>"),  # short is not a shell without scripts
        page("<div id='root'></div>"),  # no script will ever fill it
        # data blocks are not code: a JSON-LD-only page is short, not a shell
        page('<p>text</p><script type=\'application/ld+json\'>{"@type": "Thing"}</script>'),
        page("<div id='app'></div><script type='application/json'>{}</script>"),
        page(f"<div id='__next'><article>{WORDS * 10}</article></div><script id='__NEXT_DATA__'>"),
        page(f"<div id='root'>{WORDS * 10}</div><script src=app.js></script>"),
        page(f"<p>{WORDS * 3}</p><p>{WORDS * 2}</p><script>track()</script>"),
        page(f"<noscript>Enable JavaScript</noscript><article>{WORDS * 30}</article><script>"),
    ],
)
def test_ordinary_pages_are_not_shells(html: str) -> None:
    assert not classify_shell(html).shell


@pytest.mark.parametrize("name", sorted(p.name for p in PAGES.glob("*.html")))
def test_the_offline_webs_static_pages_are_not_shells(name: str) -> None:
    verdict = classify_shell((PAGES / name).read_text("utf-8"))
    assert not verdict.shell, verdict.reason
    assert verdict.text_length >= LITTLE_TEXT


def test_hidden_text_does_not_count() -> None:
    hidden = "<script>var s = '" + WORDS * 20 + "';</script><style>p{}</style>"
    verdict = classify_shell(page(f"<div id='app'></div>{hidden}"))
    assert verdict.shell and verdict.text_length == 0
