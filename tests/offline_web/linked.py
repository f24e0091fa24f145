"""The pages the offline tour's search results link to, served on one loopback port.

The provider simulators normally find public-looking https pages that nothing here serves; in
the tour (`python -m tests.offline_web`) they link to this server instead (see
`providers/corpus.py`): the research corpus' James Webb pages on their own `.test` hosts (the
app of `tests/integration/research/web.py`, so research reads real articles and its citations
verify), and a generic article for every `<label>.corpus.test` result, written about the words
of its path, so any search's results can be fetched too.
"""

from __future__ import annotations

import html
import re

from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from tests.integration.research.web import WebState
from tests.integration.research.web import build_app as build_topic_app
from tests.offline_web.providers.corpus import LINKED_DOMAIN, LINKED_HOSTS, TOPIC_HOSTS

__all__ = ["HOSTS", "build_app", "topic_of"]

HOSTS: tuple[str, ...] = (*TOPIC_HOSTS, *LINKED_HOSTS)
# Path words that name a section of a site rather than the page's subject.
_SECTIONS = frozenset({"posts", "t", "topics", "wiki", "books", "watch", "questions"})
_SUFFIXES = ("-in-practice", "-survey")
_WORDY = re.compile(r"^[A-Za-z0-9_-]*[A-Za-z][A-Za-z0-9_-]*$")
_DIGEST = re.compile(r"^[0-9a-f]{12}$")


def topic_of(path: str) -> str:
    """The subject a generic page's path names (`/posts/rust-async-in-practice` → rust async)."""
    words = [
        part
        for part in path.split("/")
        if part and part not in _SECTIONS and _WORDY.match(part) and not _DIGEST.match(part)
    ]
    if not words:
        return "this topic"
    subject = max(words, key=len)
    for suffix in _SUFFIXES:
        subject = subject.removesuffix(suffix)
    return re.sub(r"[-_]+", " ", subject).strip() or "this topic"


def _generic_page(host: str, topic: str) -> str:
    site = host.removeprefix("www.").split(".")[0].title()
    paragraphs = (
        f"This page explains {topic} for people who want to use it in their own projects.",
        f"Most teams adopt {topic} gradually, starting with one small service and measuring it.",
        f"The main trade-off of {topic} is between simplicity and control over the details.",
    )
    body = "\n".join(f"<p>{html.escape(p)}</p>" for p in paragraphs)
    title = html.escape(f"{topic[:1].upper()}{topic[1:]}, explained by {site}")
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<meta name="description" content="{html.escape(paragraphs[0])}"></head>
<body>
<nav><a href="/">Home</a> <a href="/about">About</a></nav>
<main><article><h1>{title}</h1>
{body}
</article></main>
<footer>Copyright 2026 {html.escape(site)}. Part of netsift's offline tour.</footer>
</body></html>"""


async def _generic(request: Request) -> Response:
    host = (request.url.hostname or "").lower()
    if request.url.path == "/robots.txt":
        return PlainTextResponse("User-agent: *\nDisallow:\n")
    if host not in LINKED_HOSTS:
        return PlainTextResponse("not found", status_code=404)
    return HTMLResponse(_generic_page(host, topic_of(request.url.path)))


def build_app() -> ASGIApp:
    """One app for every linked host: `*.corpus.test` generic pages, else the topic pages."""
    topics = build_topic_app(WebState())
    generic = Starlette(routes=[Route("/{path:path}", _generic, methods=["GET", "HEAD"])])
    suffix = f".{LINKED_DOMAIN}"

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        host = Headers(scope=scope).get("host", "").rsplit(":", 1)[0].lower()
        target = generic if host.endswith(suffix) else topics
        await target(scope, receive, send)

    return app
