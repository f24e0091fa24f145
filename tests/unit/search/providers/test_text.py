"""Markup in provider titles and snippets → plain text."""

from __future__ import annotations

import pytest

from netsift.search.providers.text import plain_text


@pytest.mark.parametrize(
    ("markup", "text"),
    [
        (None, ""),
        ("", ""),
        ("plain  words\n here", "plain words here"),
        ("Tokio is an <strong>async</strong> runtime", "Tokio is an async runtime"),
        ('<span class="searchmatch">Rust</span> &amp; crates', "Rust & crates"),
        ("R&amp;D &#x27;quoted&#x27; &lt;tag&gt;", "R&D 'quoted' <tag>"),
        (
            "<jats:p>We compare <jats:italic>three</jats:italic> runtimes.</jats:p>",
            "We compare three runtimes.",
        ),
        ("a < b and c > d", "a < b and c > d"),
        ("<b>unclosed", "unclosed"),
        ("caf\u00e9&nbsp;au lait", "caf\u00e9 au lait"),
    ],
)
def test_plain_text(markup: str | None, text: str) -> None:
    assert plain_text(markup) == text
