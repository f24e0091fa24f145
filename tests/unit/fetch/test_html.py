"""extract_html: main content kept with its structure, page clutter dropped, in every format."""

from __future__ import annotations

from netsift.fetch.html import extract_html

ARTICLE = """<!doctype html><html lang="en"><head><title>Rivers of the North | Daily</title></head>
<body>
<nav><a href="/">Home</a> <a href="/world">World</a> <a href="/sport">Sport</a></nav>
<div class="cookie-banner" id="cookie-consent">We use cookies. <button>Accept all</button></div>
<main><article>
<h1>Rivers of the North</h1>
<p>The northern rivers carry <em>melt water</em> from the glaciers to the sea every spring,
and their flow has been measured at the same gauges for more than a century.</p>
<h2>Measurements</h2>
<p>Researchers at the <a href="https://example.org/institute">institute</a> compared the records
with satellite data and found that peak flow now arrives two weeks earlier than in 1950.</p>
<ul><li>Gauges read every hour</li><li>Satellite passes every three days</li></ul>
<table><tr><th>River</th><th>Peak</th></tr><tr><td>Alta</td><td>May 2</td></tr>
<tr><td>Tana</td><td>May 9</td></tr></table>
<pre><code>flow = volume / seconds</code></pre>
<p>The team will publish the full dataset next year so that others can check the trend.</p>
</article></main>
<aside class="related"><h3>Related</h3>
<a href="/a">Other story one</a><a href="/b">Other two</a></aside>
<div class="advert">Buy the best shoes now, 50% off</div>
<footer>Copyright 2024 Daily News. All rights reserved. Privacy policy</footer>
</body></html>"""


def test_markdown_keeps_structure_and_drops_clutter() -> None:
    result = extract_html(ARTICLE, url="https://news.example/rivers", format="markdown")
    md = result.content
    assert "melt water" in md
    assert "## Measurements" in md or "Measurements" in md
    assert "- Gauges read every hour" in md
    assert "| Alta" in md
    assert "flow = volume / seconds" in md
    assert "[institute](https://example.org/institute)" in md
    assert "Accept all" not in md
    assert "All rights reserved" not in md
    assert "50% off" not in md
    assert result.title and "Rivers of the North" in result.title


def test_text_has_no_markup() -> None:
    text = extract_html(ARTICLE, url=None, format="text").content
    assert "melt water" in text
    assert "[institute]" not in text and "*" not in text
    assert "All rights reserved" not in text


def test_html_is_clean_main_html() -> None:
    html = extract_html(ARTICLE, url=None, format="html").content
    assert "<p>" in html and "melt water" in html
    assert "cookie" not in html.lower()


def test_empty_document() -> None:
    result = extract_html("   ", url=None, format="markdown")
    assert result.content == "" and result.title is None
