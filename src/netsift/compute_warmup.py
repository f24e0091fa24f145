"""Imported last by the compute pool's forkserver (`compute.WARMUP`): read one small HTML page.

Extraction loads most of what it needs on first use: the HTML readers, trafilatura, lxml,
courlan, htmldate, charset tables, compiled patterns, and, the first time a page has too
little text for trafilatura (a JavaScript shell), justext's stop words of every language
(~12 MiB of strings, ~30 MiB of a worker's resident set once built). Loaded in each worker,
that is private memory per worker (bench/README.md, render); loaded here, before the
forkserver forks, it sits in pages the workers share copy-on-write. This module's import is
its effect: a module name is all a forkserver can be given to run.

What is alive then (the modules, their tables, what the warm-up built) lives as long as the
forkserver, so it is then frozen out of the collector (`gc.freeze`): a worker's collector would
otherwise walk it on every full collection, writing to each shared page it walks (a private
copy per worker) and spending the time (0.32 ms a page of the article set in a worker, 0.07
frozen; each worker held 37-38 MB private after 282 pages, 28-30 frozen; the forkserver 23,
14).
"""

from __future__ import annotations

import gc

from .fetch.content import extract_content

_PAGE = (
    "<!doctype html><html lang=en><head><meta charset=utf-8><title>Warm-up</title>"
    '<meta name="description" content="A page read once."></head><body>'
    "<nav><a href=/>Home</a> <a href=/docs>Docs</a></nav><main><article><h1>Warm-up</h1>"
    + "".join(
        f"<p>Paragraph {n}: a page read once, so that what extraction loads on first use is "
        f"loaded before the workers are forked. <a href=/p{n}>More</a></p>"
        for n in range(6)
    )
    + "<ul><li>one</li><li>two</li></ul><table><tr><td>a</td><td>b</td></tr></table>"
    + "</article></main><footer>Footer</footer></body></html>"
).encode()


# A JavaScript shell's static answer: too little text, so trafilatura tries its justext rescue.
_SHELL = (
    b"<!doctype html><html><head><title>App</title></head><body><div id=root></div>"
    b"<noscript>You need to enable JavaScript to run this app.</noscript>"
    b"<script src=/app.js></script></body></html>"
)


def warm_up() -> None:
    """Extract `_PAGE` and `_SHELL` once; a failure only means the workers load things
    themselves."""
    for page in (_PAGE, _SHELL):
        try:
            extract_content(
                page, content_type="text/html", url="https://warm-up.invalid/", format="markdown"
            )
        except Exception:
            pass


warm_up()
gc.collect()  # the warm-up's own garbage is not frozen with the rest
gc.freeze()
