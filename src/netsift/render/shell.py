"""Is this HTML a JavaScript shell? A pure verdict on the static HTML, so `render="auto"`
starts a browser only for pages whose content is built in the browser.

A shell has little readable text *and* a sign that scripts will fill it: an empty app root
(`<div id="root">`, `<div id="__next">`, `<app-root>`…), a `<noscript>` asking for JavaScript,
or a framework's marker (`__NEXT_DATA__`, `window.__NUXT__`, `ng-version`…). A short page with
no scripts is simply short; a long page with framework markers was rendered on the server.
Both are left alone: a render costs a browser, so a false "shell" is the expensive mistake.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from selectolax.lexbor import LexborHTMLParser as HTMLParser
from selectolax.lexbor import LexborNode as Node

__all__ = ["ShellVerdict", "classify_shell", "visible_text_length"]

# Below this many characters of visible text a page with scripts is a shell candidate: an
# app shell's header, footer and "Loading…" come to a few dozen words, an article to thousands.
LITTLE_TEXT = 400
# A <noscript> that asks for JavaScript is strong evidence on its own, up to this much text
# (navigation and a cookie banner can make a shell's chrome longer than LITTLE_TEXT).
NOSCRIPT_TEXT = 1500
# An app root with less text than this is "empty" (a spinner's "Loading…" is not content).
EMPTY_ROOT_TEXT = 40

APP_ROOT_IDS = frozenset(
    {"root", "app", "__next", "__nuxt", "___gatsby", "svelte", "q-app", "app-root", "main-app"}
)
APP_ROOT_TAGS = ("app-root",)
_NOSCRIPT_ASKS = re.compile(
    r"(enable|turn on|activate|allow)\s+(your\s+)?javascript"
    r"|javascript\s+(is\s+)?(required|disabled|needed|must be enabled|is not enabled)"
    r"|(requires|needs|need)\s+javascript"
    r"|without\s+javascript",
    re.IGNORECASE,
)
# Markers frameworks leave in the HTML they serve (names, not behaviour).
_MARKERS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(pattern))
    for name, pattern in (
        ("Next.js", r'id="__NEXT_DATA__"|id="__next"'),
        ("Nuxt", r"window\.__NUXT__|id=\"__nuxt\""),
        ("Angular", r"ng-version=|<app-root"),
        ("React", r"data-reactroot|react-dom|createRoot\("),
        ("Vue", r"data-v-app|createApp\("),
        ("Ember/Discourse", r"data-discourse-setup|ember-application|id=\"ember\d"),
        ("Gatsby", r'id="___gatsby"'),
        ("SvelteKit", r"__sveltekit|data-sveltekit"),
        ("client-side state", r"window\.__(INITIAL|PRELOADED)_STATE__"),
        ("hash router", r"location\.hash|hashchange"),
    )
)
_HIDDEN = ("script", "style", "noscript", "template", "svg", "head")
# The <script> types a browser runs (HTML's "JavaScript MIME type essence match", plus modules
# and import maps); any other type is a data block (JSON-LD, JSON state, templates) that no
# browser executes, so it cannot build content and is no evidence of a shell.
_RUNNABLE_TYPES = frozenset(
    {
        "",
        "module",
        "importmap",
        "application/ecmascript",
        "application/javascript",
        "application/x-ecmascript",
        "application/x-javascript",
        "text/ecmascript",
        "text/javascript",
        "text/javascript1.0",
        "text/javascript1.1",
        "text/javascript1.2",
        "text/javascript1.3",
        "text/javascript1.4",
        "text/javascript1.5",
        "text/jscript",
        "text/livescript",
        "text/x-ecmascript",
        "text/x-javascript",
    }
)


@dataclass(frozen=True)
class ShellVerdict:
    """`shell` says whether rendering is worth it; `reason` says why, for `Page.render_reason`."""

    shell: bool
    reason: str | None
    text_length: int


def visible_text_length(tree: HTMLParser) -> int:
    """Characters of text a reader would see without scripts (whitespace collapsed)."""
    body = tree.body
    if body is None:
        return 0
    clone = HTMLParser(body.html or "")
    for tag in _HIDDEN:
        for node in clone.css(tag):
            node.decompose()
    root = clone.body
    text = root.text(separator=" ") if root is not None else ""
    return len(" ".join(text.split()))


def _visible_text_length_in_place(tree: HTMLParser) -> int:
    """`visible_text_length` with the hidden parts removed from `tree` itself."""
    if tree.body is None:
        return 0
    tree.strip_tags(list(_HIDDEN), recursive=True)
    body = tree.body
    text = body.text(separator=" ") if body is not None else ""
    return len(" ".join(text.split()))


def _empty_app_root(tree: HTMLParser) -> str | None:
    candidates: list[Node] = [n for n in tree.css("[id]") if n.attributes.get("id") in APP_ROOT_IDS]
    for tag in APP_ROOT_TAGS:
        candidates.extend(tree.css(tag))
    for node in candidates:
        text = " ".join((node.text(separator=" ") or "").split())
        if len(text) < EMPTY_ROOT_TEXT:
            name = node.attributes.get("id")
            return f"empty app root #{name}" if name else f"empty app root <{node.tag}>"
    return None


def _runs_scripts(tree: HTMLParser) -> bool:
    """Whether any <script> is code a browser would run (not a JSON-LD or other data block)."""
    for node in tree.css("script"):
        kind = (node.attributes.get("type") or "").split(";")[0].strip().lower()
        if kind in _RUNNABLE_TYPES:
            return True
    return False


def _noscript_asks(tree: HTMLParser) -> bool:
    return any(_NOSCRIPT_ASKS.search(node.text() or "") for node in tree.css("noscript"))


def classify_shell(html: str, tree: HTMLParser | None = None) -> ShellVerdict:
    """Whether `html` needs a browser to show its content, and the evidence (pure).

    `tree` is `html` already parsed, when the caller has it (the extraction's, whose other
    readers are done with it): its hidden parts are then removed in place, where a fresh parse
    and a copy of its body cost two more parses of the page."""
    if tree is None:
        tree = HTMLParser(html)
        runs, asks = _runs_scripts(tree), _noscript_asks(tree)
        length = visible_text_length(tree)
    else:
        runs, asks = _runs_scripts(tree), _noscript_asks(tree)
        length = _visible_text_length_in_place(tree)
    if not runs:
        return ShellVerdict(False, None, length)
    if length < NOSCRIPT_TEXT and asks:
        return ShellVerdict(True, "a <noscript> asks for JavaScript", length)
    if length >= LITTLE_TEXT:
        return ShellVerdict(False, None, length)
    if root := _empty_app_root(tree):
        return ShellVerdict(True, f"{root} and {length} characters of text", length)
    for name, pattern in _MARKERS:
        if pattern.search(html):
            return ShellVerdict(True, f"{name} markers and {length} characters of text", length)
    if length < EMPTY_ROOT_TEXT:
        return ShellVerdict(True, f"scripts and only {length} characters of text", length)
    return ShellVerdict(False, None, length)
