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
    assert "one\ntwo\ntwo a" in text and "k\tv\na\t1" in text  # a row's cells separated by tabs
    assert "#" not in text and "**" not in text and "|" not in text


def test_blocks_inside_headings_links_and_cells_keep_their_text() -> None:
    """Cards wrap titles in divs inside links and headings; docs put paragraphs in cells."""
    html = (
        "<div><h3><div>Can I pause my plan?</div></h3>"
        "<a href='https://shop.example/tent'><div>Trail tent</div><p>Two people</p></a>"
        "<table><tr><th><p>Option</p></th><th>Default</th></tr>"
        "<tr><td><p>timeout</p><p>seconds</p></td><td><div>30</div></td></tr></table></div>"
    )
    md = render(lxml.html.fromstring(html), "markdown")
    assert "### Can I pause my plan?" in md
    assert "[Trail tent Two people](https://shop.example/tent)" in md
    assert "| timeout seconds | 30 |" in md
    text = render(lxml.html.fromstring(html), "text")
    assert "Can I pause my plan?" in text and "timeout seconds" in text and "30" in text


def test_inline_elements_keep_the_spaces_at_their_edges() -> None:
    """`Hello<em> world</em>` reads "Hello *world*", not "Hello*world*"."""
    html = (
        "<p>Hello<em> world</em> and<strong> bold </strong>text, "
        "<a href='https://x.example/'> a link</a>.</p>"
    )
    md = render(lxml.html.fromstring(html), "markdown")
    assert md == "Hello *world* and **bold** text, [a link](https://x.example/)."
    assert render(lxml.html.fromstring(html), "text") == "Hello world and bold text, a link."


def test_node_text_is_the_one_text_measure_of_the_readers() -> None:
    import inspect

    from netsift.fetch import byline, forum
    from netsift.fetch.measure import node_text

    node = lxml.html.fromstring("<p>By<a>\u00a0Ada</a>\u200bExample,\n\t<b>reporter</b></p>")
    assert node_text(node) == "By Ada Example, reporter"
    # byline and forum each had their own copy of this rule
    for module in (byline, forum):
        assert "def _text(" not in inspect.getsource(module)
