"""render: Markdown and text from a cleaned element, structure kept."""

from __future__ import annotations

import lxml.html

from netsift.fetch.markdown import render

HTML = """<div><h2>Setup</h2><p>Use <em>care</em> and <strong>patience</strong> with
<a href="https://x.example/doc">the doc</a> and <code>run()</code>.</p>
<ul><li>one</li><li>two<ul><li>two a</li></ul></li></ul><ol><li>first</li><li>second</li></ol>
<table><tr><th>k</th><th>v</th></tr><tr><td>a</td><td>1</td></tr></table>
<pre><code class="language-python">x = 1
y = 2</code></pre><blockquote><p>Quoted words.</p></blockquote>
<script>var hidden = 1;</script></div>"""


def test_markdown_structure() -> None:
    md = render(lxml.html.fromstring(HTML), "markdown")
    assert md.startswith("## Setup")
    assert "Use *care* and **patience** with [the doc](https://x.example/doc) and `run()`." in md
    assert "- one\n- two\n  - two a" in md
    assert "1. first\n2. second" in md
    assert "| k | v |\n| --- | --- |\n| a | 1 |" in md
    assert "```python\nx = 1\ny = 2\n```" in md
    assert "> Quoted words." in md
    assert "hidden" not in md


def test_text_has_blocks_without_markup() -> None:
    text = render(lxml.html.fromstring(HTML), "text")
    assert text.split("\n")[:2] == ["Setup", "Use care and patience with the doc and run()."]
    assert "one\ntwo\ntwo a" in text and "k v\na 1" in text
    assert "#" not in text and "**" not in text and "|" not in text
